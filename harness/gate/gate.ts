// The gate's decision, as a pure function of a (waived) report: what fails the build, and a
// break-glass override that passes it anyway while recording what was overridden, why, by whom.
import type { ConformanceReport } from '../reporter/report.schema.ts';
import { earliest } from '../reporter/verdict.ts';
import { unverifiedOf } from '../reporter/verification.ts';
import { blocks } from '../../requirements/levels.ts';

export interface Blocker {
  id: string;
  verdict: string;
  reason?: string;
  /** PENDING only: when a later run can settle it. */
  due?: string;
}

export interface BreakGlass {
  reason: string;
  actor: string;
  at: string;
  overridden: Blocker[];
}

export interface GateDecision {
  gateVersion: 1;
  decision: 'pass' | 'fail' | 'break-glass';
  exitCode: 0 | 1;
  /** The run's verdict after waivers. */
  verdict: ConformanceReport['verdict'];
  strict: boolean;
  report: string;
  decidedAt: string;
  target: string;
  suiteVersion: string;
  /** Requirements that fail the build (FAIL, UNCHECKED; WARN under --strict; unverified under --require-verified). */
  blocking: Blocker[];
  /** BLOCKED requirements (not verified: a check could not reach what it verifies). They block only under --require-verified. */
  blocked: Blocker[];
  /** PENDING requirements (an obligation recorded, settled by a later run), with their due times. */
  pending: Blocker[];
  /** --allow-pending: PENDING counts as verified under the coverage rule. */
  allowPending: boolean;
  /** The coverage rule (--require-verified), when given, and the requirements it found not verified. */
  coverage?: { rule: CoverageRule; required: number; unverified: Blocker[]; notVerifiable?: Blocker[] };
  /** WARNs that do not block (without --strict). */
  warnings: Blocker[];
  waived: { id: string; originalVerdict: string; owner: string; expires: string }[];
  expiredWaivers: string[];
  fixedWaivers: string[];
  /** Suite defects that fail the run's verdict on their own. */
  suiteDefects: string[];
  breakGlass?: BreakGlass;
  summary: ConformanceReport['summary'];
  waivers?: ConformanceReport['waivers'];
}

/** Who is breaking the glass: the CI's actor, else the login. */
export function actorFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.GITHUB_ACTOR ?? env.GITLAB_USER_LOGIN ?? env.BUILD_REQUESTEDFOR ?? env.USER ?? env.USERNAME ?? 'unknown';
}

/**
 * The coverage rule of `gate --require-verified`:
 *   must      every MUST and INTERPRETATION requirement of the report was verified;
 *   selected  every requirement the run selected (at least one of its checks ran) was verified;
 *   verifiable every MUST and INTERPRETATION requirement that the profile made verifiable was
 *             verified: one the profile does not declare what its checks need for (no burnable user,
 *             no clock control and no state file, …: harness/reporter/verification.ts) is listed with
 *             what would make it verifiable and does not block; one BLOCKED (by the target or by a
 *             refused credential of the profile), PENDING, not selected or skipped for another
 *             reason blocks — the rule a real staging without test controls can pass.
 * Verified: PASS, or a FAIL/WARN (a finding; waived or blocking on its own). Not verified: SKIP,
 * BLOCKED, PENDING, UNCHECKED, UNOBSERVED (an audit's) — those fail the gate under the rule. NOT_APPLICABLE counts as verified
 * (the run established that the requirement does not apply). A rule that covers no requirement at
 * all (a selection that matched nothing) fails too: a run that verified nothing is not green.
 * PENDING (an obligation a later run settles) counts as verified only with `allowPending`
 * (--allow-pending): the user accepts the verdict arriving later, from the scheduled run — which
 * still FAILs on its own if the obligation does not hold. A waiver never covers PENDING (like
 * BLOCKED, there is no deviation to accept).
 */
export const coverageRules = ['must', 'selected', 'verifiable'] as const;
export type CoverageRule = (typeof coverageRules)[number];
const unverifiedVerdicts = new Set(['SKIP', 'BLOCKED', 'PENDING', 'UNCHECKED', 'UNOBSERVED']);

/** The requirements the rule covers, and those of them not verified (PENDING among them unless allowed). */
export function coverage(
  report: ConformanceReport,
  rule: CoverageRule,
  allowPending = false,
): { required: number; unverified: Blocker[]; notVerifiable?: Blocker[] } {
  const isMust = (r: ConformanceReport['requirements'][number]) => blocks(r.level);
  const declaredOut = (r: ConformanceReport['requirements'][number]) =>
    rule === 'verifiable' && r.verdict === 'SKIP' && unverifiedOf(r)?.cause === 'not-declared';
  const inRule = report.requirements.filter(
    (r) => (rule === 'selected' ? r.checks.length > 0 : isMust(r)) && !declaredOut(r),
  );
  const what = rule === 'must' ? 'a MUST' : rule === 'verifiable' ? 'a MUST this profile makes verifiable' : 'selected';
  const unverified = inRule
    .filter((r) => unverifiedVerdicts.has(r.verdict) && !(allowPending && r.verdict === 'PENDING'))
    .map((r) => ({
      id: r.id,
      verdict: r.verdict,
      reason: `not verified (${what}): ${r.verdict === 'PENDING' && r.due && !(r.reason ?? '').includes(r.due) ? `due ${r.due}: ` : ''}${(r.reason ?? r.verdict).split('\n')[0]!.slice(0, 260)}`,
      ...(r.due ? { due: r.due } : {}),
    }));
  if (rule !== 'verifiable') return { required: inRule.length, unverified };
  const notVerifiable = report.requirements
    .filter((r) => isMust(r) && declaredOut(r))
    .map((r) => ({ id: r.id, verdict: r.verdict, reason: `not verifiable as declared: ${unverifiedOf(r)!.remedy!}` }));
  return { required: inRule.length, unverified, notVerifiable };
}

export interface DecideOptions {
  strict: boolean;
  /** The coverage rule (--require-verified); without it SKIP, BLOCKED and PENDING never block. */
  requireVerified?: CoverageRule;
  /** --allow-pending: under the coverage rule, PENDING counts as verified. */
  allowPending?: boolean;
  reportFile: string;
  now?: Date;
  breakGlass?: { reason: string; actor: string };
}

export function decide(report: ConformanceReport, options: DecideOptions): GateDecision {
  const now = options.now ?? new Date();
  const pick = (v: string) =>
    report.requirements
      .filter((r) => r.verdict === v)
      .map((r) => ({
        id: r.id,
        verdict: r.verdict,
        ...(r.reason ? { reason: r.reason.split('\n')[0]!.slice(0, 300) } : {}),
      }));
  const warns = pick('WARN');
  const allowPending = options.allowPending ?? false;
  const cover = options.requireVerified
    ? { rule: options.requireVerified, ...coverage(report, options.requireVerified, allowPending) }
    : undefined;
  const blocking = [
    ...pick('FAIL'),
    ...pick('UNCHECKED'),
    ...(options.strict ? warns : []),
    ...(cover?.unverified.filter((u) => u.verdict !== 'UNCHECKED') ?? []),
  ];
  const suiteDefects = [...report.unknownRequirementIds.map((id) => `a check cites unknown requirement ${id}`)];
  const nothingCovered = cover !== undefined && cover.required === 0;
  const failed =
    blocking.length > 0 || nothingCovered || report.verdict === 'FAIL' || (options.strict && report.verdict === 'WARN');
  const breakGlass =
    failed && options.breakGlass ? { ...options.breakGlass, at: now.toISOString(), overridden: blocking } : undefined;
  const entries = report.waivers?.entries ?? [];
  return {
    gateVersion: 1,
    decision: !failed ? 'pass' : breakGlass ? 'break-glass' : 'fail',
    exitCode: failed && !breakGlass ? 1 : 0,
    verdict: report.verdict,
    strict: options.strict,
    report: options.reportFile,
    decidedAt: now.toISOString(),
    target: report.target.name,
    suiteVersion: report.suiteVersion,
    blocking,
    blocked: pick('BLOCKED'),
    pending: report.requirements
      .filter((r) => r.verdict === 'PENDING')
      .map((r) => ({
        id: r.id,
        verdict: r.verdict,
        ...(r.reason ? { reason: r.reason.split('\n')[0]!.slice(0, 300) } : {}),
        ...(r.due ? { due: r.due } : {}),
      })),
    allowPending,
    ...(cover ? { coverage: cover } : {}),
    warnings: options.strict ? [] : warns,
    waived: report.requirements
      .filter((r) => r.verdict === 'WAIVED' && r.waiver)
      .map((r) => ({
        id: r.id,
        originalVerdict: r.waiver!.originalVerdict,
        owner: r.waiver!.owner,
        expires: r.waiver!.expires,
      })),
    expiredWaivers: entries.filter((e) => e.status === 'expired').map((e) => e.requirement),
    fixedWaivers: report.waivers?.fixed ?? [],
    suiteDefects,
    ...(breakGlass ? { breakGlass } : {}),
    summary: report.summary,
    ...(report.waivers ? { waivers: report.waivers } : {}),
  };
}

/** "declare a burnable user …: 3; add clock control or a state file …: 8" from not-verifiable blockers. */
function remedyCounts(list: Blocker[]): string {
  const counts = new Map<string, number>();
  for (const b of list) {
    const remedy = (b.reason ?? '').replace(/^not verifiable as declared: /, '');
    counts.set(remedy, (counts.get(remedy) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([remedy, n]) => `${remedy}: ${n}`)
    .join('; ');
}

const ids = (list: { id: string }[], max = 5) =>
  list.length <= max
    ? list.map((b) => b.id).join(' ')
    : `${list
        .slice(0, max)
        .map((b) => b.id)
        .join(' ')} … +${list.length - max}`;

/** The one line a CI log shows. */
export function gateLine(d: GateDecision, where: string): string {
  const counts = [
    `${d.blocking.filter((b) => b.verdict === 'FAIL').length} FAIL`,
    `${d.blocking.filter((b) => b.verdict === 'UNCHECKED').length} UNCHECKED`,
    `${d.blocking.filter((b) => b.verdict === 'WARN').length + d.warnings.length} WARN${d.strict ? ' (strict)' : ''}`,
    `${d.waived.length} WAIVED`,
  ];
  const unverified = d.blocking.filter(
    (b) => b.verdict === 'SKIP' || b.verdict === 'BLOCKED' || b.verdict === 'PENDING' || b.verdict === 'UNOBSERVED',
  );
  const soonest = earliest(d.pending.flatMap((p) => (p.due ? [p.due] : [])));
  const due = soonest ? `, earliest due ${soonest}` : '';
  const extra = [
    d.coverage && d.coverage.required === 0
      ? `--require-verified ${d.coverage.rule}: no requirement was verified (the selection matched nothing)`
      : '',
    d.coverage && unverified.length > 0
      ? `--require-verified ${d.coverage.rule}: ${unverified.length} not verified: ${ids(unverified, 12)}`
      : '',
    d.coverage?.notVerifiable && d.coverage.notVerifiable.length > 0
      ? `${d.coverage.notVerifiable.length} MUST not verifiable as declared (not blocking: ${remedyCounts(d.coverage.notVerifiable)})`
      : '',
    !d.coverage && d.blocked.length > 0
      ? `${d.blocked.length} BLOCKED (not verified; --require-verified makes them block): ${ids(d.blocked)}`
      : '',
    d.pending.length > 0 && (!d.coverage || d.allowPending)
      ? `${d.pending.length} PENDING (${d.allowPending ? 'allowed by --allow-pending' : 'not verified yet; --require-verified makes them block'}${due}): ${ids(d.pending)}`
      : d.pending.length > 0
        ? `${d.pending.length} of them PENDING${due} (--allow-pending accepts them)`
        : '',
    d.expiredWaivers.length > 0 ? `expired waivers: ${d.expiredWaivers.join(' ')}` : '',
    d.fixedWaivers.length > 0 ? `fixed (remove waiver): ${d.fixedWaivers.join(' ')}` : '',
  ].filter(Boolean);
  const tail = `${extra.length > 0 ? `; ${extra.join('; ')}` : ''} — ${where}`;
  if (d.decision === 'pass')
    return `GATE PASS: ${counts.join(', ')}${d.waived.length > 0 ? ` (${ids(d.waived)})` : ''}${tail}`;
  if (d.decision === 'fail')
    return `GATE FAIL: ${counts.join(', ')}${d.blocking.length > 0 ? ` — blocking: ${ids(d.blocking)}` : ''}${tail}`;
  return `GATE BREAK-GLASS: ${d.blocking.length} blocking requirement(s) overridden by ${d.breakGlass!.actor} ("${d.breakGlass!.reason}"): ${ids(d.blocking)}${tail}`;
}
