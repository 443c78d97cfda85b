// The conformance reporter (a Playwright Reporter): maps every check to the requirement IDs of its
// `requirement` annotations, judges each requirement (verdict.ts), and writes
//   <outputDir>/conformance.json    (schemas/conformance-report.schema.json)
//   <outputDir>/traceability.html   (requirement → checks → verdict)
//   <outputDir>/ctrf.json           (the same verdicts in CTRF, ctrf-report.ts)
//   <outputDir>/junit.xml           (each check as its verdict reads: junit-report.ts)
//   <outputDir>/checks.json         (the raw check outcomes, to merge a later pass or shard)
//   <outputDir>/transcripts/        (each check's redacted HTTP transcript, for `bundle`)
// plus a terminal summary per area and one final verdict line. Redaction happens at the source: the
// fields it takes from Playwright (errors, reasons, a property's counterexample, transcripts) are
// redacted as values before anything is serialised; titles, paths and names are never touched.
// Run directly (not by `run`, which verifies once after both passes), it verifies <outputDir> at
// the end (redaction/verify-reports.ts).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { loadCatalogue, repoRoot } from '../../core/catalogue/catalogue.ts';
import { PassGate } from '../../core/run/pass-gate.ts';
import { inTimeTravelPass } from '../../core/run/time-travel-pass.ts';
import { readWorkerProfile } from '../../core/profile/worker-profile.ts';
import { declaredShapings } from '../../core/profile/token-parameters.ts';
import type { TargetProfile } from '../../core/profile/profile.schema.ts';
import { secretsFromEnv, type Redactor } from '../../core/redaction/redact.ts';
import { visible } from '../../core/untrusted/neutralise.ts';
import { knownSecretsRedactor } from '../../core/run/run-contract.ts';
import { readRunManifest, type RunManifest } from '../../core/run/run-manifest.ts';
import { verdictAnnotations, type AssumedChoice } from '../../core/run/check-annotations.ts';
import { ClientLocks, profileProblem } from '../../core/run/client-locks.ts';
import { ownTextOf, verifyReports } from '../../core/redaction/verify-reports.ts';
import { cutAtWord } from '../../core/redaction/cut.ts';
import { renderSummary } from './terminal-summary.ts';
import { writeReportFiles } from './write-report-files.ts';
import { withCurrentCatalogue } from './catalogue-scoring.ts';
import { renderJunit, type JunitCase, type JunitSuite } from './junit-report.ts';
import {
  buildReport,
  checkVerdict,
  exitCodeFor,
  parseBroke,
  reportedInterpretations,
  type CheckOutcome,
  type CheckStatus,
} from './verdict.ts';
import {
  pendingObligationSchema,
  propertyRunSchema,
  settlementSchema,
  type ConformanceReport,
  type PendingObligation,
  type PropertyRun,
  type Settlement,
} from './report.schema.ts';
import { regionParitySchema, type RegionParity } from '../parity/region-parity.schema.ts';

/** A check that is BLOCKED as a whole (for JUnit): blocked, not passed, and none of its own requirements is the blocker. */
export function isBlockedCheck(o: CheckOutcome): boolean {
  if (!o.blocked || o.status === 'passed' || o.notApplicableReason !== undefined || (o.broke && o.broke.length > 0))
    return false;
  return !(o.blocked.by ?? []).some((id) => o.requirementIds.includes(id));
}

/**
 * The message of a check that JUnit shows as skipped though Playwright did not fail-or-skip it
 * that way: BLOCKED (with its blocker), PENDING (its earliest due time and what it checks), or not
 * verified for an obligation reason (a VOID settlement, an unreadable annotation). Undefined: the
 * check reads as Playwright's status says.
 */
export function junitSkipMessage(o: CheckOutcome): string | undefined {
  if (o.unfinished !== undefined) return `UNCHECKED: ${o.unfinished}`;
  if (o.suiteError !== undefined && !isBlockedCheck(o) && !(o.broke && o.broke.length > 0))
    return `UNCHECKED: suite error, not the target's: ${o.suiteError}`;
  if (isBlockedCheck(o))
    return `BLOCKED: ${o.blocked!.by ? `by ${o.blocked!.by.join(', ')}: ` : ''}${o.blocked!.reason}`;
  if ((o.status !== 'passed' && o.status !== 'skipped') || o.notApplicableReason !== undefined || o.blocked)
    return undefined;
  const obligationShaped =
    (o.pending?.length ?? 0) > 0 || (o.settled?.length ?? 0) > 0 || (o.malformed?.length ?? 0) > 0;
  if (!obligationShaped) return undefined;
  const j = checkVerdict(o, 'MUST');
  if (j.verdict === 'PENDING' || j.verdict === 'SKIP') return `${j.verdict}: ${j.reason ?? ''}`;
  return undefined;
}

/** The region-parity section `run` handed over (the run manifest's `regionParity` file), if valid. */
export function regionParityOf(file: string | undefined): RegionParity | undefined {
  if (!file || !existsSync(file)) return undefined;
  try {
    const parsed = regionParitySchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** What checks.json holds: the raw outcomes and what a merge of shards needs to rebuild the report. */
export interface ChecksFile {
  startedAt: string;
  durationMs: number;
  /** I/N when this was one shard of a run. */
  shard?: string;
  /** The selection beyond the shard (--grep, --spec) left requirements out: they read SKIP, not UNCHECKED. */
  filtered?: boolean;
  checks: CheckOutcome[];
}

/** The fixture's attachment (fixtures/core.fixture.ts) and where the reporter keeps a copy of each. */
export const transcriptAttachment = 'http-transcript.txt';
export const transcriptsDir = 'transcripts';

/** A stable, readable file name per check: project, a slug of the title, a short hash of it. */
export function transcriptFileName(project: string, title: string): string {
  const slug = title
    .replace(/^specs\//, '')
    .replace(/\.spec\.ts/, '')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 80);
  return `${project}--${slug}-${createHash('sha256').update(`${project}|${title}`).digest('hex').slice(0, 8)}.txt`;
}

export interface ConformanceReporterOptions {
  outputDir?: string;
}

export function suiteVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

/**
 * One line for a failed check: the first line of the error and, when that line is an
 * assertion's custom message (`expect(x, 'message')`: Playwright writes it, a blank line, then the
 * matcher's text), the matcher's own finding after it — the problem list of the suite's matchers,
 * the Expected/Received lines of Playwright's. The custom message comes first.
 */
export function errorSummary(message: string): string {
  // eslint-disable-next-line no-control-regex
  const lines = message.replace(/\u001b\[[0-9;]*m/g, '').split('\n');
  const first = lines.findIndex((l) => l.trim() !== '');
  if (first < 0) return '';
  const head = lines[first]!.trim();
  // A custom message is one line followed by a blank line and the matcher's text.
  if (lines[first + 1]?.trim() !== '') return head;
  const rest = lines.slice(first + 2).map((l) => l.trim());
  const matcherFirst = rest.findIndex((l) => l !== '');
  if (matcherFirst < 0) return head;
  let finding = rest[matcherFirst]!;
  if (/^expect\(/.test(finding)) {
    // Playwright's matcher hint: what follows (Expected …, Received …) says more.
    const details = rest
      .slice(matcherFirst + 1)
      .filter((l) => /^(Expected|Received)\b/.test(l))
      .slice(0, 2);
    if (details.length > 0) finding = details.join('; ');
  }
  return finding.startsWith(head) ? finding : `${head} — ${finding}`;
}

/** The `property` annotation of a property check (fixtures/support/properties/property-runner.ts), if valid. */
export function propertyRun(
  annotations: { type: string; description?: string }[],
  redactor: Redactor,
): PropertyRun | undefined {
  const a = annotations.filter((x) => x.type === 'property' && x.description).at(-1);
  if (!a) return undefined;
  try {
    // Parsed first, then its counterexample redacted as a value: never a substitution inside JSON text.
    const parsed = propertyRunSchema.safeParse(JSON.parse(a.description!));
    if (!parsed.success) return undefined;
    const { counterexample } = parsed.data;
    return counterexample === undefined
      ? parsed.data
      : { ...parsed.data, counterexample: redactor.redact(counterexample) };
  } catch {
    return undefined;
  }
}

/**
 * Exceptions of the suite itself, never an answer of the target's: a client refusing its own
 * arguments (undici's InvalidArgumentError, UND_ERR_INVALID_ARG, also when the sender wrapped it), a
 * parse error of the suite's code, a stack overflow or a string too long for the runtime.
 */
const suiteExceptions =
  /^(?:(?:InvalidArgumentError|RangeError|SyntaxError|ReferenceError)\b|[\s\S]*\b(?:UND_ERR_INVALID_ARG|InvalidArgumentError)\b)/;

/** The first error of a failed check when it is an exception of the suite itself (its first line), else undefined. */
export function suiteErrorOf(message: string | undefined): string | undefined {
  const first = (message === undefined ? undefined : stripAnsi(message))
    ?.split('\n')
    .find((l) => l.trim() !== '')
    ?.trim();
  return first !== undefined && suiteExceptions.test(first) ? first : undefined;
}

/** The reason every report gives a check the run's deadline stopped. */
export function deadlineReason(minutes: number): string {
  return `not finished: the run's deadline of ${minutes} minute${minutes === 1 ? '' : 's'} passed`;
}

/**
 * A check the run's deadline stopped (Playwright's global timeout): not run, interrupted, or ended
 * as skipped without any reason of its own (Playwright's mark for a check it stopped mid-way).
 */
export function unfinishedByDeadline(o: CheckOutcome): boolean {
  if (o.status === 'notRun' || o.status === 'interrupted') return true;
  return (
    o.status === 'skipped' &&
    o.skipReason === undefined &&
    o.notApplicableReason === undefined &&
    o.blocked === undefined &&
    o.unobservedReason === undefined &&
    (o.pending?.length ?? 0) === 0 &&
    (o.settled?.length ?? 0) === 0
  );
}

/** A check's raw outcome: its requirement IDs and Playwright's own result status (never the expected status). */
export function checkOutcome(test: TestCase, redactor: Redactor): CheckOutcome {
  const result = test.results.at(-1);
  // Playwright lists the annotations pushed during the test on the test and on its result, often as
  // the same objects: each object counts once (else every check's requests counted twice).
  const annotations = [...new Set([...test.annotations, ...(result?.annotations ?? [])])];
  const ids = [
    ...new Set(annotations.filter((a) => a.type === 'requirement' && a.description).map((a) => a.description!)),
  ];
  const skipReason = annotations.find((a) => (a.type === 'skip' || a.type === 'fixme') && a.description)?.description;
  const na = annotations.find((a) => a.type === 'not-applicable')?.description;
  let status: CheckStatus;
  if (!result) status = 'notRun';
  else status = result.status;
  const file = relative(repoRoot, test.location.file);
  const project = test.parent.project()?.name;
  const message = result?.errors[0]?.message;
  const error = message ? cutAtWord(redactor.redact(errorSummary(message)), 500) : undefined;
  const property = propertyRun(annotations, redactor);
  const requestsSent = annotations
    .filter((a) => a.type === verdictAnnotations.requests)
    .reduce((n, a) => n + (Number(a.description) || 0), 0);
  const sentAgain = annotations.filter((a) => a.type === verdictAnnotations.sentAgain).length;
  const { blocked, broke } = verdictShaping(annotations, status, error, redactor);
  const title = [file, ...test.titlePath().slice(3)].join(' › ');
  const transcribed = (result?.attachments ?? []).some((a) => a.name === transcriptAttachment);
  const { pending, settled, malformed } = obligationAnnotations(annotations, redactor);
  const assumed = status === 'failed' ? assumedAnnotations(annotations) : [];
  const failed = status === 'failed' || status === 'timedOut' || status === 'interrupted';
  const suiteError = failed ? suiteErrorOf(message) : undefined;
  // A `broke` annotation may name a requirement the check does not cite: it still FAILs (never lost).
  for (const b of broke ?? []) if (!ids.includes(b.id)) ids.push(b.id);
  const notRunReason =
    project === 'time-travel'
      ? 'not run: the time-travel project runs after the conformance project, and a check there failed'
      : 'not run (interrupted, or a dependency failed)';
  return {
    title,
    file,
    ...(transcribed ? { transcripts: [`${transcriptsDir}/${transcriptFileName(project ?? 'default', title)}`] } : {}),
    ...(project ? { project } : {}),
    requirementIds: ids,
    status,
    durationMs: result?.duration ?? 0,
    ...(result?.startTime !== undefined
      ? { startedAt: new Date(result.startTime).toISOString(), workerIndex: result.workerIndex }
      : {}),
    ...(status === 'notRun'
      ? { skipReason: notRunReason }
      : skipReason
        ? { skipReason: redactor.redact(skipReason) }
        : {}),
    ...(na !== undefined ? { notApplicableReason: redactor.redact(na) } : {}),
    ...(error ? { error } : {}),
    ...(property ? { property } : {}),
    ...(result ? { requests: requestsSent } : {}),
    ...(sentAgain > 0 ? { sentAgain } : {}),
    ...(blocked ? { blocked } : {}),
    ...(broke ? { broke } : {}),
    ...(pending.length > 0 ? { pending } : {}),
    ...(settled.length > 0 ? { settled } : {}),
    ...(malformed.length > 0 ? { malformed } : {}),
    ...(assumed.length > 0 ? { assumed } : {}),
    ...(suiteError !== undefined ? { suiteError: cutAtWord(redactor.redact(suiteError), 500) } : {}),
  };
}

const assumedChoiceSchema = z.object({
  choice: z.string().min(1),
  declare: z.string().min(1),
  requirements: z.array(z.string()).optional(),
});

/**
 * A failed check's `assumed` annotations (fixtures/choice.ts judgedOn): the choices the failing
 * assertion relied on that the profile did not declare. One that does not parse is dropped: the
 * failure then stays a FAIL, never a WARN it did not earn.
 */
export function assumedAnnotations(annotations: { type: string; description?: string }[]): AssumedChoice[] {
  const out = new Map<string, AssumedChoice>();
  for (const a of annotations.filter((x) => x.type === verdictAnnotations.assumed && x.description)) {
    try {
      const parsed = assumedChoiceSchema.safeParse(JSON.parse(a.description!));
      if (parsed.success) out.set(a.description!, parsed.data);
    } catch {
      // not JSON: dropped (above)
    }
  }
  return [...out.values()];
}

/**
 * A check's `pending` and `settled` annotations (JSON in the description, validated with zod). One
 * that does not parse is kept as `malformed` — shown as a suite defect and never taken as verified —
 * not dropped. Free text (what, reason) is redacted as a value after parsing.
 */
export function obligationAnnotations(
  annotations: { type: string; description?: string }[],
  redactor: Redactor,
): { pending: PendingObligation[]; settled: Settlement[]; malformed: { type: string; problem: string }[] } {
  const pending: PendingObligation[] = [];
  const settled: Settlement[] = [];
  const malformed: { type: string; problem: string }[] = [];
  const read = <T>(
    type: string,
    schema: {
      safeParse: (
        v: unknown,
      ) =>
        { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
    },
    into: T[],
  ) => {
    // Playwright lists an annotation pushed during the test on the test and on its result: once each.
    const distinct = [
      ...new Map(annotations.filter((x) => x.type === type).map((x) => [x.description ?? '', x])).values(),
    ];
    for (const a of distinct) {
      let raw: unknown;
      try {
        raw = JSON.parse(a.description ?? '');
      } catch (error) {
        malformed.push({ type, problem: `not JSON: ${redactor.redact((error as Error).message).slice(0, 120)}` });
        continue;
      }
      const parsed = schema.safeParse(raw);
      if (parsed.success) into.push(redactor.redactValue(parsed.data));
      else
        malformed.push({
          type,
          problem: parsed.error.issues
            .slice(0, 3)
            .map((i) => `${i.path.length > 0 ? i.path.map(String).join('.') : '(root)'}: ${i.message}`)
            .join('; '),
        });
    }
  };
  // A field this reporter does not know yet is dropped, not an error: the recorder may say more later.
  read(verdictAnnotations.pending, z.object(pendingObligationSchema.shape), pending);
  read(verdictAnnotations.settled, z.object(settlementSchema.shape), settled);
  // The same obligation announced twice (in other words) counts once.
  const unique = <T>(list: T[]) => [...new Map(list.map((x) => [JSON.stringify(x), x])).values()];
  return { pending: unique(pending), settled: unique(settled), malformed };
}

/**
 * What shapes a check's verdict beyond its status (verdict.ts checkVerdict), read from annotations
 * only: markBlocked's (BLOCKED), the `precondition` annotation of a check that failed with a
 * precondition's error (BLOCKED), the `broke` annotations of a failed check. `error` (the check's
 * redacted one-line error) is only the reason's text of a failed `setup:` precondition.
 */
export function verdictShaping(
  annotations: { type: string; description?: string }[],
  status: CheckStatus,
  error: string | undefined,
  redactor: Redactor,
): Pick<CheckOutcome, 'blocked' | 'broke'> {
  const by = [
    ...new Set(
      annotations
        .filter((a) => a.type === verdictAnnotations.blockedBy && a.description)
        .map((a) => a.description!.trim()),
    ),
  ];
  const profile = annotations.find((a) => a.type === verdictAnnotations.blockedByProfile && a.description)?.description;
  const evidence = annotations.some((a) => a.type === verdictAnnotations.blockedEvidence);
  const failed = status === 'failed' || status === 'timedOut' || status === 'interrupted';
  const precondition = failed
    ? annotations.find((a) => a.type === verdictAnnotations.precondition)?.description
    : undefined;
  // markBlocked ends a check as skipped. When code between it and Playwright caught its skip (a
  // property runner retrying, shrinking), the check fails instead: the mark counts only if the
  // failure is that skip (the `precondition` annotation says `blocked`), so a real failure found
  // after a blocked attempt still FAILs.
  const marked = annotations.find(
    (a) =>
      a.type === verdictAnnotations.blocked && a.description !== undefined && (!failed || precondition === 'blocked'),
  );
  const setup =
    precondition === 'setup'
      ? (error ?? 'setup: a precondition was not met').replace(/^\s*(?:Error:\s*)?/, '')
      : undefined;
  const reason = marked ? cutAtWord(redactor.redact(marked.description!), 500) : setup;
  const broke = failed
    ? annotations
        .filter((a) => a.type === verdictAnnotations.broke && a.description)
        .map((a) => parseBroke(redactor.redact(a.description!)))
        .filter((b) => b !== undefined)
        .map((b) => ({ id: b.id, message: cutAtWord(b.message, 500) }))
    : [];
  return {
    ...(reason !== undefined && (marked !== undefined ? status !== 'passed' : true)
      ? {
          blocked: {
            reason,
            ...(by.length > 0 ? { by } : {}),
            ...(marked !== undefined && profile !== undefined ? { profile: redactor.redact(profile) } : {}),
            ...(marked && by.length > 0 && evidence ? { evidence: true } : {}),
          },
        }
      : {}),
    ...(broke.length > 0 ? { broke } : {}),
  };
}

// eslint-disable-next-line no-control-regex
const stripAnsi = (s: string): string => s.replace(/\u001b\[[0-9;]*m/g, '');

/** One check as junit.xml shows it: its annotations, and its verdict rather than Playwright's status. */
export function junitCase(test: TestCase, o: CheckOutcome, redactor: Redactor): JunitCase {
  const result = test.results.at(-1);
  const properties = test.annotations.map((a) => ({ name: a.type, value: redactor.redact(a.description ?? '') }));
  const skip = junitSkipMessage(o);
  const failed = o.status === 'failed' || o.status === 'timedOut' || o.status === 'interrupted';
  let outcome: JunitCase['outcome'];
  if (skip !== undefined) outcome = { kind: 'skipped', message: skip };
  else if (failed) {
    const text =
      (result?.errors ?? [])
        .map((e) => redactor.redact(stripAnsi(e.stack ?? e.message ?? e.value ?? '')))
        .join('\n\n') ||
      (o.error ?? o.status);
    outcome = {
      kind: 'failure',
      message: `${basename(test.location.file)}:${test.location.line}:${test.location.column} ${test.title}`,
      text,
    };
  } else if (o.status === 'skipped' || o.status === 'notRun') {
    const message =
      o.notApplicableReason !== undefined
        ? `NOT_APPLICABLE: ${o.notApplicableReason}`
        : o.skipReason !== undefined
          ? `SKIP: ${o.skipReason}`
          : undefined;
    outcome = { kind: 'skipped', ...(message !== undefined ? { message } : {}) };
  } else outcome = { kind: 'passed' };
  const output = (chunks: (string | Buffer)[] | undefined) =>
    redactor.redact(stripAnsi((chunks ?? []).map((c) => c.toString()).join('')));
  const stdout = output(result?.stdout);
  const stderr = output(result?.stderr);
  return {
    name: test.titlePath().slice(3).join(' › '),
    classname: fileOf(test),
    timeSeconds: test.results.reduce((t, r) => t + r.duration, 0) / 1000,
    properties,
    outcome,
    ...(stdout ? { stdout } : {}),
    ...(stderr ? { stderr } : {}),
  };
}

/** The spec file suite's title of a check (its path below the test directory). */
function fileOf(test: TestCase): string {
  let file: Suite | undefined = test.parent;
  while (file && file.type !== 'file') file = file.parent;
  return file?.title ?? '';
}

/** The checks as junit.xml groups them: per project, per spec file, in Playwright's order. */
export function junitSuites(
  root: Suite | undefined,
  outcomeOf: Map<TestCase, CheckOutcome>,
  redactor: Redactor,
): JunitSuite[] {
  const suites: JunitSuite[] = [];
  for (const project of root?.suites ?? []) {
    for (const file of project.suites) {
      const cases = file.allTests().flatMap((t) => {
        const o = outcomeOf.get(t);
        return o ? [junitCase(t, o, redactor)] : [];
      });
      if (cases.length > 0) suites.push({ name: file.title, project: project.title, cases });
    }
  }
  return suites;
}

export default class ConformanceReporter implements Reporter {
  private readonly outputDir: string;
  /**
   * The settings of the run (core/run/run-manifest.ts), read again in onBegin: a direct Playwright
   * run's global setup names its manifest after the reporters were constructed.
   */
  private run: RunManifest = readRunManifest();
  private rootSuite: Suite | undefined;
  private config: FullConfig | undefined;
  private startedAt = new Date();
  report: ConformanceReport | undefined;
  private gate: PassGate | undefined;
  private previousPass: { startedAt: Date; durationMs: number } | undefined;

  constructor(options: ConformanceReporterOptions = {}) {
    this.outputDir = resolve(options.outputDir ?? 'reports');
  }

  // The terminal is this reporter's: it prints the summary (not in a quiet first pass). Saying so
  // also keeps Playwright from adding its own line/dot reporter when `run --reporter compact` chose
  // no terminal reporter for a log (Playwright adds one when no reporter prints to stdio).
  printsToStdio(): boolean {
    return true;
  }

  private quiet(): boolean {
    return this.run.quiet;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.config = config;
    this.rootSuite = suite;
    this.run = readRunManifest();
    this.startedAt = new Date();
    const conformanceIds = suite
      .allTests()
      .filter((t) => !inTimeTravelPass(t.parent.project()?.name))
      .map((t) => t.id);
    // Arm the pass gate the run manifest names (pass-gate.ts); without one nothing waits.
    this.gate = new PassGate(this.run.passGate, conformanceIds);
    // A first (or only) pass starts the transcripts afresh; a second pass adds to them.
    if (!this.run.mergeChecks) rmSync(join(this.outputDir, transcriptsDir), { recursive: true, force: true });
  }

  /** Copies every check's (already redacted) HTTP transcript attachment to <outputDir>/transcripts/. */
  private writeTranscripts(tests: TestCase[], redactor: Redactor): void {
    for (const test of tests) {
      const result = test.results.at(-1);
      const attachments = (result?.attachments ?? []).filter((a) => a.name === transcriptAttachment);
      if (attachments.length === 0) continue;
      const body = attachments
        .map((a) => a.body?.toString('utf8') ?? (a.path && existsSync(a.path) ? readFileSync(a.path, 'utf8') : ''))
        .join('\n');
      const title = [relative(repoRoot, test.location.file), ...test.titlePath().slice(3)].join(' › ');
      const project = test.parent.project()?.name ?? 'default';
      const ids = [
        ...new Set(
          [...test.annotations, ...result!.annotations]
            .filter((a) => a.type === 'requirement' && a.description)
            .map((a) => a.description!),
        ),
      ];
      const dir = join(this.outputDir, transcriptsDir);
      mkdirSync(dir, { recursive: true });
      // The header is the suite's own text; the body (redacted in the worker) once more with every token
      // of the run, and the target's unseen characters made visible: a transcript is read in a terminal.
      writeFileSync(
        join(dir, transcriptFileName(project, title)),
        `# check: ${title}\n# project: ${project}\n# requirements: ${ids.join(' ')}\n# status: ${result!.status}\n\n${visible(redactor.redact(body))}`,
      );
    }
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    // Ended for good: no retry follows.
    if (result.status === 'passed' || result.status === 'skipped' || result.retry >= test.retries)
      this.gate?.ended(test.id);
  }

  private mergePrevious(outcomes: CheckOutcome[]): CheckOutcome[] {
    const file = this.run.mergeChecks;
    if (!file || !existsSync(file)) return outcomes;
    const pass = JSON.parse(readFileSync(file, 'utf8')) as {
      checks: CheckOutcome[];
      startedAt?: string;
      durationMs?: number;
    };
    const previous = pass.checks;
    // The report of a second pass covers both: from the first pass's start, for both durations.
    if (pass.startedAt !== undefined && !Number.isNaN(Date.parse(pass.startedAt)))
      this.previousPass = { startedAt: new Date(pass.startedAt), durationMs: pass.durationMs ?? 0 };
    const key = (o: CheckOutcome) => `${o.project ?? ''}|${o.title}`;
    const merged = new Map(previous.map((o) => [key(o), o]));
    for (const o of outcomes) {
      const old = merged.get(key(o));
      if (!old || o.status !== 'notRun' || old.status === 'notRun') merged.set(key(o), o);
    }
    return [...merged.values()];
  }

  onEnd(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    this.gate?.close();
    const redactor = knownSecretsRedactor();
    const tests = this.rootSuite?.allTests() ?? [];
    const deadline = this.run.deadlineMinutes;
    // The run's deadline stopped Playwright: what it stopped is unverified, never the target's FAIL or a SKIP.
    const current = tests
      .map((t) => checkOutcome(t, redactor))
      .map((o) =>
        result.status === 'timedout' && unfinishedByDeadline(o)
          ? { ...o, unfinished: deadlineReason(deadline ?? (this.config?.globalTimeout ?? 0) / 60_000) }
          : o,
      );
    // A suite error is the suite's defect: its stack goes to the log, the report keeps its first line.
    for (const [i, t] of tests.entries()) {
      if (current[i]!.suiteError === undefined) continue;
      const e = t.results.at(-1)?.errors[0];
      console.error(
        `conformance reporter: suite error (UNCHECKED, not the target's) in ${current[i]!.title}:\n${redactor.redact(e?.stack ?? e?.message ?? '')}`,
      );
    }
    const outcomes = this.mergePrevious(current);
    let target: ConformanceReport['target'] = { name: 'unknown', local: false, interpretations: {} };
    try {
      const p = readWorkerProfile(this.run.profile);
      target = {
        name: p.name,
        local: p.local,
        ...(p.environment ? { environment: p.environment } : {}),
        ...(p.authUrlUs ? { authUrlUs: p.authUrlUs } : {}),
        ...(p.authUrlEu ? { authUrlEu: p.authUrlEu } : {}),
        ...(p.baseUrl ? { baseUrl: p.baseUrl } : {}),
        ...(this.run.profileSha256 ? { profileSha256: this.run.profileSha256 } : {}),
        interpretations: reportedInterpretations(p.interpretations),
        ...requestShapingOf(p),
      };
    } catch {
      // run outside the `run` command without a profile: the report still says what ran
    }
    const { level, grep } = this.run;
    const shard =
      this.run.shard ?? (this.config?.shard ? `${this.config.shard.current}/${this.config.shard.total}` : undefined);
    const filteredBeyondShard = this.run.filtered || grep !== undefined;
    const regionParity = regionParityOf(this.run.regionParity);
    const profileProblems = new ClientLocks(this.run.clientLocks)
      .all()
      .filter((l) => l.kind === 'profile')
      .map(profileProblem);
    const report = withCurrentCatalogue(
      buildReport(loadCatalogue(), outcomes, {
        level,
        filtered: filteredBeyondShard || shard !== undefined,
        ...(regionParity ? { regionParity } : {}),
        ...(profileProblems.length > 0 ? { profileProblems } : {}),
        strict: this.run.strict,
        ...(grep ? { grep } : {}),
        ...(shard ? { shard } : {}),
        suiteVersion: suiteVersion(),
        startedAt: this.previousPass?.startedAt ?? this.startedAt,
        durationMs: result.duration + (this.previousPass?.durationMs ?? 0),
        target,
      }),
    );
    this.report = report;
    // An unreadable obligation annotation is the suite's defect: said on stderr too, never dropped.
    for (const m of report.malformedAnnotations ?? [])
      console.error(
        `conformance reporter: error: ${m.check}: unreadable '${m.type}' annotation (${m.problem}); the check is not taken as verified`,
      );
    mkdirSync(this.outputDir, { recursive: true });
    // The outcomes were redacted field by field (checkOutcome): the files are written as they are.
    const write = (name: string, text: string) => writeFileSync(join(this.outputDir, name), text);
    writeReportFiles(this.outputDir, report);
    const outcomeOf = new Map(tests.map((t, i) => [t, current[i]!]));
    write('junit.xml', renderJunit(junitSuites(this.rootSuite, outcomeOf, redactor), this.startedAt, result.duration));
    const checksFile: ChecksFile = {
      startedAt: report.startedAt,
      durationMs: report.durationMs,
      ...(shard ? { shard } : {}),
      filtered: filteredBeyondShard,
      checks: outcomes,
    };
    write('checks.json', `${JSON.stringify(checksFile, null, 2)}\n`);
    this.writeTranscripts(tests, redactor);
    if (!this.quiet())
      console.log(renderSummary(report, process.stdout.isTTY, relative(process.cwd(), this.outputDir) || '.'));
    // Playwright's own status says whether tests failed; the conformance verdict decides the exit code.
    const code = exitCodeFor(report.verdict, report.selection.strict);
    return Promise.resolve({ status: code === 0 && this.verifyDirectRun(redactor) ? 'passed' : 'failed' });
  }

  /**
   * A direct Playwright run (not `run`): verify <outputDir> once, after the reporters listed before
   * this one (JUnit, allure) wrote their files; false when a secret remains in one.
   */
  private verifyDirectRun(redactor: Redactor): boolean {
    if (this.run.verifiedByRun) return true;
    // The profile's secrets fail the run; the tokens the target issued (the rest the redactor knows) are its own text.
    const v = verifyReports(this.outputDir, secretsFromEnv(process.env), {
      ownText: ownTextOf(this.outputDir),
      targetTokens: redactor.secretValues(),
      tokenShapesAreTargetText: true,
    });
    for (const f of v.repaired)
      console.error(
        `conformance reporter: note: ${f.file}:${f.line}: ${f.what} was redacted there (rewritten structurally)`,
      );
    for (const f of v.targetText)
      console.error(
        `conformance reporter: note: ${f.file}:${f.line}: ${f.what} remains in this file: the target's own value, not a secret of the profile`,
      );
    for (const f of v.remaining)
      console.error(
        `conformance reporter: ${f.file}:${f.line}: ${f.what} remains in this file; do not share these reports`,
      );
    return v.remaining.length === 0;
  }
}

/** The profile's declared request shaping as the report lists it (absent when none). */
function requestShapingOf(p: TargetProfile): Pick<ConformanceReport['target'], 'requestShaping'> {
  const shapings = declaredShapings(p.credentials.clients);
  return shapings.length > 0 ? { requestShaping: shapings } : {};
}
