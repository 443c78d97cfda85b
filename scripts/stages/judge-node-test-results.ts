// What a node:test stage proved, file by file: the tests each file really reported against the
// tests it registers (scripts/stages/registered-tests.ts).
//
// node:test runs each file in a process of its own. When that process ends before its tests report
// (a hook or test that never settles while something calls process.exit(), a crash), the runner
// makes up one result named after the file: a pass when the process exited 0. That result is no
// test. So here:
//   - a file's made-up result never counts as a pass;
//   - every registered test a file did not report counts as a failure, with the file named;
//   - a file that registers no test, or whose process failed outside its tests, is a failure.
// A suite skipped as a whole is reported alone (not its tests): its registered tests count as skipped.
import { resolve } from 'node:path';
import type { RegisteredTests } from './registered-tests.ts';

export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

/** One finished test or suite, as scripts/stages/node-test-results.reporter.ts writes it. */
export interface TestEvent {
  outcome: 'pass' | 'fail';
  name: string;
  nesting: number;
  file?: string;
  suite: boolean;
  skip: boolean;
  todo: boolean;
  failureType?: string;
  error?: string;
}

export interface FileResult extends Counts {
  file: string;
  registered: number;
  /** Registered tests that never reported (counted in `failed`). */
  unreported: number;
  /** Why this file failed beyond its failed tests (empty when it did not). */
  problems: string[];
}

export interface StageResult {
  counts: Counts;
  /** The least number of tests the stage must report: the tests its files register. */
  minimum: number;
  /** Registered tests that never reported, over all files (counted in `counts.failed`). */
  shortfall: number;
  files: FileResult[];
}

const isFileResult = (event: TestEvent, file: string): boolean =>
  event.nesting === 0 && !event.suite && (event.name === file || resolve(event.name) === file);

function judgeFile(file: string, registered: RegisteredTests, events: TestEvent[]): FileResult {
  const result: FileResult = {
    file,
    registered: registered.tests,
    unreported: 0,
    passed: 0,
    failed: 0,
    skipped: 0,
    problems: [],
  };
  let fileLevel: TestEvent | undefined;
  let skippedBySuite = 0;
  let suiteFailures = 0;
  for (const event of events) {
    if (isFileResult(event, file)) fileLevel = event;
    else if (event.suite) {
      if (event.skip) skippedBySuite += registered.suites.find((s) => s.name === event.name)?.tests ?? 1;
      // A suite's own failure (a hook, an error in its body); failures of its tests count as tests.
      if (event.outcome === 'fail' && event.failureType !== 'subtestsFailed') suiteFailures += 1;
    } else if (event.outcome === 'fail') result.failed += 1;
    else if (event.skip || event.todo) result.skipped += 1;
    else result.passed += 1;
  }
  result.skipped += skippedBySuite;
  const reported = result.passed + result.failed + result.skipped;
  const missing = registered.tests - reported;
  if (registered.tests === 0) {
    result.problems.push('registers no node:test test');
    result.failed += 1;
  } else if (missing > 0) {
    const why =
      fileLevel?.outcome === 'pass'
        ? 'its process exited 0 before they reported (a hook or test that never settled, then an exit from inside)'
        : fileLevel
          ? `its process failed: ${fileLevel.error ?? fileLevel.failureType ?? 'no reason given'}`
          : 'nothing of it was reported';
    result.problems.push(`registers ${registered.tests} tests, reported ${reported}: ${missing} never ran — ${why}`);
    result.failed += missing;
    result.unreported = missing;
  }
  if (suiteFailures > 0 && result.failed === 0) {
    result.problems.push(`${suiteFailures} suite(s) failed outside their tests (a hook)`);
    result.failed += suiteFailures;
  }
  if (fileLevel?.outcome === 'fail' && fileLevel.failureType !== 'subtestsFailed' && result.failed === 0) {
    result.problems.push(
      `its process failed after its tests: ${fileLevel.error ?? fileLevel.failureType ?? 'no reason given'}`,
    );
    result.failed += 1;
  }
  return result;
}

/** `files` are absolute paths, each with the tests it registers. */
export function judgeNodeTestResults(events: TestEvent[], files: Map<string, RegisteredTests>): StageResult {
  const byFile = new Map<string, TestEvent[]>([...files.keys()].map((f) => [f, []]));
  const strays: TestEvent[] = [];
  for (const event of events) {
    const list = event.file === undefined ? undefined : byFile.get(resolve(event.file));
    if (list) list.push(event);
    else strays.push(event);
  }
  const results = [...files].map(([file, registered]) => judgeFile(file, registered, byFile.get(file) ?? []));
  const counts: Counts = { passed: 0, failed: 0, skipped: 0 };
  for (const r of results) {
    counts.passed += r.passed;
    counts.failed += r.failed;
    counts.skipped += r.skipped;
  }
  // A failure the runner could not place in a file still fails the stage.
  counts.failed += strays.filter((e) => e.outcome === 'fail' && !e.suite).length;
  const sum = (key: 'registered' | 'unreported'): number => results.reduce((n, r) => n + r[key], 0);
  return { counts, minimum: sum('registered'), shortfall: sum('unreported'), files: results };
}
