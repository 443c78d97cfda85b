// The vendor hand-off bundle: one JSON file holding the conformance report, the traceability
// matrix, the CTRF report, the gate decision (if any), every check's redacted HTTP transcript, the suite version,
// the SHA-256 of the profile with secrets excluded and the waivers applied — and an Ed25519
// signature (node:crypto, no dependency) over a manifest of the SHA-256 of each included file.
//
// Signed bytes: the canonical JSON (keys sorted, no whitespace) of `manifest`. `verify` recomputes
// them, checks the signature with the public key, then each file's hash, and that the bundle holds
// exactly the files the manifest lists. Everything is checked offline.
//
// No secret enters a bundle: the reports are redacted when written, and every file is passed once
// more through the redactor (the profile's secrets when resolvable, the TOKEN_CONFORMANCE_SECRET_*
// environment, token shapes) before it is hashed.
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJsonc } from '../../core/profile/jsonc.ts';
import { loadProfile } from '../../core/profile/load-profile.ts';
import type { Redactor } from '../../core/redaction/redact.ts';
import { knownSecretsRedactor } from '../../core/run/run-contract.ts';
import { transcriptFileName, transcriptsDir } from '../reporter/conformance.reporter.ts';
import type { ConformanceReport, Settlement } from '../reporter/report.schema.ts';
import { readReport } from '../reporter/read-report.ts';

export const bundleFormat = 'token-conformance-bundle';

export interface ManifestFile {
  path: string;
  sha256: string;
  bytes: number;
}

export interface BundleManifest {
  bundleVersion: 1;
  createdAt: string;
  suiteVersion: string;
  target: string;
  verdict: ConformanceReport['verdict'];
  reportStartedAt: string;
  /** The catalogue release the report scored (absent for reports of suite versions before releases). */
  catalogue?: NonNullable<ConformanceReport['catalogue']>;
  /** SHA-256 of the canonical JSON of the profile with every literal secret value excluded (env references kept by name). */
  profileSha256?: string;
  waivers: NonNullable<ConformanceReport['waivers']>['entries'];
  transcripts: number;
  /**
   * The obligations of earlier runs this run settled: each with the check that settled
   * it, its requirements, and the path (in `files`) of that check's transcript — the requests that
   * settled it. Absent when the run settled none.
   */
  settlements?: BundledSettlement[];
  files: ManifestFile[];
  /** SHA-256 of the signing key's public key (SPKI DER), to tell keys apart. */
  publicKeySha256: string;
}

export interface BundledSettlement extends Settlement {
  check: string;
  project?: string;
  requirements: string[];
  /** The settling check's transcript in the bundle; absent when the check wrote none (it sent no request). */
  transcript?: string;
}

/** Every settlement of the report, once per check and obligation, with the transcript that shows it when the bundle holds one. */
export function settlementsOf(report: ConformanceReport, paths: readonly string[]): BundledSettlement[] {
  const byKey = new Map<string, BundledSettlement>();
  for (const r of report.requirements) {
    for (const c of r.checks) {
      for (const st of c.settled ?? []) {
        const key = `${c.project ?? ''}|${c.title}|${st.obligation}`;
        const known = byKey.get(key);
        if (known) {
          if (!known.requirements.includes(r.id)) known.requirements.push(r.id);
          continue;
        }
        const transcript = `${transcriptsDir}/${transcriptFileName(c.project ?? 'default', c.title)}`;
        const carried = paths.includes(transcript);
        byKey.set(key, {
          ...st,
          check: c.title,
          ...(c.project ? { project: c.project } : {}),
          requirements: [r.id],
          ...(carried ? { transcript } : {}),
        });
      }
    }
  }
  return [...byKey.values()];
}

export interface Bundle {
  format: typeof bundleFormat;
  manifest: BundleManifest;
  signature: { algorithm: 'Ed25519'; value: string };
  /** The included files, UTF-8 text, by path. */
  files: Record<string, string>;
}

export class BundleError extends Error {
  override readonly name = 'BundleError';
}

/** JSON with object keys sorted at every level and no whitespace: the bytes that are signed. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

export function publicKeyFingerprint(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return sha256(pub.export({ type: 'spki', format: 'der' }));
}

const secretKeys = new Set(['clientSecret', 'password', 'otherEnvironment']);

/** The profile with every literal secret value excluded; environment references keep their name (not a secret). */
export function profileWithoutSecrets(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => profileWithoutSecrets(v));
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    if (key !== undefined && secretKeys.has(key) && 'value' in obj) return { ...obj, value: '[EXCLUDED]' };
    return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, profileWithoutSecrets(v, k)]));
  }
  return value;
}

export function profileSha256(file: string): string {
  return sha256(canonicalJson(profileWithoutSecrets(parseJsonc(readFileSync(file, 'utf8')))));
}

export function loadPrivateKey(file: string): KeyObject {
  let key: KeyObject;
  let pem: Buffer;
  try {
    pem = readFileSync(file);
  } catch (error) {
    throw new BundleError(
      `--key: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)}); give the private key written by token-conformance keygen --private`,
    );
  }
  if (pem.includes('-----BEGIN PUBLIC KEY-----')) {
    throw new BundleError(
      `--key: ${file} is a public key; bundle signs with the private key (the --private file of token-conformance keygen), the public key is for verify (see bundle --help)`,
    );
  }
  try {
    key = createPrivateKey(pem);
  } catch (error) {
    throw new BundleError(`cannot read a private key from ${file}: ${(error as Error).message}`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new BundleError(
      `${file} is a ${key.asymmetricKeyType ?? 'unknown'} key; an Ed25519 key is needed (token-conformance keygen, or openssl genpkey -algorithm ed25519)`,
    );
  return key;
}

export function loadPublicKey(file: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(readFileSync(file));
  } catch (error) {
    throw new BundleError(`cannot read a public key from ${file}: ${(error as Error).message}`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new BundleError(`${file} is a ${key.asymmetricKeyType ?? 'unknown'} key; an Ed25519 public key is needed`);
  return key;
}

export interface BundleOptions {
  reportsDir: string;
  key: KeyObject;
  profile?: string;
  env?: NodeJS.ProcessEnv;
  now?: Date;
}

/** The files a bundle takes from the reports directory: the report, matrix, gate decision, transcripts. */
export function collectFiles(reportsDir: string): string[] {
  if (!existsSync(join(reportsDir, 'conformance.json')))
    throw new BundleError(`no conformance.json in ${reportsDir} (run the suite first, or give --reports DIR)`);
  const files = ['conformance.json', 'traceability.html', 'ctrf.json', 'gate.json'].filter((f) =>
    existsSync(join(reportsDir, f)),
  );
  const tdir = join(reportsDir, transcriptsDir);
  if (existsSync(tdir))
    for (const f of readdirSync(tdir)
      .filter((n) => n.endsWith('.txt'))
      .sort())
      files.push(`${transcriptsDir}/${f}`);
  return files;
}

/**
 * A report file passed through the redactor once more: a JSON file as a value (parsed, its strings
 * redacted, serialised again in its own indentation), so that it stays valid JSON; other files
 * (transcripts, HTML) as text.
 */
function redactFileText(path: string, text: string, redactor: Redactor): string {
  if (!path.endsWith('.json')) return redactor.redact(text);
  try {
    const indent = /^[[{]\n( +)/.exec(text)?.[1]?.length ?? 0;
    return `${JSON.stringify(redactor.redactValue(JSON.parse(text) as unknown), null, indent)}${text.endsWith('\n') ? '\n' : ''}`;
  } catch {
    return redactor.redact(text);
  }
}

export function createBundle(options: BundleOptions): Bundle {
  const env = options.env ?? process.env;
  const paths = collectFiles(options.reportsDir);
  const report = readReport(join(options.reportsDir, 'conformance.json'));
  const redactor: Redactor = knownSecretsRedactor(env);
  let profileHash: string | undefined;
  if (options.profile !== undefined) {
    try {
      profileHash = profileSha256(options.profile);
    } catch (error) {
      throw new BundleError(`cannot read the profile ${options.profile}: ${(error as Error).message}`);
    }
    try {
      // The profile's secrets, when this environment resolves them, are searched for by value too.
      for (const s of loadProfile(options.profile, { env }).secrets) redactor.add(s.value);
    } catch {
      // unresolvable here (e.g. no CI secrets in the signing environment): shapes and known values still apply
    }
  }
  const files: Record<string, string> = {};
  const manifestFiles: ManifestFile[] = [];
  for (const path of paths) {
    const text = redactFileText(path, readFileSync(join(options.reportsDir, path), 'utf8'), redactor);
    files[path] = text;
    manifestFiles.push({ path, sha256: sha256(text), bytes: Buffer.byteLength(text) });
  }
  const settlements = settlementsOf(report, paths);
  const manifest: BundleManifest = {
    bundleVersion: 1,
    createdAt: (options.now ?? new Date()).toISOString(),
    suiteVersion: report.suiteVersion,
    target: report.target.name,
    verdict: report.verdict,
    reportStartedAt: report.startedAt,
    ...(report.catalogue ? { catalogue: report.catalogue } : {}),
    ...(profileHash ? { profileSha256: profileHash } : {}),
    waivers: report.waivers?.entries ?? [],
    transcripts: manifestFiles.filter((f) => f.path.startsWith(`${transcriptsDir}/`)).length,
    ...(settlements.length > 0 ? { settlements } : {}),
    files: manifestFiles,
    publicKeySha256: publicKeyFingerprint(options.key),
  };
  const signature = sign(null, Buffer.from(canonicalJson(manifest)), options.key).toString('base64');
  return { format: bundleFormat, manifest, signature: { algorithm: 'Ed25519', value: signature }, files };
}

export type VerifyResult = { ok: true; manifest: BundleManifest } | { ok: false; problems: string[] };

export function verifyBundle(raw: unknown, key: KeyObject): VerifyResult {
  const b = raw as Partial<Bundle> | null;
  if (
    !b ||
    typeof b !== 'object' ||
    b.format !== bundleFormat ||
    !b.manifest ||
    typeof b.manifest !== 'object' ||
    !b.signature ||
    typeof b.signature.value !== 'string' ||
    !b.files ||
    typeof b.files !== 'object'
  ) {
    return { ok: false, problems: ['not a token-conformance bundle (format, manifest, signature or files missing)'] };
  }
  const problems: string[] = [];
  let signed = false;
  try {
    signed = verify(null, Buffer.from(canonicalJson(b.manifest)), key, Buffer.from(b.signature.value, 'base64'));
  } catch (error) {
    problems.push(`signature could not be checked: ${(error as Error).message}`);
  }
  if (!signed) {
    const fp = publicKeyFingerprint(key);
    problems.push(
      b.manifest.publicKeySha256 && b.manifest.publicKeySha256 !== fp
        ? `signature invalid: the bundle says it was signed by key ${b.manifest.publicKeySha256.slice(0, 16)}…, this public key is ${fp.slice(0, 16)}…`
        : 'signature invalid: the manifest was altered or signed by another key',
    );
  }
  const listed = new Set<string>();
  for (const f of Array.isArray(b.manifest.files) ? b.manifest.files : []) {
    listed.add(f.path);
    const content = b.files[f.path];
    if (typeof content !== 'string') problems.push(`${f.path}: listed in the manifest but missing from the bundle`);
    else if (sha256(content) !== f.sha256)
      problems.push(`${f.path}: SHA-256 does not match the manifest (the file was altered)`);
  }
  for (const path of Object.keys(b.files))
    if (!listed.has(path)) problems.push(`${path}: in the bundle but not in the signed manifest`);
  for (const st of Array.isArray(b.manifest.settlements) ? b.manifest.settlements : []) {
    if (st.transcript !== undefined && !listed.has(st.transcript))
      problems.push(
        `settlement of obligation ${st.obligation}: its transcript ${st.transcript} is not in the manifest`,
      );
  }
  return problems.length === 0 ? { ok: true, manifest: b.manifest } : { ok: false, problems };
}
