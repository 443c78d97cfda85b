// Verdicts, as pure functions: from the outcome of each check (a Playwright test) to a verdict per
// check, per requirement, and for the run. The reporter feeds them; the unit tests table-drive them.
import { interpretationById } from '../../requirements/index.ts';
import { brokenVerdict, levelsFor, type LevelSelection } from '../../requirements/levels.ts';
import type { Requirement, RequirementLevel } from '../../requirements/types.ts';
import type {
  CheckResult,
  ConformanceReport,
  PendingObligation,
  PropertyRun,
  RequirementResult,
  Settlement,
  Verdict,
} from './report.schema.ts';
import { verdicts } from './report.schema.ts';
import { assumedWording, type AssumedChoice } from '../../core/run/check-annotations.ts';
import { unverifiedOf, verificationOf } from './verification.ts';
import { findingsOf } from './findings.ts';
import { assumptionsOf } from './declare-these.ts';

export type CheckStatus = 'passed' | 'failed' | 'timedOut' | 'interrupted' | 'skipped' | 'notRun';

/** What the reporter knows of one check after the run. */
export interface CheckOutcome {
  title: string;
  file?: string;
  project?: string;
  requirementIds: string[];
  status: CheckStatus;
  durationMs: number;
  /** When the check started (ISO 8601) and Playwright's index of the worker that ran it: where a run's wall time went (`run --timings`). */
  startedAt?: string;
  workerIndex?: number;
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
  /** Requests the check sent again because the first had no answer within its deadline (absent: none). */
  sentAgain?: number;
  /**
   * The check could not reach the behaviour it verifies: a failed precondition (the `precondition` annotation), or
   * markBlocked() (fixtures/clients/blocking.ts). `by`: the requirement(s) whose violation blocked it.
   */
  blocked?: { reason: string; by?: string[]; profile?: string; evidence?: boolean };
  /** The check's transcript files, relative to the reports directory. */
  transcripts?: string[];
  /**
   * `broke` annotations of a failed check: the requirements it found broken, each with its own
   * message. Only these read FAIL/WARN; the check's other requirements read PASS (it verified them).
   */
  broke?: { id: string; message: string }[];
  /** `pending` annotations: obligations the check recorded (or that stay open) for a later run to settle. */
  pending?: PendingObligation[];
  /** `settled` annotations: obligations of earlier runs the check settled in this run. */
  settled?: Settlement[];
  /** `pending`/`settled` annotations the reporter could not read: the check is not taken as verified. */
  malformed?: { type: string; problem: string }[];
  /** An audit judge no exchange exercised (skipped): UNOBSERVED with this reason, never PASS. */
  unobservedReason?: string;
  /**
   * `assumed` annotations of a failed check: the failing assertion relied on a choice the profile
   * did not declare, so its requirements (those listed, else all the check's) read WARN, not FAIL.
   */
  assumed?: AssumedChoice[];
  /**
   * The check failed on an exception of the suite itself (a client's argument error, a parse error,
   * a stack overflow): not the target's failure. Its requirements read UNCHECKED with this error.
   */
  suiteError?: string;
  /** The run's deadline passed before the check finished: its requirements read UNCHECKED with this reason. */
  unfinished?: string;
}

/**
 * The assumed choices a failure of requirement `id` relied on. A failure that relied on a choice
 * the profile did not declare is a WARN at any level: the target may have chosen otherwise.
 */
export function assumedFor(outcome: Pick<CheckOutcome, 'assumed'>, id: string | undefined): AssumedChoice[] {
  const unique = new Map(
    (outcome.assumed ?? [])
      .filter((a) => id === undefined || !a.requirements || a.requirements.includes(id))
      .map((a) => [`${a.choice}\u0000${a.declare}`, a]),
  );
  return [...unique.values()];
}

/** A failure on assumed choices: WARN, its reason led by what was assumed and what to declare. */
function assumedJudgement(assumed: AssumedChoice[], reason: string): CheckJudgement {
  return {
    verdict: 'WARN',
    reason: `${assumed.map(assumedWording).join('; ')}: ${reason}`,
    assumed: assumed.map(({ choice, declare }) => ({ choice, declare })),
  };
}

/** `'<REQ-ID> — <message>'` (an em dash, or a plain ` - ` as a fallback) → its parts; undefined if malformed. */
export function parseBroke(description: string): { id: string; message: string } | undefined {
  const m = /^\s*([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)\s*(?:—|--|-|:)\s*([\s\S]*)$/.exec(description);
  return m ? { id: m[1]!, message: m[2]!.trim() || 'broken (no message)' } : undefined;
}

export type Level = LevelSelection;
export { brokenVerdict, levelsFor };

export interface CheckJudgement {
  verdict: Verdict;
  reason?: string;
  blockedBy?: string[];
  /** BLOCKED by the profile: the profile field whose credential the target refused. */
  blockedByProfile?: string;
  /** PENDING only: the earliest due time. */
  due?: string;
  /** WARN on assumed choices only: the choices the profile did not declare that the failure relied on. */
  assumed?: { choice: string; declare: string }[];
}

/** "recorded in run R at T, settled at T′" — what a settlement adds to its requirement's detail. */
export function settlementDetail(s: Settlement): string {
  return `obligation ${s.obligation} recorded in run ${s.recordedRun} at ${s.recordedAt}, settled at ${s.settledAt}`;
}

/** `text` with the settlement's detail after it, unless it says when it was settled already (the settling fixture's reasons do). */
export function withSettlementDetail(text: string, s: Settlement): string {
  return text.includes(`settled at ${s.settledAt}`) ? text : `${text} (${settlementDetail(s)})`;
}

/** The earliest of ISO times (compared as instants). */
export function earliest(times: readonly string[]): string | undefined {
  return [...times].sort((a, b) => Date.parse(a) - Date.parse(b))[0];
}

/** The earliest due time of a report's PENDING requirements (the closing line, HTML, gate). */
export function earliestDue(report: Pick<ConformanceReport, 'requirements'>): string | undefined {
  return earliest(report.requirements.filter((r) => r.verdict === 'PENDING' && r.due !== undefined).map((r) => r.due!));
}

/** PENDING with the earliest due obligation's time and what it checks, plus how many more. */
function pendingJudgement(pending: PendingObligation[], voided: Settlement[] = []): CheckJudgement {
  const first = [...pending].sort((a, b) => Date.parse(a.due) - Date.parse(b.due))[0]!;
  const more = pending.length > 1 ? ` (+${pending.length - 1} more obligation${pending.length > 2 ? 's' : ''})` : '';
  const voidNote = voided.map((v) => `; not settled: ${withSettlementDetail(v.reason ?? 'void', v)}`).join('');
  return { verdict: 'PENDING', due: first.due, reason: `due ${first.due}: ${first.what}${more}${voidNote}` };
}

/**
 * The verdict of a check that did not fail, from its obligations. Inside one check the settlement
 * of this run decides: a FAIL settlement is a FAIL even if the check forgot to fail; a PASS
 * settlement is a PASS (an obligation recorded anew beside it only re-verifies the same aspect
 * later); else an open obligation is PENDING; else a VOID settlement is SKIP with its reason.
 * Undefined when the check carries no obligation.
 */
function obligationJudgement(
  outcome: CheckOutcome,
  broken: (reason: string) => CheckJudgement,
): CheckJudgement | undefined {
  const settled = outcome.settled ?? [];
  const pending = outcome.pending ?? [];
  const failedSettlements = settled.filter((s) => s.outcome === 'FAIL');
  if (failedSettlements.length > 0)
    return broken(
      failedSettlements.map((s) => withSettlementDetail(s.reason ?? 'the obligation did not hold', s)).join('; '),
    );
  const passed = settled.filter((s) => s.outcome === 'PASS');
  if (passed.length > 0) {
    const next = pending.length > 0 ? `; next obligation due ${earliest(pending.map((p) => p.due))}` : '';
    return {
      verdict: 'PASS',
      reason: `settled: ${passed.map((s) => (s.reason ? withSettlementDetail(s.reason, s) : settlementDetail(s))).join('; ')}${next}`,
    };
  }
  const voided = settled.filter((s) => s.outcome === 'VOID');
  if (pending.length > 0) return pendingJudgement(pending, voided);
  if (voided.length > 0)
    return {
      verdict: 'SKIP',
      reason: voided.map((v) => `not settled: ${withSettlementDetail(v.reason ?? 'void', v)}`).join('; '),
    };
  return undefined;
}

/**
 * One check's verdict for one of its requirements (`id`):
 *   passed → PASS;
 *   failed with `broke` annotations → FAIL/WARN for the IDs they name (their own messages), PASS for the others;
 *   failed precondition (a `setup:` assertion), or markBlocked → BLOCKED with the reason and `blockedBy` — except for
 *     a requirement that is itself the blocker (`by`): the check found it broken, so FAIL/WARN;
 *   any other failure → FAIL (MUST, INTERPRETATION) or WARN (SHOULD, ADVISORY);
 *   skipped → NOT_APPLICABLE, BLOCKED (as above) or SKIP; not run → SKIP;
 *   passed or skipped with obligations (`pending`/`settled` annotations): see obligationJudgement —
 *     PENDING with the earliest due time, or the settlement's PASS/FAIL/SKIP (VOID);
 *   failed with a FAIL settlement → FAIL/WARN whose reason carries "recorded in run R at T, settled at T′";
 *   an unreadable `pending`/`settled` annotation on a check that did not fail → SKIP (not verified);
 *   failed on an exception of the suite itself (`suiteError`), not finished by the run's deadline
 *     (`unfinished`), or out of its own time limit without a finding → UNCHECKED with that reason:
 *     never the target's FAIL.
 */
export function checkVerdict(outcome: CheckOutcome, level: RequirementLevel, id?: string): CheckJudgement {
  const broken = (reason: string): CheckJudgement => ({ verdict: brokenVerdict(level), reason });
  const blocked = (b: NonNullable<CheckOutcome['blocked']>): CheckJudgement => {
    if (id !== undefined && b.by?.includes(id)) return broken(b.reason);
    return {
      verdict: 'BLOCKED',
      reason: b.reason,
      ...(b.by && b.by.length > 0 ? { blockedBy: b.by } : {}),
      ...(b.profile !== undefined ? { blockedByProfile: b.profile } : {}),
    };
  };
  const malformed =
    outcome.malformed && outcome.malformed.length > 0
      ? {
          verdict: 'SKIP' as const,
          reason: `reporter error: ${outcome.malformed.map((m) => `unreadable '${m.type}' annotation (${m.problem})`).join('; ')} — not verified`,
        }
      : undefined;
  // A failure that settled an obligation says when it was recorded and settled (once).
  const failSettlements = (outcome.settled ?? []).filter((s) => s.outcome === 'FAIL');
  const withFailDetail = (text: string) => failSettlements.reduce((t, s) => withSettlementDetail(t, s), text);
  if (outcome.unfinished !== undefined) return { verdict: 'UNCHECKED', reason: outcome.unfinished };
  switch (outcome.status) {
    case 'passed':
      return malformed ?? obligationJudgement(outcome, broken) ?? { verdict: 'PASS' };
    case 'failed':
    case 'timedOut':
    case 'interrupted': {
      // Assumed choices speak for broke annotations only when listed for that requirement.
      if (outcome.broke && outcome.broke.length > 0) {
        const mine = outcome.broke.filter((b) => b.id === id);
        if (mine.length === 0) return { verdict: 'PASS' };
        const message = withFailDetail(mine.map((b) => b.message).join('; '));
        const assumed = assumedFor(outcome, id).filter((a) => a.requirements !== undefined);
        return assumed.length > 0 ? assumedJudgement(assumed, message) : broken(message);
      }
      if (outcome.blocked) return blocked(outcome.blocked);
      if (outcome.suiteError !== undefined)
        return { verdict: 'UNCHECKED', reason: `suite error, not the target's: ${outcome.suiteError}` };
      // Out of its time with no finding of its own: a request the target leaves unanswered fails on
      // its own deadline, naming the target; a check that merely ran out of time (a busy machine, its
      // teardown closing the requests in flight) verified nothing — unverified, never a FAIL.
      if (outcome.status === 'timedOut')
        return {
          verdict: 'UNCHECKED',
          reason: `not finished within the check's time limit (${(outcome.error ?? 'timed out').split('\n')[0]}): unverified, not a finding of the target`,
        };
      const message = withFailDetail(outcome.error ?? outcome.status);
      const assumed = assumedFor(outcome, id);
      return assumed.length > 0 && outcome.status === 'failed' ? assumedJudgement(assumed, message) : broken(message);
    }
    case 'skipped':
      if (outcome.unobservedReason !== undefined) return { verdict: 'UNOBSERVED', reason: outcome.unobservedReason };
      if (outcome.notApplicableReason !== undefined)
        return { verdict: 'NOT_APPLICABLE', reason: outcome.notApplicableReason };
      if (outcome.blocked) return blocked(outcome.blocked);
      return (
        malformed ??
        obligationJudgement(outcome, broken) ?? {
          verdict: 'SKIP',
          reason: outcome.skipReason ?? 'skipped without a reason (a defect of the check)',
        }
      );
    case 'notRun':
      return { verdict: 'SKIP', reason: outcome.skipReason ?? 'not run' };
  }
}

/**
 * A requirement's verdict from its checks: any FAIL → FAIL; any WARN → WARN; any UNCHECKED (a check
 * the suite did not finish: its own error, the run's deadline) → UNCHECKED; any BLOCKED → BLOCKED
 * (the target broke something the check needed: said before a mere SKIP, and a partly verified
 * requirement is not a PASS); all NOT_APPLICABLE → NOT_APPLICABLE; then obligations: a PASS
 * settlement → PASS (with "recorded in run R at T, settled at T′", and the next due time when an
 * obligation was recorded anew); any PENDING → PENDING (with the earliest due time); then any
 * SKIP → SKIP; else PASS.
 * No check at all: UNCHECKED — or SKIP when the run was filtered (--grep, --shard) and the
 * requirement's checks were simply not selected.
 *
 * Where obligations sit, and why:
 *   - below FAIL/WARN/BLOCKED: a finding, or a blocker, in this run is said first (a FAIL
 *     settlement is a FAIL like any other);
 *   - PENDING above a plain PASS: a PASS from another check (another part of the requirement) does
 *     not make the pending part verified — the obligation may still settle to FAIL;
 *   - PENDING above SKIP: a time-dependent requirement's checks are a clock-based one (SKIP without
 *     clock control) and an obligation-based one, and a settling check has nothing to settle in
 *     some runs (SKIP): the obligation is what this run can say of the rule, with when it will know;
 *   - a PASS settlement above PENDING and SKIP: the time-dependent rule was observed to hold in this
 *     run (the catalogue gives each such rule its own ID), and an obligation recorded anew beside it
 *     only re-verifies it later — without this, a scheduled run that settles one obligation and
 *     records the next would read PENDING forever.
 */
export function requirementVerdict(
  checks: Pick<CheckResult, 'verdict' | 'reason' | 'blockedBy' | 'blockedByProfile' | 'due' | 'settled'>[],
  filtered = false,
): CheckJudgement {
  if (checks.length === 0) {
    return filtered
      ? { verdict: 'SKIP', reason: 'no check of this requirement was selected in this run' }
      : { verdict: 'UNCHECKED', reason: 'no check cites this requirement' };
  }
  const first = (v: Verdict) => checks.find((c) => c.verdict === v);
  // A check the suite could not finish (its own error, the run's deadline) leaves the requirement unverified: said before BLOCKED.
  for (const v of ['FAIL', 'WARN', 'UNCHECKED'] as const) {
    const c = first(v);
    if (c) return { verdict: v, ...(c.reason ? { reason: c.reason } : {}) };
  }
  // Blocked by the target is said before blocked by the profile: fixing the profile would not verify it.
  const blocked = checks.find((c) => c.verdict === 'BLOCKED' && c.blockedByProfile === undefined) ?? first('BLOCKED');
  if (blocked) {
    const by = [...new Set(checks.flatMap((c) => (c.verdict === 'BLOCKED' ? (c.blockedBy ?? []) : [])))].sort();
    return {
      verdict: 'BLOCKED',
      ...(blocked.reason ? { reason: blocked.reason } : {}),
      ...(by.length > 0 ? { blockedBy: by } : {}),
      ...(blocked.blockedByProfile !== undefined ? { blockedByProfile: blocked.blockedByProfile } : {}),
    };
  }
  if (checks.every((c) => c.verdict === 'NOT_APPLICABLE'))
    return { verdict: 'NOT_APPLICABLE', ...(checks[0]?.reason ? { reason: checks[0].reason } : {}) };
  const pending = checks.filter((c) => c.verdict === 'PENDING');
  const dueOf = (c: (typeof checks)[number]) => (c.due === undefined ? Number.POSITIVE_INFINITY : Date.parse(c.due));
  const soonest = [...pending].sort((a, b) => dueOf(a) - dueOf(b))[0];
  const settledPass = checks.find((c) => c.verdict === 'PASS' && c.settled?.some((st) => st.outcome === 'PASS'));
  if (settledPass) {
    const detail =
      settledPass.reason ??
      `settled: ${settledPass
        .settled!.filter((st) => st.outcome === 'PASS')
        .map(settlementDetail)
        .join('; ')}`;
    const next =
      soonest?.due !== undefined && !detail.includes('next obligation due')
        ? `; next obligation due ${soonest.due}`
        : '';
    return { verdict: 'PASS', reason: `${detail}${next}` };
  }
  // The soonest obligation speaks for the requirement: when a later run can first say more.
  if (soonest)
    return {
      verdict: 'PENDING',
      ...(soonest.reason ? { reason: soonest.reason } : {}),
      ...(soonest.due ? { due: soonest.due } : {}),
    };
  // An audit: a requirement some exchange did not exercise is not observed conformant.
  const unobserved = first('UNOBSERVED');
  if (unobserved) return { verdict: 'UNOBSERVED', ...(unobserved.reason ? { reason: unobserved.reason } : {}) };
  const skip = first('SKIP');
  if (skip) return { verdict: 'SKIP', ...(skip.reason ? { reason: skip.reason } : {}) };
  return { verdict: 'PASS' };
}

export type Counts = Record<Exclude<Verdict, 'UNOBSERVED'>, number> & { UNOBSERVED?: number; WAIVED?: number };

/** Requirements per verdict; UNOBSERVED only when some requirement has it (audit reports). */
export function countVerdicts(results: Pick<RequirementResult, 'verdict'>[]): Counts {
  const counts = Object.fromEntries(verdicts.filter((v) => v !== 'UNOBSERVED').map((v) => [v, 0])) as Counts;
  for (const r of results) {
    if (r.verdict === 'WAIVED') counts.WAIVED = (counts.WAIVED ?? 0) + 1;
    else if (r.verdict === 'UNOBSERVED') counts.UNOBSERVED = (counts.UNOBSERVED ?? 0) + 1;
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
  /** Profile errors the preflight found: the report opens with them. */
  profileProblems?: string[];
}

/** Canonical order of check outcomes (title, then project): a run and the merge of its shards list checks alike. */
export function compareOutcomes(
  a: Pick<CheckOutcome, 'title' | 'project'>,
  b: Pick<CheckOutcome, 'title' | 'project'>,
): number {
  const key = (o: Pick<CheckOutcome, 'title' | 'project'>) => `${o.title}\u0000${o.project ?? ''}`;
  const ka = key(a);
  const kb = key(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** A profile's declared interpretations as the report carries them: a non-string choice as its JSON text. */
export function reportedInterpretations(declared: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(declared)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
}

/**
 * An INTERPRETATION the profile did not declare is judged against the reference choice, which the
 * suite only assumed: a mismatch is then WARN, not FAIL (the target should declare its choice; a
 * declared one that the target does not keep FAILs). MUST requirements that merely cite an
 * interpretation stay FAIL: their MUST part holds whatever the choice.
 */
export function assumedInterpretation(
  judgement: CheckJudgement,
  requirement: Pick<Requirement, 'level' | 'interpretation'>,
  declared: ReadonlySet<string>,
): CheckJudgement {
  if (judgement.verdict !== 'FAIL' || requirement.level !== 'INTERPRETATION' || !requirement.interpretation)
    return judgement;
  const { key, default: reference } = interpretationById(requirement.interpretation);
  if (declared.has(key)) return judgement;
  const quoted =
    typeof reference === 'string' || typeof reference === 'number' ? String(reference) : JSON.stringify(reference);
  return {
    ...judgement,
    verdict: 'WARN',
    assumed: [{ choice: `${key}=${quoted}`, declare: `interpretations.${key}` }],
    reason: `the profile declares no interpretations.${key} (${requirement.interpretation}), so the reference choice was assumed — declare the target's choice to have it judged as FAIL: ${judgement.reason ?? ''}`,
  };
}

/**
 * An obligation settled anywhere in the run is no longer open anywhere in it: a `pending` of the
 * same obligation (a shard, or a first pass, that saw it before the settling check ran) is dropped.
 */
export function withoutSettledPending(outcomes: CheckOutcome[]): CheckOutcome[] {
  const settled = new Set(outcomes.flatMap((o) => (o.settled ?? []).map((s) => s.obligation)));
  if (settled.size === 0) return outcomes;
  return outcomes.map((o) => {
    if (!o.pending?.some((p) => settled.has(p.obligation))) return o;
    const { pending, ...rest } = o;
    const open = pending.filter((p) => !settled.has(p.obligation));
    return open.length > 0 ? { ...rest, pending: open } : rest;
  });
}

/**
 * A check BLOCKED with evidence (markBlocked's `evidence`): what it saw violates its blocker by
 * itself, so the blocker gets a FAIL (WARN, for a SHOULD/ADVISORY) from this check — the blocker is
 * judged in the same report even where its own checks could not show it (a refresh token issued by
 * a refresh, refused on its first use: GRANT-RT-001's own check refreshes only once). A blocker the
 * check cites itself FAILs through checkVerdict already.
 */
export function blockerEvidence(
  o: CheckOutcome,
  known: ReadonlyMap<string, Requirement>,
  inScope: ReadonlySet<RequirementLevel>,
): { id: string; result: CheckResult }[] {
  if (
    !o.blocked?.evidence ||
    o.status === 'passed' ||
    (o.broke && o.broke.length > 0) ||
    o.notApplicableReason !== undefined
  )
    return [];
  return (o.blocked.by ?? [])
    .filter((id) => !o.requirementIds.includes(id))
    .flatMap((id) => {
      const r = known.get(id);
      if (!r || !inScope.has(r.level)) return [];
      return [
        {
          id,
          result: {
            title: o.title,
            ...(o.file ? { file: o.file } : {}),
            ...(o.project ? { project: o.project } : {}),
            verdict: brokenVerdict(r.level),
            durationMs: o.durationMs,
            reason: `seen by this check, which it blocked: ${o.blocked!.reason}`,
          },
        },
      ];
    });
}

export function buildReport(
  catalogue: Requirement[],
  unsorted: CheckOutcome[],
  options: BuildOptions,
): ConformanceReport {
  const inScope = new Set(levelsFor(options.level));
  const known = new Map(catalogue.map((r) => [r.id, r]));
  const unknown = new Set<string>();
  const byRequirement = new Map<string, CheckResult[]>();
  // The interpretations the profile declared (the report keeps only those: the reference choice is the default).
  const declared = new Set(Object.keys(options.target.interpretations));
  const outcomes = withoutSettledPending([...unsorted].sort(compareOutcomes));
  for (const o of outcomes) {
    for (const id of o.requirementIds) {
      const r = known.get(id);
      if (!r) {
        unknown.add(id);
        continue;
      }
      const { verdict, reason, blockedBy, blockedByProfile, due, assumed } = assumedInterpretation(
        checkVerdict(o, r.level, id),
        r,
        declared,
      );
      const list = byRequirement.get(id) ?? [];
      list.push({
        title: o.title,
        ...(o.file ? { file: o.file } : {}),
        ...(o.project ? { project: o.project } : {}),
        verdict,
        durationMs: o.durationMs,
        ...(reason ? { reason } : {}),
        ...(blockedBy ? { blockedBy } : {}),
        ...(blockedByProfile !== undefined ? { blockedByProfile } : {}),
        ...(due ? { due } : {}),
        ...(assumed ? { assumed } : {}),
        ...(o.transcripts && o.transcripts.length > 0 ? { transcripts: o.transcripts } : {}),
        ...(o.property ? { property: o.property } : {}),
        ...(o.pending && o.pending.length > 0 ? { pending: o.pending } : {}),
        ...(o.settled && o.settled.length > 0 ? { settled: o.settled } : {}),
      });
      byRequirement.set(id, list);
    }
    for (const { id, result } of blockerEvidence(o, known, inScope)) {
      const { verdict, reason, assumed } = assumedInterpretation(result, known.get(id)!, declared);
      byRequirement.set(id, [
        ...(byRequirement.get(id) ?? []),
        { ...result, verdict, ...(reason ? { reason } : {}), ...(assumed ? { assumed } : {}) },
      ]);
    }
  }
  const requirements: RequirementResult[] = catalogue
    .filter((r) => inScope.has(r.level))
    .map((r) => {
      const checks = byRequirement.get(r.id) ?? [];
      const { verdict, reason, blockedBy, blockedByProfile, due } = requirementVerdict(checks, options.filtered);
      const settled = checks.flatMap((c) => c.settled ?? []);
      const unverified = unverifiedOf({
        verdict,
        ...(reason ? { reason } : {}),
        ...(blockedByProfile !== undefined ? { blockedByProfile } : {}),
      });
      return {
        id: r.id,
        level: r.level,
        area: r.area,
        source: r.source,
        statement: r.statement,
        ...(r.interpretation ? { interpretation: r.interpretation } : {}),
        verdict,
        ...(reason ? { reason } : {}),
        ...(blockedBy ? { blockedBy } : {}),
        ...(blockedByProfile !== undefined ? { blockedByProfile } : {}),
        ...(unverified ? { unverified } : {}),
        ...(due ? { due } : {}),
        ...(settled.length > 0 ? { settled } : {}),
        checks,
      };
    });
  const counts = countVerdicts(requirements);
  const checkCounts = {
    passed: outcomes.filter((o) => o.status === 'passed').length,
    failed: outcomes.filter((o) => o.status === 'failed' || o.status === 'timedOut' || o.status === 'interrupted')
      .length,
    skipped: outcomes.filter((o) => o.status === 'skipped' || o.status === 'notRun').length,
    total: outcomes.length,
  };
  // What the run cost the target (a shared staging counts it): the checks' requests, summed.
  const requests = outcomes.some((o) => o.requests !== undefined)
    ? outcomes.reduce((n, o) => n + (o.requests ?? 0), 0)
    : undefined;
  // Counted beside them, 0 included: a request left without an answer is kept in sight even when
  // its re-send kept the verdict clean.
  const sentAgain = outcomes.reduce((n, o) => n + (o.sentAgain ?? 0), 0);
  const malformed = outcomes.flatMap((o) => (o.malformed ?? []).map((m) => ({ check: o.title, ...m })));
  const blockedChecks = outcomes.filter(
    (o) =>
      o.blocked !== undefined &&
      o.status !== 'passed' &&
      !(o.broke && o.broke.length > 0) &&
      o.notApplicableReason === undefined,
  ).length;
  return {
    reportVersion: 1,
    suiteVersion: options.suiteVersion,
    target: options.target,
    selection: {
      level: options.level,
      strict: options.strict,
      ...(options.grep ? { grep: options.grep } : {}),
      ...(options.shard ? { shard: options.shard } : {}),
    },
    startedAt: options.startedAt.toISOString(),
    durationMs: options.durationMs,
    verdict: overallVerdict(counts),
    summary: { ...counts, total: requirements.length },
    checks: {
      ...checkCounts,
      ...(blockedChecks > 0 ? { blocked: blockedChecks } : {}),
      ...(requests !== undefined ? { requests, sentAgain } : {}),
    },
    verification: verificationOf(requirements),
    ...(options.profileProblems && options.profileProblems.length > 0
      ? { profileProblems: options.profileProblems }
      : {}),
    requirements,
    unknownRequirementIds: [...unknown].sort(),
    checksWithoutRequirement: outcomes.filter((o) => o.requirementIds.length === 0).map((o) => o.title),
    ...(malformed.length > 0 ? { malformedAnnotations: malformed } : {}),
    ...(options.regionParity ? { regionParity: options.regionParity } : {}),
    ...causesOf(requirements),
  };
}

/** The report's `findings` (what the target broke, by cause) and `assumptions` (what to declare), when any. */
export function causesOf(
  requirements: readonly RequirementResult[],
): Pick<ConformanceReport, 'findings' | 'assumptions'> {
  const findings = findingsOf(requirements);
  const assumptions = assumptionsOf(requirements);
  return {
    ...(findings.length > 0 ? { findings } : {}),
    ...(assumptions.length > 0 ? { assumptions } : {}),
  };
}
