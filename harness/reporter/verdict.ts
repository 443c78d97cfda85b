// Verdicts, as pure functions: from the outcome of each check (a Playwright test) to a verdict per
// check, per requirement, and for the run. The reporter feeds them; the unit tests table-drive them.
import { interpretationById } from '../../requirements/index.ts';
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
  /** HTTP requests the check sent through the suite's client (its transcript's exchanges). */
  requests?: number;
  /**
   * The check could not reach the behaviour it verifies: a failed `setup:` assertion, or
   * markBlocked() (fixtures/clients/blocking.ts). `by`: the requirement(s) whose violation blocked it.
   */
  blocked?: { reason: string; by?: string[] };
  /**
   * `broke` annotations of a failed check: the requirements it found broken, each with its own
   * message. Only these read FAIL/WARN; the check's other requirements read PASS (it verified them).
   */
  broke?: { id: string; message: string }[];
}

/** The prefix of a precondition assertion's message (`expect(x, 'setup: …')`): its failure is BLOCKED, not FAIL. */
export const setupPrefix = 'setup:';

/** The blocked reason of a failure whose first line is a `setup:` assertion message, else undefined. */
export function setupFailure(error: string | undefined): string | undefined {
  const line = error?.replace(/^\s*(?:Error:\s*)?/, '');
  return line?.startsWith(setupPrefix) ? line : undefined;
}

/** `'<REQ-ID> — <message>'` (an em dash, or a plain ` - ` as a fallback) → its parts; undefined if malformed. */
export function parseBroke(description: string): { id: string; message: string } | undefined {
  const m = /^\s*([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)\s*(?:—|--|-|:)\s*([\s\S]*)$/.exec(description);
  return m ? { id: m[1]!, message: m[2]!.trim() || 'broken (no message)' } : undefined;
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

export interface CheckJudgement {
  verdict: Verdict;
  reason?: string;
  blockedBy?: string[];
}

/**
 * One check's verdict for one of its requirements (`id`):
 *   passed → PASS;
 *   failed with `broke` annotations → FAIL/WARN for the IDs they name (their own messages), PASS for the others;
 *   failed `setup:` assertion, or markBlocked → BLOCKED with the reason and `blockedBy` — except for
 *     a requirement that is itself the blocker (`by`): the check found it broken, so FAIL/WARN;
 *   any other failure → FAIL (MUST, INTERPRETATION) or WARN (SHOULD, ADVISORY);
 *   skipped → NOT_APPLICABLE, BLOCKED (as above) or SKIP; not run → SKIP.
 */
export function checkVerdict(outcome: CheckOutcome, level: RequirementLevel, id?: string): CheckJudgement {
  const broken = (reason: string): CheckJudgement => ({ verdict: brokenVerdict(level), reason });
  const blocked = (b: NonNullable<CheckOutcome['blocked']>): CheckJudgement => {
    if (id !== undefined && b.by?.includes(id)) return broken(b.reason);
    return { verdict: 'BLOCKED', reason: b.reason, ...(b.by && b.by.length > 0 ? { blockedBy: b.by } : {}) };
  };
  switch (outcome.status) {
    case 'passed':
      return { verdict: 'PASS' };
    case 'failed':
    case 'timedOut':
    case 'interrupted': {
      if (outcome.broke && outcome.broke.length > 0) {
        const mine = outcome.broke.filter((b) => b.id === id);
        return mine.length > 0 ? broken(mine.map((b) => b.message).join('; ')) : { verdict: 'PASS' };
      }
      if (outcome.blocked) return blocked(outcome.blocked);
      return broken(outcome.error ?? (outcome.status === 'timedOut' ? 'timed out' : outcome.status));
    }
    case 'skipped':
      if (outcome.notApplicableReason !== undefined) return { verdict: 'NOT_APPLICABLE', reason: outcome.notApplicableReason };
      if (outcome.blocked) return blocked(outcome.blocked);
      return { verdict: 'SKIP', reason: outcome.skipReason ?? 'skipped without a reason (a defect of the check)' };
    case 'notRun':
      return { verdict: 'SKIP', reason: outcome.skipReason ?? 'not run' };
  }
}

/**
 * A requirement's verdict from its checks: any FAIL → FAIL; any WARN → WARN; any BLOCKED → BLOCKED
 * (the target broke something the check needed: said before a mere SKIP, and a partly verified
 * requirement is not a PASS); all NOT_APPLICABLE → NOT_APPLICABLE; any SKIP → SKIP; else PASS.
 * No check at all: UNCHECKED — or SKIP when the run was filtered (--grep, --shard) and the
 * requirement's checks were simply not selected.
 */
export function requirementVerdict(checks: Pick<CheckResult, 'verdict' | 'reason' | 'blockedBy'>[], filtered = false): CheckJudgement {
  if (checks.length === 0) {
    return filtered ? { verdict: 'SKIP', reason: 'no check of this requirement was selected in this run' } : { verdict: 'UNCHECKED', reason: 'no check cites this requirement' };
  }
  const first = (v: Verdict) => checks.find((c) => c.verdict === v);
  for (const v of ['FAIL', 'WARN'] as const) {
    const c = first(v);
    if (c) return { verdict: v, ...(c.reason ? { reason: c.reason } : {}) };
  }
  const blocked = first('BLOCKED');
  if (blocked) {
    const by = [...new Set(checks.flatMap((c) => (c.verdict === 'BLOCKED' ? c.blockedBy ?? [] : [])))].sort();
    return { verdict: 'BLOCKED', ...(blocked.reason ? { reason: blocked.reason } : {}), ...(by.length > 0 ? { blockedBy: by } : {}) };
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

/**
 * The run's verdict: FAIL on any FAIL or UNCHECKED (a hole in the suite), else WARN on any WARN,
 * else PASS. BLOCKED, like SKIP, does not decide it: the requirement that blocked a check fails
 * through its own check; `gate --require-verified` makes unverified requirements fail a build.
 */
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

/** A profile's declared interpretations as the report carries them: a non-string choice as its JSON text. */
export function reportedInterpretations(declared: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(declared)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
}

/**
 * An INTERPRETATION the profile did not declare is judged against the reference choice, which the
 * suite only assumed: a mismatch is then WARN, not FAIL (the target should declare its choice; a
 * declared one that the target does not keep FAILs). MUST requirements that merely cite an
 * interpretation stay FAIL: their MUST part holds whatever the choice.
 */
export function assumedInterpretation(judgement: CheckJudgement, requirement: Pick<Requirement, 'level' | 'interpretation'>, declared: ReadonlySet<string>): CheckJudgement {
  if (judgement.verdict !== 'FAIL' || requirement.level !== 'INTERPRETATION' || !requirement.interpretation) return judgement;
  const key = interpretationById(requirement.interpretation).key;
  if (declared.has(key)) return judgement;
  return { ...judgement, verdict: 'WARN', reason: `the profile declares no interpretations.${key} (${requirement.interpretation}), so the reference choice was assumed — declare the target's choice to have it judged as FAIL: ${judgement.reason ?? ''}` };
}

export function buildReport(catalogue: Requirement[], unsorted: CheckOutcome[], options: BuildOptions): ConformanceReport {
  const inScope = new Set(levelsFor(options.level));
  const known = new Map(catalogue.map((r) => [r.id, r]));
  const unknown = new Set<string>();
  const byRequirement = new Map<string, CheckResult[]>();
  // The interpretations the profile declared (the report keeps only those: the reference choice is the default).
  const declared = new Set(Object.keys(options.target.interpretations));
  const outcomes = [...unsorted].sort(compareOutcomes);
  for (const o of outcomes) {
    for (const id of o.requirementIds) {
      const r = known.get(id);
      if (!r) {
        unknown.add(id);
        continue;
      }
      const { verdict, reason, blockedBy } = assumedInterpretation(checkVerdict(o, r.level, id), r, declared);
      const list = byRequirement.get(id) ?? [];
      list.push({ title: o.title, ...(o.file ? { file: o.file } : {}), ...(o.project ? { project: o.project } : {}), verdict, durationMs: o.durationMs, ...(reason ? { reason } : {}), ...(blockedBy ? { blockedBy } : {}), ...(o.property ? { property: o.property } : {}) });
      byRequirement.set(id, list);
    }
  }
  const requirements: RequirementResult[] = catalogue
    .filter((r) => inScope.has(r.level))
    .map((r) => {
      const checks = byRequirement.get(r.id) ?? [];
      const { verdict, reason, blockedBy } = requirementVerdict(checks, options.filtered);
      return {
        id: r.id, level: r.level, area: r.area, source: r.source, statement: r.statement,
        ...(r.interpretation ? { interpretation: r.interpretation } : {}),
        verdict, ...(reason ? { reason } : {}), ...(blockedBy ? { blockedBy } : {}), checks,
      };
    });
  const counts = countVerdicts(requirements);
  const checkCounts = {
    passed: outcomes.filter((o) => o.status === 'passed').length,
    failed: outcomes.filter((o) => o.status === 'failed' || o.status === 'timedOut' || o.status === 'interrupted').length,
    skipped: outcomes.filter((o) => o.status === 'skipped' || o.status === 'notRun').length,
    total: outcomes.length,
  };
  // What the run cost the target (a shared staging counts it): the checks' requests, summed.
  const requests = outcomes.some((o) => o.requests !== undefined) ? outcomes.reduce((n, o) => n + (o.requests ?? 0), 0) : undefined;
  const blockedChecks = outcomes.filter((o) => o.blocked !== undefined && o.status !== 'passed' && !(o.broke && o.broke.length > 0) && o.notApplicableReason === undefined).length;
  return {
    reportVersion: 1,
    suiteVersion: options.suiteVersion,
    target: options.target,
    selection: { level: options.level, strict: options.strict, ...(options.grep ? { grep: options.grep } : {}), ...(options.shard ? { shard: options.shard } : {}) },
    startedAt: options.startedAt.toISOString(),
    durationMs: options.durationMs,
    verdict: overallVerdict(counts),
    summary: { ...counts, total: requirements.length },
    checks: { ...checkCounts, ...(blockedChecks > 0 ? { blocked: blockedChecks } : {}), ...(requests !== undefined ? { requests } : {}) },
    requirements,
    unknownRequirementIds: [...unknown].sort(),
    checksWithoutRequirement: outcomes.filter((o) => o.requirementIds.length === 0).map((o) => o.title),
    ...(options.regionParity ? { regionParity: options.regionParity } : {}),
  };
}
