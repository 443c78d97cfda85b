// `npx token-conformance bundle --key PRIVATE.pem --out FILE [--reports DIR] [--profile FILE]`
// `npx token-conformance verify FILE --key PUBLIC.pem [--extract DIR]`
// `npx token-conformance keygen --private FILE --public FILE`
// The signed vendor hand-off (harness/bundle/bundle.ts). Exit codes: 0 written / verified, 1 not
// verified, 2 bad arguments or unreadable input.
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import {
  BundleError,
  createBundle,
  loadPrivateKey,
  loadPublicKey,
  publicKeyFingerprint,
  verifyBundle,
  type Bundle,
} from '../bundle/bundle.ts';
import { attestationPathFor, signStatement, testResultStatement, verifyAttestation } from '../bundle/attestation.ts';
import type { ConformanceReport } from '../reporter/report.schema.ts';
import { ReportError } from '../reporter/read-report.ts';
import { processIo, type CommandIo } from './command-io.ts';
import { parseCommand } from './parse-command.ts';

const bundleUsage = `Usage: token-conformance bundle --key PRIVATE.pem --out FILE [options]

  --key FILE       Ed25519 private key (PEM) that signs the bundle (token-conformance keygen)
  --out FILE       where to write the bundle (one JSON file); beside it, FILE without .json plus
                   .intoto.jsonl: an in-toto Test Result statement in a DSSE envelope, same key
  --reports DIR    the run's reports (default reports/): conformance.json, traceability.html,
                   gate.json if present, transcripts/*.txt
  --profile FILE   the target profile: its SHA-256 (literal secrets excluded) goes into the manifest
  --help`;

const verifyUsage = `Usage: token-conformance verify BUNDLE --key PUBLIC.pem [--extract DIR]
       token-conformance verify ATTESTATION.intoto.jsonl --key PUBLIC.pem

  --key FILE          the Ed25519 public key (PEM) of the party that signed the bundle
  --attestation FILE  the bundle's in-toto attestation (default: beside BUNDLE, .intoto.jsonl)
  --extract DIR       after a successful verification, write the bundled files under DIR
  --help

Checks offline: the signature over the manifest, then the SHA-256 of every file, and that the
bundle holds exactly the files the manifest lists; then the attestation beside it, when there is
one: its DSSE signature, its in-toto Test Result statement, and that the report digests it names
are the bundle's. Exit 0 verified, 1 not verified, 2 bad input.`;

const keygenUsage = `Usage: token-conformance keygen --private FILE --public FILE [--force]

Writes an Ed25519 key pair in PEM (the private key readable by its owner only). Equivalent:
  openssl genpkey -algorithm ed25519 -out private.pem && openssl pkey -in private.pem -pubout -out public.pem`;

export function bundleMain(
  args: string[],
  io: CommandIo = processIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  return Promise.resolve(bundleSync(args, io, env));
}

function bundleSync(args: string[], io: CommandIo = processIo, env: NodeJS.ProcessEnv = process.env): number {
  const parsed = parseCommand(
    args,
    {
      key: { type: 'string' },
      out: { type: 'string' },
      reports: { type: 'string', default: 'reports' },
      profile: { type: 'string' },
    },
    bundleUsage,
    'bundle',
    io,
  );
  if (typeof parsed === 'number') return parsed;
  const v = parsed.values as unknown as { key?: string; out?: string; reports: string; profile?: string };
  const fail = (m: string) => {
    io.err(`token-conformance bundle: ${m}`);
    return 2;
  };
  if (parsed.positionals.length > 0) return fail(`unexpected argument '${parsed.positionals[0]}'\n\n${bundleUsage}`);
  if (!v.key || !v.out) return fail(`--key and --out are required\n\n${bundleUsage}`);
  try {
    const key = loadPrivateKey(v.key);
    const bundle = createBundle({
      reportsDir: resolve(v.reports),
      key,
      ...(v.profile ? { profile: v.profile } : {}),
      env,
    });
    mkdirSync(dirname(resolve(v.out)), { recursive: true });
    writeFileSync(v.out, `${JSON.stringify(bundle, null, 2)}\n`);
    const attestation = attestationPathFor(v.out);
    writeFileSync(attestation, `${JSON.stringify(signStatement(statementOf(bundle), key))}\n`);
    const m = bundle.manifest;
    io.out(`ATTESTATION written: ${attestation} — in-toto Test Result (DSSE, same key)`);
    if (m.transcripts === 0)
      io.err(
        'token-conformance bundle: no HTTP transcripts found under transcripts/ (run the suite with `token-conformance run` first)',
      );
    if (!m.profileSha256) io.err('token-conformance bundle: no --profile given: the manifest carries no profile hash');
    io.out(
      `BUNDLE written: ${v.out} — ${m.files.length} files (${m.transcripts} transcripts), suite ${m.suiteVersion}, target ${m.target}, verdict ${m.verdict}${m.catalogue ? `, catalogue ${m.catalogue.version}` : ''}, ${m.waivers.length} waivers${m.settlements ? `, ${m.settlements.length} settlements (${m.settlements.filter((st) => st.transcript !== undefined).length} with transcripts)` : ''}, signed by key ${m.publicKeySha256.slice(0, 16)}…`,
    );
    return 0;
  } catch (error) {
    if (error instanceof BundleError || error instanceof ReportError) return fail(error.message);
    throw error;
  }
}

/** The bundle's report files: what the attestation's digests name (the transcripts are in the bundle's manifest). */
const attestedFiles = ['conformance.json', 'traceability.html', 'ctrf.json', 'gate.json'];

function statementOf(bundle: Bundle) {
  const report = JSON.parse(bundle.files['conformance.json']!) as ConformanceReport;
  const reportFiles = Object.fromEntries(
    attestedFiles.filter((f) => bundle.files[f] !== undefined).map((f) => [f, bundle.files[f]!]),
  );
  return testResultStatement({
    report,
    reportFiles,
    ...(bundle.manifest.profileSha256 ? { profileSha256: bundle.manifest.profileSha256 } : {}),
  });
}

/** An attestation file checked (alone, or against the bundle's files): its VERIFIED line, or undefined once the problems are said. */
function checkAttestationFile(
  file: string,
  key: ReturnType<typeof loadPublicKey>,
  bundleFiles: Record<string, string> | undefined,
  io: CommandIo,
): string | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    io.err(`NOT VERIFIED: ${file} is not a readable DSSE envelope (${(error as Error).message})`);
    return undefined;
  }
  const result = verifyAttestation(raw, key, bundleFiles);
  if (!result.ok) {
    io.err(`NOT VERIFIED: ${file}`);
    for (const p of result.problems) io.err(`  ${p}`);
    return undefined;
  }
  const p = result.statement.predicate;
  const catalogue = p.configuration.find((d) => d.name === 'token-conformance catalogue')?.annotations?.version;
  return `VERIFIED: ${file} — DSSE signature valid, in-toto Test Result ${p.result}: ${p.passedTests.length} passed, ${p.warnedTests.length} warned, ${p.failedTests.length} failed${typeof catalogue === 'string' ? `, catalogue ${catalogue}` : ''}${bundleFiles ? '; its report digests match the bundle' : ''}`;
}

export function verifyMain(args: string[], io: CommandIo = processIo): Promise<number> {
  return Promise.resolve(verifySync(args, io));
}

function verifySync(args: string[], io: CommandIo = processIo): number {
  const parsed = parseCommand(
    args,
    { key: { type: 'string' }, extract: { type: 'string' }, attestation: { type: 'string' } },
    verifyUsage,
    'verify',
    io,
  );
  if (typeof parsed === 'number') return parsed;
  const v = parsed.values as unknown as { key?: string; extract?: string; attestation?: string };
  const fail = (m: string) => {
    io.err(`token-conformance verify: ${m}`);
    return 2;
  };
  if (parsed.positionals.length !== 1) return fail(`give exactly one BUNDLE file\n\n${verifyUsage}`);
  if (!v.key) return fail(`--key PUBLIC.pem is required\n\n${verifyUsage}`);
  const file = parsed.positionals[0]!;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    // Nothing to verify is bad input (exit 2), not a bundle that failed verification (exit 1).
    return fail(
      `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)}); give the bundle file written by token-conformance bundle --out (see verify --help)`,
    );
  }
  let key;
  try {
    key = loadPublicKey(v.key);
  } catch (error) {
    if (error instanceof BundleError) return fail(error.message);
    throw error;
  }
  if (file.endsWith('.intoto.jsonl')) {
    const line = checkAttestationFile(file, key, undefined, io);
    if (line !== undefined) io.out(line);
    return line !== undefined ? 0 : 1;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    io.err(`NOT VERIFIED: ${file} is not readable JSON (${(error as Error).message})`);
    return 1;
  }
  const result = verifyBundle(raw, key);
  if (!result.ok) {
    io.err(`NOT VERIFIED: ${file}`);
    for (const p of result.problems) io.err(`  ${p}`);
    return 1;
  }
  const m = result.manifest;
  const files = (raw as { files: Record<string, string> }).files;
  const attestation = v.attestation ?? attestationPathFor(file);
  if (v.attestation !== undefined && !existsSync(attestation)) return fail(`--attestation: cannot read ${attestation}`);
  const present = existsSync(attestation);
  const attested = present ? checkAttestationFile(attestation, key, files, io) : undefined;
  if (present && attested === undefined) return 1;
  if (v.extract) {
    const root = resolve(v.extract);
    for (const f of m.files) {
      const target = resolve(root, f.path);
      if (!target.startsWith(root + sep)) return fail(`refusing to extract ${f.path} outside ${root}`);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, files[f.path]!);
    }
  }
  io.out(
    `VERIFIED: ${file} — signature valid (key ${publicKeyFingerprint(key).slice(0, 16)}…), ${m.files.length} files match their SHA-256; suite ${m.suiteVersion}, target ${m.target}, verdict ${m.verdict}${m.catalogue ? `, catalogue ${m.catalogue.version}` : ''}, created ${m.createdAt}${m.profileSha256 ? `, profile sha256 ${m.profileSha256}` : ''}, ${m.waivers.length} waivers${present ? '' : `; no attestation beside it (${attestation})`}${v.extract ? `; extracted to ${v.extract}` : ''}`,
  );
  if (attested !== undefined) io.out(attested);
  return 0;
}

export function keygenMain(args: string[], io: CommandIo = processIo): Promise<number> {
  return Promise.resolve(keygenSync(args, io));
}

function keygenSync(args: string[], io: CommandIo = processIo): number {
  const parsed = parseCommand(
    args,
    { private: { type: 'string' }, public: { type: 'string' }, force: { type: 'boolean', default: false } },
    keygenUsage,
    'keygen',
    io,
  );
  if (typeof parsed === 'number') return parsed;
  const v = parsed.values as unknown as { private?: string; public?: string; force: boolean };
  if (!v.private || !v.public) {
    io.err(`token-conformance keygen: --private and --public are required\n\n${keygenUsage}`);
    return 2;
  }
  for (const f of [v.private, v.public]) {
    if (existsSync(f) && !v.force) {
      io.err(`token-conformance keygen: ${f} exists (give --force to replace it)`);
      return 2;
    }
  }
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  for (const f of [v.private, v.public]) mkdirSync(dirname(resolve(f)), { recursive: true });
  writeFileSync(v.private, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  writeFileSync(v.public, publicKey.export({ type: 'spki', format: 'pem' }));
  io.out(
    `wrote ${v.private} (private: keep it with the signer) and ${v.public} (public: give it to whoever verifies); key ${publicKeyFingerprint(publicKey).slice(0, 16)}…`,
  );
  return 0;
}
