// Two conformance reporters fed one run: `plain/` judges the checks as they ended, `rewritten/`
// after every error message, stack and value of every check has been replaced. A verdict that
// read the wording of an error would differ between the two (fixtures/test/verdict-structure.test.ts).
import { join } from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import ConformanceReporter from '../../reporter/conformance.reporter.ts';

const rewrite = (i: number) => `rewritten message ${i}`;

export default class RewritingReporter implements Reporter {
  private readonly plain: ConformanceReporter;
  private readonly rewritten: ConformanceReporter;
  private suite: Suite | undefined;

  constructor(options: { outputDir: string }) {
    this.plain = new ConformanceReporter({ outputDir: join(options.outputDir, 'plain') });
    this.rewritten = new ConformanceReporter({ outputDir: join(options.outputDir, 'rewritten') });
  }

  printsToStdio(): boolean {
    return false;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.suite = suite;
    this.plain.onBegin(config, suite);
    this.rewritten.onBegin(config, suite);
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    this.plain.onTestEnd(test, result);
    this.rewritten.onTestEnd(test, result);
  }

  async onEnd(result: FullResult): Promise<void> {
    await this.plain.onEnd(result);
    let i = 0;
    for (const test of this.suite?.allTests() ?? []) {
      for (const r of test.results) {
        const errors = r.errors.map(() => ({ message: rewrite(++i), stack: rewrite(i), value: rewrite(i) }));
        r.errors.splice(0, r.errors.length, ...errors);
        if (r.error) r.error = errors[0] ?? { message: rewrite(++i) };
      }
    }
    await this.rewritten.onEnd(result);
  }
}
