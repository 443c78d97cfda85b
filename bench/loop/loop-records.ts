// The bookkeeping of `npm run bench -- --loop N`: what one run of the suite left (its exit, its
// reports read back, its processes), what is wrong with it, the loop's summary and its section of
// bench/LOOP-RESULTS.md. Pure functions of the records: suite-loop.ts runs the suite and fills them.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pinDifferencesOf, type PinDifferences } from '../harness/foreign-target.ts';

/** The files every run must write, and how each is seen to be whole. */
export const reportFiles = ['conformance.json', 'checks.json', 'junit.xml', 'traceability.html'] as const;

export interface ReportsRead {
  /** Problems with the report files, one line each (missing, empty, does not parse); empty when all are whole. */
  problems: string[];
  verdict?: string;
  /** "93 PASS, 11 FAIL, …" from conformance.json's summary. */
  counts?: string;
  requests?: number;
  sentAgain?: number;
  pinned?: PinDifferences;
}

const wholeXml = (text: string): boolean =>
  /^\s*(<\?xml[^>]*\?>\s*)?<testsuites[\s>]/.test(text) && /<\/testsuites>\s*$/.test(text);
const wholeHtml = (text: string): boolean => /^\s*<!doctype html>/i.test(text) && /<\/html>\s*$/i.test(text);

/** Reads a run's reports directory back: every file present and whole, the verdict, the requests, the pins. */
export function readRunReports(reportsDir: string, pinned: ReadonlyMap<string, string>): ReportsRead {
  const problems: string[] = [];
  const read: ReportsRead = { problems };
  for (const name of reportFiles) {
    const file = join(reportsDir, name);
    if (!existsSync(file)) {
      problems.push(`${name} missing`);
      continue;
    }
    if (statSync(file).size === 0) {
      problems.push(`${name} empty`);
      continue;
    }
    const text = readFileSync(file, 'utf8');
    if (name === 'junit.xml') {
      if (!wholeXml(text)) problems.push('junit.xml is not a whole <testsuites> document');
      continue;
    }
    if (name === 'traceability.html') {
      if (!wholeHtml(text)) problems.push('traceability.html is not a whole HTML page');
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      problems.push(`${name} does not parse: ${(error as Error).message.slice(0, 120)}`);
      continue;
    }
    if (name === 'checks.json') {
      if (!Array.isArray((parsed as { checks?: unknown }).checks)) problems.push('checks.json has no checks list');
      continue;
    }
    const report = parsed as {
      verdict?: unknown;
      summary?: Record<string, number>;
      requirements?: { id: string; verdict: string }[];
      checks?: { requests?: number; sentAgain?: number };
    };
    if (typeof report.verdict !== 'string' || report.summary === undefined || !Array.isArray(report.requirements)) {
      problems.push('conformance.json has no verdict, summary or requirements');
      continue;
    }
    read.verdict = report.verdict;
    read.counts = Object.entries(report.summary)
      .filter(([verdict, n]) => verdict !== 'total' && n > 0)
      .map(([verdict, n]) => `${n} ${verdict}`)
      .join(', ');
    if (report.checks?.requests !== undefined) read.requests = report.checks.requests;
    read.sentAgain = report.checks?.sentAgain ?? 0;
    read.pinned = pinDifferencesOf(pinned, report.requirements);
  }
  return read;
}

/** `run`'s exit code for a verdict (no --strict): 1 on FAIL, 0 on PASS or WARN. */
export function expectedExitCode(verdict: string): number {
  return verdict === 'FAIL' ? 1 : 0;
}

export interface LoopRun {
  /** 1-based position in the loop. */
  index: number;
  seconds: number;
  /** CPU seconds (user + system) of the run's whole process tree. */
  cpuSeconds?: number;
  exitCode: number | null;
  signal: string | null;
  /** The loop killed it: it had not ended within the bound. */
  hung: boolean;
  reports: ReportsRead;
  /** Peak of the run's processes' resident memory summed, sampled once a second. */
  peakRssMiB: number;
  /** Processes of the run still alive after it ended ("pid command"). */
  leftBehind: string[];
  /** One-minute load average when the run ended. */
  load: string;
  /** Where its log (and for a hang, its processes' stacks) are kept. */
  log: string;
  evidence?: string;
}

/** Everything wrong with one run; `usualRequests` is the loop's most frequent request count. */
export function runProblems(run: LoopRun, usualRequests: number | undefined): string[] {
  const problems: string[] = [];
  if (run.hung) problems.push(`did not end by itself: killed after ${run.seconds.toFixed(0)} s`);
  else if (run.exitCode === null) problems.push(`ended by signal ${run.signal}`);
  problems.push(...run.reports.problems);
  const verdict = run.reports.verdict;
  if (!run.hung && run.exitCode !== null && verdict !== undefined && run.exitCode !== expectedExitCode(verdict))
    problems.push(`exit ${run.exitCode}, but verdict ${verdict} means exit ${expectedExitCode(verdict)}`);
  const pinned = run.reports.pinned;
  if (pinned && !pinned.same)
    problems.push(
      `FAIL/WARN differ from the pins: ${[...pinned.unexpected.map((u) => `+${u}`), ...pinned.missing.map((m) => `-${m}`)].join(', ')}`,
    );
  if (usualRequests !== undefined && run.reports.requests !== undefined && run.reports.requests !== usualRequests)
    problems.push(`${run.reports.requests} requests, most runs ${usualRequests}`);
  if (run.leftBehind.length > 0) problems.push(`left behind: ${run.leftBehind.join('; ')}`);
  return problems;
}

/** The most frequent value (the first seen among equals); undefined for none. */
export function mostFrequent(values: readonly number[]): number | undefined {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: number | undefined;
  for (const [v, n] of counts) if (best === undefined || n > counts.get(best)!) best = v;
  return best;
}

function median(sorted: readonly number[]): number {
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export interface LoopSummary {
  planned: number;
  runs: number;
  /** Ended by themselves (not killed as a hang, not by a signal). */
  ended: number;
  /** Wrote every report file, whole. */
  withReport: number;
  hangs: number;
  /** Runs with no problem at all. */
  clean: number;
  seconds?: { min: number; median: number; max: number };
  cpuSeconds?: { min: number; median: number; max: number };
  peakRssMiB?: number;
  sentAgain: number;
  /** The request counts seen (each distinct value once, in order of first sight). */
  requestCounts: number[];
  usualRequests?: number;
  problems: { index: number; problems: string[] }[];
}

const spread = (values: number[]): { min: number; median: number; max: number } | undefined => {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return { min: sorted[0]!, median: median(sorted), max: sorted.at(-1)! };
};

export function summarizeLoop(runs: readonly LoopRun[], planned: number): LoopSummary {
  const requests = runs.flatMap((r) => (r.reports.requests === undefined ? [] : [r.reports.requests]));
  const usualRequests = mostFrequent(requests);
  const problems = runs
    .map((r) => ({ index: r.index, problems: runProblems(r, usualRequests) }))
    .filter((p) => p.problems.length > 0);
  const ended = runs.filter((r) => !r.hung && r.exitCode !== null);
  const cpu = ended.flatMap((r) => (r.cpuSeconds === undefined ? [] : [r.cpuSeconds]));
  const secondsSpread = spread(ended.map((r) => r.seconds));
  const cpuSpread = spread(cpu);
  return {
    planned,
    runs: runs.length,
    ended: ended.length,
    withReport: runs.filter((r) => r.reports.problems.length === 0).length,
    hangs: runs.filter((r) => r.hung).length,
    clean: runs.length - problems.length,
    ...(secondsSpread && { seconds: secondsSpread }),
    ...(cpuSpread && { cpuSeconds: cpuSpread }),
    ...(runs.length > 0 && { peakRssMiB: Math.max(...runs.map((r) => r.peakRssMiB)) }),
    sentAgain: runs.reduce((n, r) => n + (r.reports.sentAgain ?? 0), 0),
    requestCounts: [...new Set(requests)],
    ...(usualRequests !== undefined && { usualRequests }),
    problems,
  };
}

const fixed = (n: number): string => n.toFixed(1);
const triple = (t: { min: number; median: number; max: number }, unit: string): string =>
  `${fixed(t.min)} / ${fixed(t.median)} / ${fixed(t.max)} ${unit}`;

/** The summary as lines for the terminal and the results file. */
export function summaryLines(s: LoopSummary): string[] {
  return [
    `runs ended by themselves: ${s.ended} of ${s.planned}${s.runs < s.planned ? ` (${s.runs} ran)` : ''}`,
    `with a whole report (${reportFiles.join(', ')}): ${s.withReport} of ${s.planned}`,
    `hangs (killed by the loop): ${s.hangs}`,
    `runs without any problem: ${s.clean} of ${s.planned}`,
    `wall time min / median / max: ${s.seconds ? triple(s.seconds, 's') : 'none ended'}`,
    `CPU (user + system, the run's tree) min / median / max: ${s.cpuSeconds ? triple(s.cpuSeconds, 's') : 'n/a'}`,
    `peak RSS of a run (its processes' RSS summed, sampled each second): ${s.peakRssMiB === undefined ? 'n/a' : `${fixed(s.peakRssMiB)} MiB`}`,
    `requests per run: ${s.requestCounts.length === 0 ? 'none read' : s.requestCounts.length === 1 ? `${s.requestCounts[0]} in every run` : `varied: ${s.requestCounts.join(', ')} (most runs ${s.usualRequests})`}`,
    `requests sent again, all runs: ${s.sentAgain}`,
  ];
}

/** Report text from a run (counts, a target's error) made safe for one Markdown table cell. */
export const cell = (text: string): string =>
  text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .replaceAll('|', '\\|')
    .slice(0, 600);

export interface LoopHeader {
  target: string;
  command: string;
  startedAt: Date;
  finishedAt: Date;
  loadStart: string;
  loadEnd: string;
  machine: string;
  commit: string;
  hangAfterS: number;
  deadlineMinutes: number;
}

/** The loop's section of LOOP-RESULTS.md. */
export function loopSection(h: LoopHeader, runs: readonly LoopRun[], s: LoopSummary): string {
  const rows = runs.map((r) => {
    const problems = runProblems(r, s.usualRequests);
    return `| ${r.index} | ${fixed(r.seconds)} | ${r.cpuSeconds === undefined ? '' : fixed(r.cpuSeconds)} | ${r.hung ? 'killed' : (r.exitCode ?? r.signal)} | ${cell(r.reports.verdict ? `${r.reports.verdict}: ${r.reports.counts}` : 'no verdict')} | ${r.reports.sentAgain ?? ''} | ${r.reports.requests ?? ''} | ${fixed(r.peakRssMiB)} | ${r.load} | ${problems.length === 0 ? 'ok' : cell(problems.join('; '))} |`;
  });
  return [
    `## ${h.target}: ${s.planned} suite runs in a row`,
    '',
    `\`${h.command}\`, commit ${h.commit}, ${h.startedAt.toISOString()} – ${h.finishedAt.toISOString()}; ${h.machine}; load average ${h.loadStart} at the start, ${h.loadEnd} at the end.`,
    `The target was started once; each run is \`token-conformance run --target <its profile> --deadline ${h.deadlineMinutes} --reports <a directory of its own>\`, one after the other. A run still going ${h.hangAfterS} s after it started is a hang: its processes' stacks are kept and it is killed, never retried.`,
    '',
    ...summaryLines(s).map((l) => `- ${l}`),
    '',
    '| run | wall s | CPU s | exit | verdict | sent again | requests | peak RSS MiB | load (1 min) | problems |',
    '|---:|---:|---:|---|---|---:|---:|---:|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/** LOOP-RESULTS.md with `target`'s section replaced (or added), the other targets' sections kept. */
export function withSection(existing: string, target: string, section: string): string {
  const intro =
    '# The suite in a loop\n\n`npm run bench -- --loop N --target NAME` (bench/README.md): N suite runs in a row against one start of an independent target, each checked for an end of its own, its reports, its pinned verdicts and processes left behind. One section per target, the latest loop of each.';
  const sections = existing.split(/^(?=## )/m).filter((s) => s.startsWith('## '));
  const kept = sections.filter((s) => !s.startsWith(`## ${target}:`));
  return `${[intro, ...[...kept, section].map((s) => s.trimEnd())].join('\n\n')}\n`;
}
