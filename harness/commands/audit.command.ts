// `npx token-conformance audit TRAFFIC... [--target PROFILE]`: judges recorded traffic (HAR 1.2
// files and recordings of `token-conformance record`) against the catalogue and writes the report
// formats of `run` (conformance.json, traceability.html, junit.xml, the terminal summary) plus
// audit.sarif. Exit 0 (no FAIL), 1 a FAIL (or a WARN with --strict), 2 bad arguments or unreadable traffic.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseCommand } from './parse-command.ts';
import { ProfileError } from '../../core/profile/load-profile.ts';
import { verifyReports } from '../../core/redaction/verify-reports.ts';
import { audit } from '../audit/audit.ts';
import { auditJunit } from '../audit/audit-junit.ts';
import { auditReport } from '../audit/audit-report.ts';
import { TrafficError } from '../audit/har-entries.ts';
import { loadProfileForTraffic } from '../audit/profile-for-traffic.ts';
import { auditSarif } from '../audit/sarif.ts';
import { defaultKeyEnv, Digester } from '../audit/secret-digest.ts';
import { profileSha256 } from '../bundle/bundle.ts';
import { suiteVersion } from '../reporter/conformance.reporter.ts';
import { renderSummary } from '../reporter/terminal-summary.ts';
import { renderTraceability } from '../reporter/traceability-html.ts';
import { exitCodeFor, type Level } from '../reporter/verdict.ts';
import { processIo, type CommandIo } from './command-io.ts';

const usage = `Usage: token-conformance audit TRAFFIC... [options]

  TRAFFIC           HAR 1.2 files (browsers, Playwright recordHar, mitmproxy, Charles, Fiddler)
                    or recordings of \`token-conformance record\` (JSON Lines), judged in the order given
  --target PROFILE  the target profile: its addresses classify the exchanges, its declared
                    interpretations, clock skew and rate limits are what the traffic is judged
                    against (as in \`run\`); its secrets are optional here. Without it, exchanges are
                    classified by the spec's paths and judged against the reference choices
  --out DIR         where to write the reports (default reports/audit)
  --level LEVEL     must | should | all (default all)
  --strict          exit 1 on WARN as well
  --key-env NAME    the environment variable holding the digest key (default ${defaultKeyEnv}):
                    secrets in the traffic are reported as HMAC digests under it, never in clear;
                    unset, a random key for this audit is used (digests agree within it only)
  --help

Verdicts: FAIL/WARN with the exchanges that show it (file, index, time); PASS only as "observed
conformant in N exchanges"; UNOBSERVED for a requirement no exchange exercised, or that traffic
cannot show (only \`run\` verifies it). Writes DIR/conformance.json, traceability.html, junit.xml and
audit.sarif (SARIF 2.1.0: one result per finding, the requirement as the rule). \`gate\`, \`diff\`
and \`bundle\` take DIR/conformance.json like a run's.`;

export const auditOptions = {
  target: { type: 'string' },
  out: { type: 'string' },
  level: { type: 'string' },
  strict: { type: 'boolean', default: false },
  'key-env': { type: 'string' },
  help: { type: 'boolean', default: false },
} as const;

export async function auditMain(
  args: string[],
  io: CommandIo = processIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const fail = (message: string): number => {
    io.err(`token-conformance audit: ${message}`);
    return 2;
  };
  const parsed = parseCommand(args, auditOptions, usage, 'audit', io);
  if (typeof parsed === 'number') return parsed;
  const v = parsed.values;
  if (parsed.positionals.length === 0) return fail(`give at least one traffic file (HAR or recording)\n\n${usage}`);
  const level = (v.level ?? 'all') as Level;
  if (!['must', 'should', 'all'].includes(level))
    return fail(`--level must be must, should or all (got '${v.level ?? ''}')`);
  const keyEnv = v['key-env'] ?? defaultKeyEnv;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(keyEnv))
    return fail(`--key-env must name an environment variable (got '${keyEnv}')`);
  let profile;
  let known: string[] = [];
  if (v.target !== undefined) {
    try {
      const p = loadProfileForTraffic(v.target, env, { connects: false });
      profile = p.loaded.profile;
      known = p.secrets;
    } catch (error) {
      if (error instanceof ProfileError) return fail(error.message.split('\n')[0]!);
      throw error;
    }
  }
  const digester = Digester.fromEnv(keyEnv, env) ?? Digester.ephemeral();
  const startedAt = new Date();
  let result;
  try {
    result = await audit(parsed.positionals, { ...(profile ? { profile } : {}), digester, known });
  } catch (error) {
    if (error instanceof TrafficError) return fail(error.message);
    throw error;
  }
  const report = auditReport(result, {
    level,
    strict: v.strict,
    ...(profile ? { profile, profileSha256: profileSha256(v.target!) } : {}),
    suiteVersion: suiteVersion(),
    startedAt,
    durationMs: Date.now() - startedAt.getTime(),
    digestKey: digester.keySource,
  });
  const out = resolve(v.out ?? join('reports', 'audit'));
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'conformance.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(out, 'traceability.html'), renderTraceability(report));
  writeFileSync(join(out, 'junit.xml'), auditJunit(report));
  writeFileSync(join(out, 'audit.sarif'), `${JSON.stringify(auditSarif(report), null, 2)}\n`);
  // The traffic's secrets were digested on reading: a secret the profile knows must appear nowhere.
  const verification = verifyReports(out, known);
  for (const f of verification.remaining)
    io.err(`token-conformance audit: ${f.file}:${f.line}: ${f.what} remains in this file; do not share these reports`);
  for (const s of result.skipped) io.err(`token-conformance audit: note: ${s.file} #${s.index} skipped: ${s.why}`);
  const where = relative(process.cwd(), out) || '.';
  io.out(renderSummary(report, false, where));
  const exchanges = result.files.reduce((n, f) => n + f.exchanges, 0);
  io.out(
    `AUDITED ${exchanges} exchanges in ${result.files.length} file${result.files.length === 1 ? '' : 's'} (${Object.entries(
      result.kinds,
    )
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ')}): ${where}/audit.sarif`,
  );
  if (verification.remaining.length > 0) return 1;
  return exitCodeFor(report.verdict, v.strict);
}
