// The reporter of a self-validation batch: every project's (fault's) raw check outcomes, redacted,
// in one file for the runner, which builds and judges each fault's conformance report.
import { writeFileSync } from 'node:fs';
import type { Reporter, Suite } from '@playwright/test/reporter';
import { knownSecretsRedactor } from '../../core/run/run-contract.ts';
import { checkOutcome } from '../reporter/conformance.reporter.ts';
import type { CheckOutcome } from '../reporter/verdict.ts';
import { readBatchPlan } from './batch-plan.ts';

export type BatchOutcomes = Record<string, CheckOutcome[]>;

export default class BatchReporter implements Reporter {
  private suite: Suite | undefined;

  onBegin(_config: unknown, suite: Suite): void {
    this.suite = suite;
  }

  onEnd(): void {
    const plan = readBatchPlan();
    const redactor = knownSecretsRedactor();
    const byFault: BatchOutcomes = Object.fromEntries(plan.projects.map((p) => [p.fault, []]));
    for (const test of this.suite?.allTests() ?? []) {
      const fault = test.parent.project()?.name;
      if (fault !== undefined && byFault[fault]) byFault[fault].push(checkOutcome(test, redactor));
    }
    writeFileSync(plan.outcomesFile, JSON.stringify(byFault));
  }

  printsToStdio(): boolean {
    return false;
  }
}
