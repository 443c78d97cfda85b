// Verdicts, as pure functions: from the outcome of each check (a Playwright test) to a verdict per
// check, per requirement, and for the run. The reporter feeds them; the unit tests table-drive them.
import type { Requirement, RequirementLevel } from '../../requirements/types.ts';
import type { CheckResult, ConformanceReport, PropertyRun, RequirementResult, Verdict } from './report.schema.ts';
import { verdicts } from './report.schema.ts';

export type CheckStatus = 'passed' | 'failed' | 'timedOut' | 'interrupted' | 'skipped' | 'notRun';

/** What the reporter knows of one check after the run. */
export interface CheckOutcome {
  title: string;
  file?: string;
  project?: string;
  requirementIds: string[];
  status: CheckStatus;
  durationMs: number;
  /** The skip annotation's description. */
  skipReason?: string;
  /** Set when the check marked itself (or its fixture marked it) not applicable. */
  notApplicableReason?: string;
  /** First line of the failure, already redacted. */
  error?: string;
  /** A property check's seed, runs and (on failure) counterexample and replay command. */
  property?: PropertyRun;
}

export type Level = 'must' | 'should' | 'all';

/** The requirement levels a `--level` selection covers. */
export function levelsFor(level: Level): RequirementLevel[] {
  if (level === 'must') return ['MUST', 'INTERPRETATION'];
  if (level === 'should') return ['MUST', 'INTERPRETATION', 'SHOULD'];
  return ['MUST', 'INTERPRETATION', 'SHOULD', 'ADVISORY'];
}

/** A broken MUST (or the target's declared INTERPRETATION) fails; a broken SHOULD/ADVISORY warns. */
export function brokenVerdict(level: RequirementLevel): Verdict {
  return level === 'MUST' || level === 'INTERPRETATION' ? 'FAIL' : 'WARN';
}

export function checkVerdict(outcome: CheckOutcome, level: RequirementLevel): { verdict: Verdict; reason?: string } {
  switch (outcome.status) {
    case 'passed':
      return { verdict: 'PASS' };
    case 'failed':
    case 'timedOut':
    case 'interrupted':
      return { verdict: brokenVerdict(level), reason: outcome.error ?? (outcome.status === 'timedOut' ? 'timed out' : outcome.status) };
    case 'skipped':
      if (outcome.notApplicableReason !== undefined) return { verdict: 'NOT_APPLICABLE', reason: outcome.notApplicableReason };
      return { verdict: 'SKIP', reason: outcome.skipReason ?? 'skipped without a reason (a defect of the check)' };
    case 'notRun':
      return { verdict: 'SKIP', reason: outcome.skipReason ?? 'not run' };
  }
}

/**
 * A requirement's verdict from its checks: any FAIL → FAIL; any WARN → WARN; all NOT_APPLICABLE →
 * NOT_APPLICABLE; any SKIP → SKIP (a partly verified requirement is not a PASS); else PASS.
 * No check at all: UNCHECKED — or SKIP when the run was filtered (--grep, --shard) and the
 * requirement's checks were simply not selected.
 */
export function requirementVerdict(checks: Pick<CheckResult, 'verdict' | 'reason'>[], filtered = false): { verdict: Verdict; reason?: string } {
  if (checks.length === 0) {
    return filtered ? { verdict: 'SKIP', reason: 'no check of this requirement was selected in this run' } : { verdict: 'UNCHECKED', reason: 'no check cites this requirement' };
  }
  const first = (v: Verdict) => checks.find((c) => c.verdict === v);
  for (const v of ['FAIL', 'WARN'] as const) {
    const c = first(v);
    if (c) return { verdict: v, ...(c.reason ? { reason: c.reason } : {}) };
  }
  if (checks.every((c) => c.verdict === 'NOT_APPLICABLE')) return { verdict: 'NOT_APPLICABLE', ...(checks[0]?.reason ? { reason: checks[0].reason } : {}) };
  const skip = first('SKIP');
  if (skip) return { verdict: 'SKIP', ...(skip.reason ? { reason: skip.reason } : {}) };
  return { verdict: 'PASS' };
}

export type Counts = Record<Verdict, number> & { WAIVED?: number };

export function countVerdicts(results: Pick<RequirementResult, 'verdict'>[]): Counts {
  const counts = Object.fromEntries(verdicts.map((v) => [v, 0])) as Counts;
  for (const r of results) {
    if (r.verdict === 'WAIVED') counts.WAIVED = (counts.WAIVED ?? 0) + 1;
    else counts[r.verdict] += 1;
  }
  return counts;
}

/** The run's verdict: FAIL on any FAIL or UNCHECKED (a hole in the suite), else WARN on any WARN, else PASS. */
export function overallVerdict(counts: Counts): 'PASS' | 'FAIL' | 'WARN' {
  if (counts.FAIL > 0 || counts.UNCHECKED > 0) return 'FAIL';
  if (counts.WARN > 0) return 'WARN';
  return 'PASS';
}

/** Exit code of `run`: 1 on FAIL (and on WARN with --strict), else 0. */
export function exitCodeFor(verdict: 'PASS' | 'FAIL' | 'WARN', strict: boolean): 0 | 1 {
  return verdict === 'FAIL' || (strict && verdict === 'WARN') ? 1 : 0;
}

export interface BuildOptions {
  level: Level;
  filtered: boolean;
  strict: boolean;
  grep?: string;
  shard?: string;
  suiteVersion: string;
  startedAt: Date;
  durationMs: number;
  target: ConformanceReport['target'];
  regionParity?: ConformanceReport['regionParity'];
}

/** Canonical order of check outcomes (title, then project): a run and the merge of its shards list checks alike. */
export function compareOutcomes(a: Pick<CheckOutcome, 'title' | 'project'>, b: Pick<CheckOutcome, 'title' | 'project'>): number {
  const key = (o: Pick<CheckOutcome, 'title' | 'project'>) => `${o.title}\u0000${o.project ?? ''}`;
  const ka = key(a);
  const kb = key(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

export function buildReport(catalogue: Requirement[], unsorted: CheckOutcome[], options: BuildOptions): ConformanceReport {
  const inScope = new Set(levelsFor(options.level));
  const known = new Map(catalogue.map((r) => [r.id, r]));
  const unknown = new Set<string>();
  const byRequirement = new Map<string, CheckResult[]>();
  const outcomes = [...unsorted].sort(compareOutcomes);
  for (const o of outcomes) {
    for (const id of o.requirementIds) {
      const r = known.get(id);
      if (!r) {
        unknown.add(id);
        continue;
      }
      const { verdict, reason } = checkVerdict(o, r.level);
      const list = byRequirement.get(id) ?? [];
      list.push({ title: o.title, ...(o.file ? { file: o.file } : {}), ...(o.project ? { project: o.project } : {}), verdict, durationMs: o.durationMs, ...(reason ? { reason } : {}), ...(o.property ? { property: o.property } : {}) });
      byRequirement.set(id, list);
    }
  }
  const requirements: RequirementResult[] = catalogue
    .filter((r) => inScope.has(r.level))
    .map((r) => {
      const checks = byRequirement.get(r.id) ?? [];
      const { verdict, reason } = requirementVerdict(checks, options.filtered);
      return {
        id: r.id, level: r.level, area: r.area, source: r.source, statement: r.statement,
        ...(r.interpretation ? { interpretation: r.interpretation } : {}),
        verdict, ...(reason ? { reason } : {}), checks,
      };
    });
  const counts = countVerdicts(requirements);
  const checkCounts = {
    passed: outcomes.filter((o) => o.status === 'passed').length,
    failed: outcomes.filter((o) => o.status === 'failed' || o.status === 'timedOut' || o.status === 'interrupted').length,
    skipped: outcomes.filter((o) => o.status === 'skipped' || o.status === 'notRun').length,
    total: outcomes.length,
  };
  return {
    reportVersion: 1,
    suiteVersion: options.suiteVersion,
    target: options.target,
    selection: { level: options.level, strict: options.strict, ...(options.grep ? { grep: options.grep } : {}), ...(options.shard ? { shard: options.shard } : {}) },
    startedAt: options.startedAt.toISOString(),
    durationMs: options.durationMs,
    verdict: overallVerdict(counts),
    summary: { ...counts, total: requirements.length },
    checks: checkCounts,
    requirements,
    unknownRequirementIds: [...unknown].sort(),
    checksWithoutRequirement: outcomes.filter((o) => o.requirementIds.length === 0).map((o) => o.title),
    ...(options.regionParity ? { regionParity: options.regionParity } : {}),
  };
}
