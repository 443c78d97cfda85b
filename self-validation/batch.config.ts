// The Playwright configuration of a self-validation batch: one project per group of faults, each
// with its own target profile (`workerProfileFile`: the group's switching proxy) and the fault
// switch (`faultSwitch`); each fault of a group runs its own copies of its checks (the spec
// wrappers of batch-specs.ts) under its own selection (the project's grep, per wrapper directory).
// One worker per project at a time (a worker serves one project; its start is the main cost), as
// many projects at once as the plan's workers. Written and run by run-self-validation.ts; not for hand use.
import { defineConfig } from '@playwright/test';
import { join } from 'node:path';
import type { WorkerProfileOption } from '../core/profile/worker-profile.ts';
import type { FaultSwitchOption } from './fault-switch.ts';
import { groupGrep, groupTestMatch, readBatchPlan } from './batch-plan.ts';

const plan = readBatchPlan();

export default defineConfig<object, WorkerProfileOption & { faultSwitch: FaultSwitchOption | undefined }>({
  testDir: plan.specsDir,
  outputDir: plan.outputDir,
  forbidOnly: true,
  retries: 0,
  workers: plan.workers,
  // A safety net, not a verdict: a check that outlives it FAILs without naming a requirement, a false
  // alarm under the fault in force. Its checks run through a proxy beside dozens of other processes,
  // and a property check shrinking a counterexample on a loaded machine can outlive a short bound; every
  // fault's failure is an answer, none a hang, so a run on an idle machine never comes near it.
  timeout: 300_000,
  expect: { timeout: 5_000 },
  reporter: [['dot'], [join(import.meta.dirname, 'batch.reporter.ts')]],
  projects: plan.projects.map((p) => ({
    name: p.name,
    testMatch: groupTestMatch(p.members),
    grep: groupGrep(plan.pass, p.name, p.members),
    workers: 1,
    fullyParallel: false,
    use: { workerProfileFile: p.profileFile, faultSwitch: { url: plan.faultSwitchUrl, group: p.name } },
  })),
});
