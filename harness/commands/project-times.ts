// Where the checks phase of a `run` spends its wall time, per Playwright project, from the run's
// checks.json: how many checks, how many workers ran them (Playwright starts a new one for each
// worker it discards), the project's wall time from its first check's start to its last check's
// end, and the checks' own durations summed. `run --timings` prints it as one line after the phases.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckOutcome } from '../reporter/verdict.ts';

export interface ProjectTime {
  project: string;
  checks: number;
  /** Distinct workers that ran its checks. */
  workers: number;
  /** First check's start to last check's end, ms. */
  wallMs: number;
  /** The checks' durations added up, ms (more than wallMs when they ran side by side). */
  checksMs: number;
  requests: number;
}

export function projectTimes(
  checks: readonly Pick<CheckOutcome, 'project' | 'startedAt' | 'workerIndex' | 'durationMs' | 'requests'>[],
): ProjectTime[] {
  const byProject = new Map<
    string,
    { checks: number; workers: Set<number>; start: number; end: number; checksMs: number; requests: number }
  >();
  for (const c of checks) {
    if (c.startedAt === undefined) continue; // not run
    const start = Date.parse(c.startedAt);
    const p = byProject.get(c.project ?? '') ?? {
      checks: 0,
      workers: new Set<number>(),
      start,
      end: start,
      checksMs: 0,
      requests: 0,
    };
    p.checks += 1;
    if (c.workerIndex !== undefined) p.workers.add(c.workerIndex);
    p.start = Math.min(p.start, start);
    p.end = Math.max(p.end, start + c.durationMs);
    p.checksMs += c.durationMs;
    p.requests += c.requests ?? 0;
    byProject.set(c.project ?? '', p);
  }
  return [...byProject].map(([project, p]) => ({
    project,
    checks: p.checks,
    workers: p.workers.size,
    wallMs: p.end - p.start,
    checksMs: p.checksMs,
    requests: p.requests,
  }));
}

/** `projects: conformance 220 checks on 4 workers 9.6 s (checks summed 26.8 s, 559 requests); …`, or undefined without checks.json. */
export function renderProjectTimes(reportsDir: string): string | undefined {
  let checks: CheckOutcome[];
  try {
    checks = (JSON.parse(readFileSync(join(reportsDir, 'checks.json'), 'utf8')) as { checks: CheckOutcome[] }).checks;
  } catch {
    return undefined;
  }
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const parts = projectTimes(checks).map(
    (p) =>
      `${p.project} ${p.checks} checks on ${p.workers} workers ${s(p.wallMs)} (checks summed ${s(p.checksMs)}, ${p.requests} requests)`,
  );
  return parts.length > 0 ? `projects: ${parts.join('; ')}` : undefined;
}
