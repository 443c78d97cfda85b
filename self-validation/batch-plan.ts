// One Playwright run for many faults. Faults are run in groups: each group is a project with its
// own target profile (a switching proxy in front of its faults' servers), and each fault of a group
// has its own selection and its own copies of its spec files (spec wrappers, written by the runner:
// batch-specs.ts), so one worker runs the checks of every fault of its group, one fault in force at
// a time (fault-switch.ts). The runner writes this plan; the batch's Playwright config
// (batch.config.ts) and reporter (batch.reporter.ts) read it.
import { readFileSync } from 'node:fs';
import { readRunManifest } from '../core/run/run-manifest.ts';
import { escapeRegExp } from '../core/text/escape-regexp.ts';

/**
 * The two passes of `run` (checks that leave shared state alone, then @clock/@serial ones one at a
 * time), or `all`: both sides at once, when no project shares its server with another one that
 * moves shared state (each project's checks run one at a time on its one worker).
 */
export type BatchPass = 'conformance' | 'time-travel' | 'all';

export interface BatchMember {
  /** The fault's id. */
  fault: string;
  /** The fault's selection (run-self-validation.ts grepFor). */
  grep: string;
  /** The fault's spec wrappers (absolute paths under the plan's specsDir). */
  specFiles: string[];
}

export interface BatchProject {
  /** The group's name: the project's name. */
  name: string;
  /** The group's worker profile (toWorkerProfile: secrets as environment references). */
  profileFile: string;
  members: BatchMember[];
}

export interface BatchPlan {
  pass: BatchPass;
  /** Playwright workers for the whole batch (each project runs on one worker at a time). */
  workers: number;
  /** Where the reporter writes every fault's raw check outcomes. */
  outcomesFile: string;
  /** Playwright's outputDir for this batch. */
  outputDir: string;
  /** The directory of the spec wrappers: every project's testDir. */
  specsDir: string;
  /** The runner's fault switch (fault-switch.ts). */
  faultSwitchUrl: string;
  projects: BatchProject[];
}

export function readBatchPlan(env: NodeJS.ProcessEnv = process.env): BatchPlan {
  const file = readRunManifest(env).selfValidationBatch;
  if (!file)
    throw new Error(
      'the run manifest names no self-validation batch: this configuration is run by the self-validation (self-validation/run-self-validation.ts)',
    );
  return JSON.parse(readFileSync(file, 'utf8')) as BatchPlan;
}

const serialTags = '@clock|@serial';

/**
 * A fault's grep for a pass: the fault's selection, and the pass's side of the @clock/@serial
 * line (the conformance pass never runs a check that moves shared state; the time-travel pass runs
 * only those; `all` both).
 */
export function passGrep(pass: BatchPass, selection: string): RegExp {
  const inner = selection.replace(/^\^/, '');
  if (pass === 'all') return new RegExp(`^(?:${inner})`);
  const side = pass === 'conformance' ? `(?![\\s\\S]*(?:${serialTags}))` : `(?=[\\s\\S]*(?:${serialTags}))`;
  return new RegExp(`^${side}(?:${inner})`);
}

/** The directory of a fault's spec wrappers, under the plan's specsDir: `sv~<fault id>`. */
export const wrapperDirOf = (fault: string): string => `sv~${fault}`;

/**
 * A group project's grep. Playwright matches a project's grep against "<project> <test file>
 * <describes> <title> <tags>", and the test file of a fault's check is one of the fault's wrappers
 * (`…sv~<fault>/…`): so each fault's own selection applies to its own copies of the checks only.
 */
export function groupGrep(pass: BatchPass, project: string, members: Pick<BatchMember, 'fault' | 'grep'>[]): RegExp {
  const alternatives = members.map(
    (m) => `\\S*${escapeRegExp(wrapperDirOf(m.fault))}/\\S* ${passGrep(pass, m.grep).source.replace(/^\^/, '')}`,
  );
  return new RegExp(`^${escapeRegExp(project)} (?:${alternatives.join('|')})`);
}

/**
 * A group project's test files: its faults' wrapper directories, as one pattern (a list of every
 * wrapper's file name would make Playwright's glob matching try every file against every name).
 */
export function groupTestMatch(members: Pick<BatchMember, 'fault'>[]): RegExp {
  return new RegExp(
    `(?:^|[/\\\\])(?:${members.map((m) => escapeRegExp(wrapperDirOf(m.fault))).join('|')})[/\\\\].*\\.spec\\.mts$`,
  );
}

/** The fault of a check of a batch: from its test file, a wrapper under `sv~<fault id>/`. */
export function faultOfWrapper(file: string): string | undefined {
  return /(?:^|[/\\])sv~([^/\\]+)[/\\]/.exec(file)?.[1];
}
