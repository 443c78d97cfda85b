// Playwright Test configuration of the conformance suite (API checks only: no browser).
//
// Two projects:
//   conformance  every check that leaves the target's shared state alone, fully parallel;
//   time-travel  checks that move the target's clock (@clock) or switch its faults (@serial):
//                one worker, after the conformance project, because moving a shared clock
//                would break checks running beside them — unless the run gave them clock
//                targets of their own (see `projects` below).
// A third, time-travel-beside, only against a distant target in lanes whose profile declares a
// lockout that touches nothing but the principal named: the lanes of a principal of their own.
// No project dependency (it would run the whole conformance project, unfiltered, before a single
// folder's clock checks): `token-conformance run`, like a direct `npx playwright test`, runs both
// in one invocation and orders them with the pass gate (core/run/pass-gate.ts): each time-travel
// worker starts its first check only once every selected conformance check has ended.
//
// The target and every setting of the run come from the `run` command's run manifest
// (core/run/run-manifest.ts). Run directly (`npx playwright test`), the global setup starts the
// bundled reference server.
import { defineConfig, type ReporterDescription } from '@playwright/test';
import { join } from 'node:path';
import { checkWorkers } from './core/run/check-workers.ts';
import { readClockTargets } from './core/run/clock-targets.ts';
import { besideConformanceSpecs, besideLaneWorkers, laneWorkers } from './core/run/serial-lanes.ts';
import { serialProject } from './core/run/pass-gate.ts';
import { besideConformanceProject } from './core/run/time-travel-pass.ts';
import { readRunManifest } from './core/run/run-manifest.ts';
import { escapeRegExp } from './core/text/escape-regexp.ts';

const run = readRunManifest();
const reportsDir = run.reportsDir ?? join(import.meta.dirname, 'reports');
const sharded = process.argv.some((a) => a === '--shard' || a.startsWith('--shard='));
const serialTags = /@clock|@serial/;
const clockTargets = readClockTargets(run.clockTargets);
// API checks wait on the network far more than they compute (core/run/check-workers.ts; `run` chooses
// for a distant target).
const conformanceWorkers = run.checkWorkers ?? checkWorkers({ ci: !!process.env.CI, idleCores: 0 });
const serialLanes = run.serialLanes !== undefined && clockTargets === undefined;
// After the pass gate (no clock targets) the time-travel workers are started beside the conformance
// workers, not in their place once they are done: they wait at the gate, so a worker's start (a
// second or more) overlaps the conformance checks instead of following the last of them.
const timeTravelWorkers = clockTargets !== undefined ? 0 : serialLanes ? laneWorkers : 1;
const conformance = {
  name: 'conformance',
  grepInvert: serialTags,
  ...(timeTravelWorkers > 0 ? { workers: conformanceWorkers } : {}),
};
const timeTravel = { name: serialProject, grep: serialTags };
// The lanes of a principal of their own, where the profile's lockout touches nothing else
// (core/run/serial-lanes.ts lanesBesideConformance): a project of their own that does not wait at
// the pass gate, listed first so that its checks (the longest of the pass) start first.
const testDir = join(import.meta.dirname, 'specs');
const besideSpecs = new RegExp(`^(${besideConformanceSpecs.map((f) => escapeRegExp(join(testDir, f))).join('|')})$`);
const besideLanes = serialLanes && run.serialLanesBeside === true;
const afterGate = { ...timeTravel, workers: timeTravelWorkers, fullyParallel: false };
const timeTravelProjects = besideLanes
  ? [
      {
        ...timeTravel,
        name: besideConformanceProject,
        testMatch: besideSpecs,
        workers: besideLaneWorkers,
        fullyParallel: false,
      },
      conformance,
      { ...afterGate, testIgnore: besideSpecs, workers: timeTravelWorkers - besideLaneWorkers },
    ]
  : [conformance, afterGate];

const reporters: ReporterDescription[] = [
  // `run --reporter` chooses (compact: line on a terminal, nothing otherwise — the conformance
  // reporter's summary is one line per area and per failure); a direct Playwright run keeps list/dot.
  [run.terminalReporter ?? (process.env.CI ? 'dot' : 'list')],
  // allure-playwright writing without an fsync per file (harness/reporter/allure.reporter.ts), when
  // asked for (`run --allure`): its writer is a large share of this process's CPU.
  ...(run.allure
    ? [
        [
          './harness/reporter/allure.reporter.ts',
          { resultsDir: join(reportsDir, 'allure-results'), detail: true, suiteTitle: true },
        ] as ReporterDescription,
      ]
    : []),
  // conformance.json, traceability.html, junit.xml (each check as its verdict reads), checks.json, transcripts/.
  ['./harness/reporter/conformance.reporter.ts', { outputDir: reportsDir }],
  ...(sharded ? [['blob', { outputDir: join(reportsDir, 'blob-report') }] as ReporterDescription] : []),
];

export default defineConfig({
  testDir,
  testMatch: '**/*.spec.ts',
  // Under `token-conformance run` the reports directory is the user's (this file may sit in
  // node_modules/), so Playwright's per-check output goes beside the reports.
  outputDir:
    run.reportsDir !== undefined ? join(reportsDir, 'test-results') : join(import.meta.dirname, 'test-results'),
  forbidOnly: !!process.env.CI,
  retries: 0,
  // The conformance workers and the time-travel project's (one, or one per lane): started from the
  // beginning, the time-travel workers wait at the pass gate. With lanes beside the conformance
  // checks, only theirs start with the others: the lanes after the gate take the slots of the
  // lanes beside that end first, so their workers start while the checks wait on the network
  // instead of at the beginning, when every worker's start waits on the CPU.
  workers: conformanceWorkers + (besideLanes ? besideLaneWorkers : timeTravelWorkers),
  fullyParallel: true,
  timeout: 30_000,
  expect: { timeout: 5_000 },
  globalSetup: './harness/playwright/global-setup.ts',
  reporter: reporters,
  // Without clock targets the time-travel checks run one at a time after the others; against a distant
  // target whose serial checks share nothing but principals, one worker per lane (core/run/serial-lanes.ts).
  // With clock targets (`run --start-reference`: reference servers for the time-travel checks
  // alone; or the profile's capabilities.clockSandboxes; core/run/clock-targets.ts) the time-travel checks spread over one worker per
  // clock target, beside the conformance checks; listed first so that their longest checks start first.
  projects:
    clockTargets === undefined
      ? timeTravelProjects
      : [{ ...timeTravel, workers: clockTargets.profiles.length, fullyParallel: true }, conformance],
});
