// The reporter of a self-validation batch: every fault's raw check outcomes, redacted, in one file
// for the runner, which builds and judges each fault's conformance report. A check belongs to the
// fault of its spec wrapper (batch-specs.ts), whatever group ran it.
import { writeFileSync } from 'node:fs';
import type { FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { knownSecretsRedactor } from '../core/run/run-contract.ts';
import { checkOutcome } from '../harness/reporter/conformance.reporter.ts';
import type { CheckOutcome } from '../harness/reporter/verdict.ts';
import { faultOfWrapper, readBatchPlan } from './batch-plan.ts';

export type BatchOutcomes = Record<string, CheckOutcome[]>;

/** Where a group's wall time went: when its worker ran its first and last check (ms from the batch's start), and the checks' own time. */
export interface GroupTiming {
  project: string;
  checks: number;
  checksMs: number;
  firstStartMs: number;
  lastEndMs: number;
  workers: number;
}

/** The timing file of a batch, beside its outcomes. */
export const timingFileOf = (outcomesFile: string): string => outcomesFile.replace(/\.json$/, '.timing.json');

/** The test file a check was declared for: its file suite's title (the wrapper), not its location (the spec). */
function wrapperOf(test: TestCase): string {
  let suite: Suite | undefined = test.parent;
  while (suite && suite.type !== 'file') suite = suite.parent;
  return suite?.title ?? '';
}

export default class BatchReporter implements Reporter {
  private suite: Suite | undefined;
  private readonly begun = Date.now();
  private readonly timing = new Map<string, GroupTiming & { workerSet: Set<number> }>();

  onBegin(_config: unknown, suite: Suite): void {
    this.suite = suite;
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const project = test.parent.project()?.name ?? '';
    const start = result.startTime.getTime() - this.begun;
    const t = this.timing.get(project) ?? {
      project,
      checks: 0,
      checksMs: 0,
      firstStartMs: start,
      lastEndMs: 0,
      workers: 0,
      workerSet: new Set<number>(),
    };
    t.checks += 1;
    t.checksMs += result.duration;
    t.firstStartMs = Math.min(t.firstStartMs, start);
    t.lastEndMs = Math.max(t.lastEndMs, start + result.duration);
    t.workerSet.add(result.workerIndex);
    this.timing.set(project, t);
  }

  onEnd(_result?: FullResult): void {
    const plan = readBatchPlan();
    writeFileSync(
      timingFileOf(plan.outcomesFile),
      JSON.stringify([...this.timing.values()].map(({ workerSet, ...t }) => ({ ...t, workers: workerSet.size }))),
    );
    const redactor = knownSecretsRedactor();
    const byFault: BatchOutcomes = Object.fromEntries(
      plan.projects.flatMap((p) => p.members.map((m) => [m.fault, []])),
    );
    for (const test of this.suite?.allTests() ?? []) {
      const fault = faultOfWrapper(wrapperOf(test));
      // The project a check ran in is its fault's group; the fault's report names the fault.
      if (fault !== undefined && byFault[fault])
        byFault[fault].push({ ...checkOutcome(test, redactor), project: fault });
    }
    writeFileSync(plan.outcomesFile, JSON.stringify(byFault));
  }

  printsToStdio(): boolean {
    return false;
  }
}
