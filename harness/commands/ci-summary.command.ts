// `npx token-conformance ci-summary REPORT.json [options]`: a report as a CI job shows it — the
// Markdown summary appended to a file ($GITHUB_STEP_SUMMARY by default), one line per failing
// requirement on stdout (GitHub annotations with --annotations), the verdict counts appended as
// `key=value` outputs ($GITHUB_OUTPUT by default; a GitLab dotenv report). Exit 0 whatever the
// verdict (`gate` decides), 2 on bad arguments or an unreadable report.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { githubAnnotations, markdownSummary, plainLines, stepOutputs } from '../ci/ci-summary.ts';
import { readReport, ReportError } from '../reporter/read-report.ts';
import { rawProcessIo, type CommandIo } from './command-io.ts';
import { parseCommand } from './parse-command.ts';

const usage = `Usage: token-conformance ci-summary REPORT.json [options]

  --summary FILE      append the Markdown summary here (default: $GITHUB_STEP_SUMMARY, when set)
  --outputs FILE      append the verdict counts as key=value lines (default: $GITHUB_OUTPUT, when
                      set): verdict, pass, fail, warn, blocked, pending, skip, not-applicable,
                      unchecked, waived, total, not-scored, catalogue, report
  --dotenv FILE       write the same counts as a GitLab dotenv report: CONFORMANCE_VERDICT=…,
                      CONFORMANCE_FAIL=…, … (upper case, underscores)
  --annotations       print a GitHub ::error (FAIL, UNCHECKED) or ::warning (WARN, BLOCKED) line per
                      requirement, with its clause; without it, one plain line each
  --reports-url URL   where the uploaded reports are (linked from the summary)
  --help

Exit 0 whatever the verdict (gate decides the build); 2 on bad arguments or an unreadable report.`;

/** A dotenv variable name (GitLab: letters, digits, underscores): `not-applicable` → CONFORMANCE_NOT_APPLICABLE. */
export const dotenvName = (key: string): string => `CONFORMANCE_${key.toUpperCase().replace(/-/g, '_')}`;

export function ciSummaryMain(
  args: string[],
  // Written as built: the annotations are workflow commands on purpose; the target's words in them are escaped.
  io: CommandIo = rawProcessIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  return Promise.resolve(ciSummarySync(args, io, env));
}

function ciSummarySync(args: string[], io: CommandIo, env: NodeJS.ProcessEnv): number {
  const fail = (message: string): number => {
    io.err(`token-conformance ci-summary: ${message}`);
    return 2;
  };
  const parsed = parseCommand(
    args,
    {
      summary: { type: 'string' },
      outputs: { type: 'string' },
      dotenv: { type: 'string' },
      annotations: { type: 'boolean', default: false },
      'reports-url': { type: 'string' },
    },
    usage,
    'ci-summary',
    io,
  );
  if (typeof parsed === 'number') return parsed;
  const v = parsed.values as {
    summary?: string;
    outputs?: string;
    dotenv?: string;
    annotations: boolean;
    'reports-url'?: string;
  };
  if (parsed.positionals.length !== 1)
    return fail(`give exactly one REPORT.json (got ${parsed.positionals.length})\n\n${usage}`);
  const reportFile = parsed.positionals[0]!;
  let report;
  try {
    report = readReport(reportFile);
  } catch (error) {
    if (error instanceof ReportError) return fail(error.message);
    throw error;
  }
  const summaryFile = v.summary ?? env.GITHUB_STEP_SUMMARY;
  const outputsFile = v.outputs ?? env.GITHUB_OUTPUT;
  const append = (file: string, text: string) => {
    mkdirSync(dirname(resolve(file)), { recursive: true });
    appendFileSync(file, text);
  };
  if (summaryFile)
    append(
      summaryFile,
      markdownSummary(report, {
        reportPath: reportFile,
        ...(v['reports-url'] ? { reportsUrl: v['reports-url'] } : {}),
      }),
    );
  const outputs = Object.entries(stepOutputs(report, reportFile)).map(
    ([k, value]) => [k, value.replace(/\r?\n/g, ' ')] as const,
  );
  if (outputsFile) append(outputsFile, outputs.map(([k, value]) => `${k}=${value}\n`).join(''));
  // A dotenv report is the job's one set of variables: written afresh, never appended to.
  if (v.dotenv) {
    mkdirSync(dirname(resolve(v.dotenv)), { recursive: true });
    writeFileSync(v.dotenv, outputs.map(([k, value]) => `${dotenvName(k)}=${value}\n`).join(''));
  }
  const lines = v.annotations ? githubAnnotations(report) : plainLines(report);
  for (const line of lines) io.out(line);
  const s = report.summary;
  io.out(
    `token-conformance: ${report.verdict} — ${s.PASS} PASS, ${s.FAIL} FAIL, ${s.WARN} WARN, ${s.BLOCKED ?? 0} BLOCKED, ${s.UNCHECKED} UNCHECKED of ${s.total} requirements${report.catalogue ? ` (catalogue ${report.catalogue.version})` : ''}`,
  );
  return 0;
}
