// Where a suite run's time goes, from what it wrote: the phases `run --timings` printed, and its
// checks (checks.json) summed per project and ranked; for the distant run, each check's extra time
// over the same check in the local run. Pure functions over the figures suite-runs.ts read back.
import type { CheckCost } from './suite-runs.ts';

export interface Phase {
  phase: string;
  seconds: number;
}

export interface Phases {
  phases: Phase[];
  totalSeconds: number;
}

/** `phases: profile 0.2 s, reference start 2.1 s, … (total 14.8 s)` as figures; undefined when it does not read as one. */
export function parsePhases(line: string | undefined): Phases | undefined {
  const m = line === undefined ? null : /^phases: (.*) \(total (\d+(?:\.\d+)?) s\)$/.exec(line);
  if (!m) return undefined;
  const phases: Phase[] = [];
  for (const part of m[1]!.split(', ')) {
    const p = /^(.+) (\d+(?:\.\d+)?) s$/.exec(part);
    if (!p) return undefined;
    phases.push({ phase: p[1]!, seconds: Number(p[2]) });
  }
  return { phases, totalSeconds: Number(m[2]) };
}

export interface ProjectSum {
  project: string;
  checks: number;
  /** The checks' durations added up (check-seconds: more than the wall time when they ran side by side). */
  seconds: number;
  requests: number;
  longest: CheckCost | undefined;
}

/** Per Playwright project: how many checks, their summed duration and requests, the longest one. */
export function projectSums(checks: readonly CheckCost[]): ProjectSum[] {
  const sums = new Map<string, ProjectSum>();
  for (const c of checks) {
    const s = sums.get(c.project) ?? { project: c.project, checks: 0, seconds: 0, requests: 0, longest: undefined };
    s.checks += 1;
    s.seconds += c.durationMs / 1000;
    s.requests += c.requests;
    if (s.longest === undefined || c.durationMs > s.longest.durationMs) s.longest = c;
    sums.set(c.project, s);
  }
  return [...sums.values()].sort((a, b) => b.seconds - a.seconds);
}

/** The `n` longest checks, longest first. */
export function slowestChecks(checks: readonly CheckCost[], n: number): CheckCost[] {
  return [...checks].sort((a, b) => b.durationMs - a.durationMs).slice(0, n);
}

export interface ExtraTime {
  check: CheckCost;
  localMs: number;
  /** Distant minus local duration, ms. */
  extraMs: number;
  /** extraMs over one round trip's added cost (2 × delay): round trips on the check's sequential path. */
  roundTrips: number;
}

/** Each check of the distant run with its extra time over the local run, most extra time first (checks in one run only are left out). */
export function extraTimes(local: readonly CheckCost[], distant: readonly CheckCost[], delayMs: number): ExtraTime[] {
  const localByKey = new Map(local.map((c) => [c.key, c]));
  const out: ExtraTime[] = [];
  for (const d of distant) {
    const l = localByKey.get(d.key);
    if (l === undefined) continue;
    const extraMs = d.durationMs - l.durationMs;
    out.push({
      check: d,
      localMs: l.durationMs,
      extraMs,
      roundTrips: Math.max(0, Math.round(extraMs / (2 * delayMs))),
    });
  }
  return out.sort((a, b) => b.extraMs - a.extraMs);
}
