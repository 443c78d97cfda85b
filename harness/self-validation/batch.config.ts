// The Playwright configuration of a self-validation batch: one project per fault, each with its own
// target profile (`workerProfileFile`), selection and expected failures (`expectBroken`), one
// worker per project at a time (a worker serves one project; its start is the main cost), as many
// projects at once as the plan's workers. Written and run by run-self-validation.ts; not for hand use.
import { defineConfig } from '@playwright/test';
import { join } from 'node:path';
import type { WorkerProfileOption } from '../../core/profile/worker-profile.ts';
import { passGrep, readBatchPlan } from './batch-plan.ts';

const repoRoot = join(import.meta.dirname, '..', '..');
const plan = readBatchPlan();

interface BatchOptions { expectBroken: string[] | undefined }

export default defineConfig<BatchOptions, WorkerProfileOption>({
  testDir: join(repoRoot, 'specs'),
  outputDir: plan.outputDir,
  forbidOnly: true,
  retries: 0,
  workers: plan.workers,
  timeout: 30_000,
  expect: { timeout: 5_000 },
  reporter: [['dot'], [join(import.meta.dirname, 'batch.reporter.ts')]],
  projects: plan.projects.map((p) => ({
    name: p.fault,
    testMatch: p.specs ? p.specs.map((f) => join(repoRoot, f)) : '**/*.spec.ts',
    grep: passGrep(plan.pass, p.grep),
    workers: 1,
    fullyParallel: false,
    use: { workerProfileFile: p.profileFile, expectBroken: p.expectBroken },
  })),
});
