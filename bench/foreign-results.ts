// The rows of RESULTS.md for the suite against an independent target with no clock control
// (harness/foreign-suite.ts), locally and behind the latency proxy: their goal lines beside
// `npm start`, and where each run's time went (`run --timings`' phases and projects).
import { projectSums } from './harness/suite-breakdown.ts';
import type { ForeignRun } from './harness/foreign-suite.ts';
import type { SuiteRun } from './harness/suite-runs.ts';

export interface ForeignResult {
  /** One-way delay of the proxy, ms (0: the target on loopback). */
  delayMs: number;
  run?: ForeignRun;
  failure?: string;
}

/** The shape of results-markdown.ts's GoalLine (not imported: that file imports this one). */
interface Line {
  goal: string;
  measured: string;
  met: boolean | undefined;
}

const fmt = (n: number, digits = 0): string =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '–';

/** A run counts when it ended with a report whose FAIL/WARN are exactly the target's pinned deviations. */
const sound = (r: ForeignRun): boolean => r.pinned.same && r.exitCode !== null && r.exitCode <= 1;
const pinNote = (r: ForeignRun): string =>
  r.pinned.same
    ? 'FAIL/WARN exactly the pinned deviations'
    : `**FAIL/WARN differ from the pinned deviations**: unexpected ${r.pinned.unexpected.join(', ') || 'none'}; missing ${r.pinned.missing.join(', ') || 'none'}`;
const cpuPerRequestMs = (t: SuiteRun): number | undefined =>
  t.cpuSeconds !== undefined && t.requests ? (1000 * t.cpuSeconds) / t.requests : undefined;

/**
 * The goal of a run at a distance ÷ the local run: a staging target 20 ms away (one way) within 2×,
 * 80 ms away within 3× (the round trips a check cannot overlap grow with the distance); no goal
 * for other distances.
 */
export function distantGoalFactor(delayMs: number): number | undefined {
  if (delayMs <= 20) return 2;
  if (delayMs <= 80) return 3;
  return undefined;
}

export function foreignGoalLines(foreign: readonly ForeignResult[] | undefined, start: SuiteRun | undefined): Line[] {
  const local = foreign?.find((f) => f.delayMs === 0);
  const notMeasured = (f: ForeignResult | undefined) => (f?.failure ? `failed: ${f.failure}` : 'not measured');
  const lines: Line[] = [];
  const l = local?.run;
  const wallGoal =
    'suite against a local independent target without clock control (oidc-provider) ÷ `npm start` (wall) ≤ 1.0×';
  lines.push(
    l && start
      ? {
          goal: wallGoal,
          measured: `${fmt(l.seconds / start.seconds, 2)}× (${fmt(l.seconds, 1)} s vs ${fmt(start.seconds, 1)} s; exit ${l.exitCode}; ${l.verdicts ?? 'no report'}; ${pinNote(l)})`,
          met: sound(l) && l.seconds <= start.seconds,
        }
      : { goal: wallGoal, measured: notMeasured(local), met: undefined },
  );
  const cpuGoal = "suite CPU per request against it ≤ `npm start`'s";
  const ours = l && cpuPerRequestMs(l);
  const theirs = start && cpuPerRequestMs(start);
  lines.push(
    l && ours !== undefined && theirs !== undefined
      ? {
          goal: cpuGoal,
          measured: `${fmt(ours, 1)} ms vs ${fmt(theirs, 1)} ms (${fmt(l.cpuSeconds!, 1)} CPU-s / ${fmt(l.requests!)} requests, the target's own CPU not counted; ${fmt(start!.cpuSeconds!, 1)} CPU-s / ${fmt(start!.requests!)} requests, its servers included)`,
          met: sound(l) && ours <= theirs,
        }
      : { goal: cpuGoal, measured: notMeasured(local), met: undefined },
  );
  for (const far of foreign?.filter((f) => f.delayMs > 0) ?? []) {
    const factor = distantGoalFactor(far.delayMs);
    const d = far.run;
    const distantGoal = `suite against it ${far.delayMs} ms away ÷ local ≤ ${factor ?? '–'}×`;
    lines.push(
      d && l
        ? {
            goal: distantGoal,
            measured: `${fmt(d.seconds / l.seconds, 2)}× (${fmt(d.seconds, 1)} s vs ${fmt(l.seconds, 1)} s; exit ${d.exitCode}; ${pinNote(d)})`,
            met: factor === undefined ? undefined : sound(d) && sound(l) && d.seconds <= factor * l.seconds,
          }
        : { goal: distantGoal, measured: notMeasured(far), met: undefined },
    );
  }
  return lines;
}

/** Where each run's time went: phases, then per project (workers, wall, summed check time). */
export function pushForeign(push: (...lines: string[]) => void, foreign: readonly ForeignResult[]): void {
  push(
    '',
    '### Against an independent target without clock control (oidc-provider)',
    '',
    "node-oidc-provider 9 behind the spec's paths (`test/targets/oidc-provider/`: HTTPS, no clock control, no fault switch), started by the bench as a child process and run as a user runs against a staging target: `token-conformance run --target <its profile> --timings`; the distant row puts each of its origins behind the latency proxy. Wall time and CPU of the `run` command alone (the target's own CPU not counted). Its FAIL/WARN requirements are compared with the target's pinned `deviations.json`.",
    '',
    '| run | wall time | CPU time | CPU per request | exit | requests | connections through the proxy | requirements | FAIL/WARN as pinned |',
    '|---|---:|---:|---:|---:|---:|---:|---|---|',
  );
  for (const f of foreign) {
    const label = f.delayMs > 0 ? `${f.delayMs} ms away` : 'local';
    const r = f.run;
    if (!r) {
      push(`| ${label} | **failed**: ${f.failure ?? 'no result'} | | | | | | | |`);
      continue;
    }
    const perRequest = cpuPerRequestMs(r);
    push(
      `| ${label} | ${fmt(r.seconds, 1)} s | ${r.cpuSeconds === undefined ? '–' : `${fmt(r.cpuSeconds, 1)} s`} | ${perRequest === undefined ? '–' : `${fmt(perRequest, 1)} ms`} | ${r.exitCode} | ${r.requests === undefined ? '–' : fmt(r.requests)} | ${f.delayMs > 0 ? fmt(r.proxyConnections) : '–'} | ${r.verdicts ?? '–'} | ${r.pinned.same ? 'yes' : `**no**: unexpected ${r.pinned.unexpected.join(', ') || 'none'}; missing ${r.pinned.missing.join(', ') || 'none'}`} |`,
    );
  }
  for (const f of foreign) {
    if (!f.run) continue;
    const label = f.delayMs > 0 ? `${f.delayMs} ms away` : 'local';
    push(
      '',
      `Where the ${label} run's time went (\`run --timings\`): ${f.run.phases ?? 'no phase line'}; ${f.run.projects ?? 'no project line'}.`,
    );
    const sums = projectSums(f.run.checks);
    if (sums.length > 0)
      push(
        '',
        `Its checks per project (checks.json): ${sums.map((p) => `${p.project} ${fmt(p.checks)} checks, ${fmt(p.seconds, 1)} s summed, ${fmt(p.requests)} requests`).join('; ')}.`,
      );
  }
}
