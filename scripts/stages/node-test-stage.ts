// A stage of node:test files: run them (each file in its own process, as node:test does), then judge
// what they proved from the tests each file really reported (judge-node-test-results.ts), not from
// node:test's closing counters, which count a file that reported nothing as one passing test.
// The stage states its size first: the tests its files register, the least it must report.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { judgeNodeTestResults, type Counts, type TestEvent } from './judge-node-test-results.ts';
import { registeredTestsOf } from './registered-tests.ts';
import { runInGroup } from './stage-process.ts';

export interface NodeTestStageOptions {
  name: string;
  /** Absolute paths of the test files. */
  files: string[];
  /** Files run at once (node:test's --test-concurrency). */
  concurrency: number;
  /** The working directory of the run (the repository). */
  root: string;
  /** Where the results go (`<name>.results.jsonl`). */
  reportsDir: string;
  /** Lines about the stage's size and failures go here. */
  log?: (line: string) => void;
  /** The environment of the run (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** No test output on this process's stdout (the results are still written). */
  quiet?: boolean;
}

const reporter = join(import.meta.dirname, 'node-test-results.reporter.js');

function readEvents(file: string): TestEvent[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as TestEvent);
}

export async function runNodeTestStage(options: NodeTestStageOptions): Promise<Counts> {
  const log = options.log ?? ((line: string) => console.log(line));
  const name = (file: string): string => relative(options.root, file);
  const registered = new Map(options.files.map((f) => [f, registeredTestsOf(f)]));
  const minimum = [...registered.values()].reduce((n, r) => n + r.tests, 0);
  log(
    `${options.name}: ${options.files.length} test files registering ${minimum} tests: at least ${minimum} must report`,
  );
  const results = join(options.reportsDir, `${options.name}.results.jsonl`);
  rmSync(results, { force: true }); // a stale stream must not read as this run's
  // Inside a test file (this machinery's own tests) node:test marks the environment; a stage is a run of its own.
  const env = { ...(options.env ?? process.env) };
  delete env.NODE_TEST_CONTEXT;
  const code = await runInGroup(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      `--test-concurrency=${options.concurrency}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      `--test-reporter=${reporter}`,
      `--test-reporter-destination=${results}`,
      ...options.files,
    ],
    { cwd: options.root, env, quiet: options.quiet === true },
  );
  const judged = judgeNodeTestResults(readEvents(results), registered);
  const counts = judged.counts;
  for (const file of judged.files) {
    for (const problem of file.problems) log(`${options.name}: FAILED ${name(file.file)}: ${problem}`);
    if (file.problems.length === 0 && file.failed > 0)
      log(`${options.name}: FAILED ${name(file.file)}: ${file.failed} failed`);
  }
  if (code !== 0 && counts.failed === 0) {
    log(`${options.name}: FAILED the test runner exited with ${code} while every test passed`);
    counts.failed = 1;
  }
  if (counts.passed + counts.failed === 0) {
    log(`${options.name}: FAILED no test ran (${counts.skipped} skipped): the stage proved nothing`);
    counts.failed = 1;
  }
  if (judged.shortfall > 0)
    log(
      `${options.name}: FAILED shortfall: ${judged.shortfall} of the ${minimum} registered tests never reported (counted as failed)`,
    );
  return counts;
}
