// What `run` (and the self-validation) does to its reports directory once Playwright has ended:
// verify it. Every writer redacted at its source, so this is one read of each file through a
// multi-pattern matcher (verify-reports.ts), not a rewrite. A secret found in a JSON or line-text
// file is redacted there structurally and named (a note: the source that let it through is a bug);
// one that cannot be removed safely fails the run with exit 2 and its file:line. A token the target
// issued that remains is the target's own text (verify-reports.ts): named, never exit 2.
import { join, relative } from 'node:path';
import { seenTokens } from '../run/run-contract.ts';
import { minimumSecretLength, secretsFromEnv } from './redact.ts';
import { ownTextOf, verifyReports } from './verify-reports.ts';

export interface EndOfRun {
  /** 0, or 2 when a secret remains in a file. */
  code: number;
  /** What to print (stderr), one finding a line; empty when the reports are clean. */
  lines: string[];
  files: number;
  ms: number;
}

export function endOfRunRedaction(
  reportsDir: string,
  env: NodeJS.ProcessEnv,
  prefix = 'token-conformance run',
): EndOfRun {
  const t0 = performance.now();
  const v = verifyReports(reportsDir, secretsFromEnv(env), {
    ownText: ownTextOf(reportsDir),
    targetTokens: seenTokens(env),
    tokenShapesAreTargetText: true,
  });
  const at = (f: { file: string; line: number }) =>
    `${relative(process.cwd(), join(reportsDir, f.file)) || f.file}:${f.line}`;
  const short = secretsFromEnv(env).filter((s) => s.length < minimumSecretLength).length;
  const lines = [
    ...(short > 0
      ? [
          `${prefix}: note: ${short} secret value(s) of the profile are shorter than ${minimumSecretLength} characters: they are redacted where they travel by name (client_secret=…, "password": …, Authorization: …) but not searched for by value, which would shred ordinary words`,
        ]
      : []),
    ...v.repaired.map(
      (f) =>
        `${prefix}: note: ${at(f)}: ${f.what} reached this file and was redacted there (the file was rewritten structurally); the suite should have redacted it at its source`,
    ),
    ...v.targetText.map(
      (f) =>
        `${prefix}: note: ${at(f)}: ${f.what} remains in this file (its format cannot be rewritten safely): the target's own value, not a secret of the profile`,
    ),
    ...v.remaining.map(
      (f) =>
        `${prefix}: ${at(f)}: ${f.what} remains in this file (its format cannot be rewritten safely); do not share these reports`,
    ),
  ];
  return { code: v.remaining.length > 0 ? 2 : 0, lines, files: v.files, ms: performance.now() - t0 };
}
