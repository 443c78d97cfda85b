// The first phase: each selected fault's run plan, read from the clean run's checks.json, and
// whether it needs a server of its own; what a fault's result says about how it ran.
import type { Fault } from '../fault.ts';
import type { FaultResult } from '../matrix.ts';
import { planFor, readCleanChecks, sentinelProblems, sentinels, type RunPlan } from './fault-selection.ts';
import type { Options, Out } from './options.ts';

/** Each fault's run plan (from the clean run's checks.json) and whether it needs a server of its own. */
export interface Planning {
  plans: Map<string, RunPlan>;
  needsFresh: (f: Fault) => boolean;
  /** The faults that run on their group's server rather than one of their own (startFreshServers). */
  onGroupServer: Set<string>;
  /** False when there was no clean checks file to plan from. */
  fromCleanChecks: boolean;
}

export function planRuns(options: Options): Planning {
  const cleanChecks = readCleanChecks(options.cleanChecksFile);
  const problems = cleanChecks ? sentinelProblems(cleanChecks) : [];
  if (problems.length) throw new Error(problems.join('; '));
  const plans = new Map(options.selected.map((f) => [f.id, planFor(f, cleanChecks, options.mode)]));
  // A fault on the self-validation's rate limits needs a server started with them.
  const needsFresh = (f: Fault) =>
    f.freshServer !== undefined ||
    plans.get(f.id)!.passes.includes('time-travel') ||
    plans.get(f.id)!.rateLimits === true;
  return { plans, needsFresh, onGroupServer: new Set(), fromCleanChecks: cleanChecks !== undefined };
}

export function announce(options: Options, planning: Planning, out: Out): void {
  out(
    options.mode === 'full'
      ? 'self-validation, full mode: every check of the suite under every fault (property checks and the 30-s quota check included); precision judged on the whole suite'
      : `self-validation, CI mode: each fault runs the checks of its own requirements, its collateral and one sentinel check on each of four paths (${sentinels.map((x) => x.id).join(', ')}); property checks only under the faults aimed at them; \`--full\` runs every check under every fault`,
  );
  out(
    `self-validation: ${options.selected.length} faults (${options.selected.filter(planning.needsFresh).length} on a server of their own or their group's), one Playwright run, ${options.workers} workers: ${options.workers} groups of faults and the faults that cannot share one` +
      (planning.fromCleanChecks
        ? ''
        : ` — no clean checks file ${options.cleanChecksFile}: every spec loaded, both passes run`),
  );
}

export function runOf(planning: Planning, f: Fault): FaultResult['run'] {
  const plan = planning.plans.get(f.id)!;
  return {
    checks: plan.checks,
    passes: plan.passes,
    specs: plan.specs?.length ?? null,
    server: planning.onGroupServer.has(f.id) ? 'group' : planning.needsFresh(f) ? 'fresh' : 'shared',
    workers: 1,
  };
}

/** The result of a fault that could not be run or judged: every break missed, with the reason. */
export function problemResult(planning: Planning, f: Fault, message: string): FaultResult {
  return {
    id: f.id,
    title: f.title,
    breaks: f.breaks,
    collateral: f.collateral?.ids ?? [],
    grep: planning.plans.get(f.id)!.grep,
    run: runOf(planning, f),
    detected: false,
    missed: f.breaks.map((id) => ({ id, verdict: 'not run' })),
    falseAlarms: [],
    collateralSeen: [],
    blocked: [],
    verdicts: {},
    moved: [],
    caughtBy: [],
    propertiesRun: [],
    durationMs: 0,
    problem: message,
  };
}
