// One Playwright run for many faults: each fault is a project with its own target profile (the
// proxy in front of its server) and its own selection. The runner writes this plan; the batch's
// Playwright config (batch.config.ts) and reporter (batch.reporter.ts) read it.
import { readFileSync } from 'node:fs';

export const batchPlanEnvVar = 'TOKEN_CONFORMANCE_SV_BATCH';

/**
 * The two passes of `run` (checks that leave shared state alone, then @clock/@serial ones one at a
 * time), or `all`: both sides at once, when no project shares its server with another one that
 * moves shared state (each project's checks run one at a time on its one worker).
 */
export type BatchPass = 'conformance' | 'time-travel' | 'all';

export interface BatchProject {
  /** The fault's id: the project's name. */
  fault: string;
  /** The fault run's worker profile (toWorkerProfile: secrets as environment references). */
  profileFile: string;
  /** The fault's selection (run-self-validation.ts grepFor). */
  grep: string;
  /** Spec files to load, relative to the repository (undefined: every spec). */
  specs?: string[];
  /** The fault's breaks and collateral: expected failures, for scheduling only (fixtures/expected-failures.fixture.ts). */
  expectBroken: string[];
}

export interface BatchPlan {
  pass: BatchPass;
  /** Playwright workers for the whole batch (each project runs on one worker at a time). */
  workers: number;
  /** Where the reporter writes every project's raw check outcomes. */
  outcomesFile: string;
  /** Playwright's outputDir for this batch. */
  outputDir: string;
  projects: BatchProject[];
}

export function readBatchPlan(env: NodeJS.ProcessEnv = process.env): BatchPlan {
  const file = env[batchPlanEnvVar];
  if (!file) throw new Error(`${batchPlanEnvVar} is not set: this configuration is run by the self-validation (harness/self-validation/run-self-validation.ts)`);
  return JSON.parse(readFileSync(file, 'utf8')) as BatchPlan;
}

const serialTags = '@clock|@serial';

/**
 * A project's grep for a pass: the fault's selection, and the pass's side of the @clock/@serial
 * line (the conformance pass never runs a check that moves shared state; the time-travel pass runs
 * only those; `all` both).
 */
export function passGrep(pass: BatchPass, selection: string): RegExp {
  const inner = selection.replace(/^\^/, '');
  if (pass === 'all') return new RegExp(`^(?:${inner})`);
  const side = pass === 'conformance' ? `(?![\\s\\S]*(?:${serialTags}))` : `(?=[\\s\\S]*(?:${serialTags}))`;
  return new RegExp(`^${side}(?:${inner})`);
}
