// The reporter of a self-validation batch: every fault's raw check outcomes, redacted, in one file
// for the runner, which builds and judges each fault's conformance report. A check belongs to the
// fault of its spec wrapper (batch-specs.ts), whatever group ran it.
import { writeFileSync } from 'node:fs';
import type { Reporter, Suite, TestCase } from '@playwright/test/reporter';
import { knownSecretsRedactor } from '../../core/run/run-contract.ts';
import { checkOutcome } from '../reporter/conformance.reporter.ts';
import type { CheckOutcome } from '../reporter/verdict.ts';
import { faultOfWrapper, readBatchPlan } from './batch-plan.ts';

export type BatchOutcomes = Record<string, CheckOutcome[]>;

/** The test file a check was declared for: its file suite's title (the wrapper), not its location (the spec). */
function wrapperOf(test: TestCase): string {
  let suite: Suite | undefined = test.parent;
  while (suite && suite.type !== 'file') suite = suite.parent;
  return suite?.title ?? '';
}

export default class BatchReporter implements Reporter {
  private suite: Suite | undefined;

  onBegin(_config: unknown, suite: Suite): void {
    this.suite = suite;
  }

  onEnd(): void {
    const plan = readBatchPlan();
    const redactor = knownSecretsRedactor();
    const byFault: BatchOutcomes = Object.fromEntries(plan.projects.flatMap((p) => p.members.map((m) => [m.fault, []])));
    for (const test of this.suite?.allTests() ?? []) {
      const fault = faultOfWrapper(wrapperOf(test));
      // The project a check ran in is its fault's group; the fault's report names the fault.
      if (fault !== undefined && byFault[fault]) byFault[fault].push({ ...checkOutcome(test, redactor), project: fault });
    }
    writeFileSync(plan.outcomesFile, JSON.stringify(byFault));
  }

  printsToStdio(): boolean {
    return false;
  }
}
