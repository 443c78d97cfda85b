// The annotation types a check writes (through fixtures/) and the conformance reporter reads to
// shape its verdict (harness/reporter/verdict.ts): the contract between the two sides of a run.
/**
 * The prefix a check author gives a precondition assertion (`expect(x, 'setup: …')`): the test API
 * (fixtures/matchers.ts) marks such an assertion's failure as a precondition (BLOCKED, not FAIL)
 * with a `precondition` annotation. The reporter reads the annotation, never the error's text.
 */
export const setupPrefix = 'setup:';

export const verdictAnnotations = {
  /** markBlocked(): the reason. */
  blocked: 'blocked',
  /** markBlocked(…, { by }): one per requirement whose violation blocked the check. */
  blockedBy: 'blocked-by',
  /** markBlocked(…, { profile }): the profile field that blocked the check — a credential the target refused, or a declaration the check cannot use (blocked by the profile, not the target). */
  blockedByProfile: 'blocked-by-profile',
  /**
   * markBlocked(…, { by, evidence: true }): what the check saw violates its blocker by itself (a token
   * refused where the blocker's statement says it is issued), so the blocker FAILs on this evidence
   * in the same report even where its own check could not show it.
   */
  blockedEvidence: 'blocked-evidence',
  /** `'<REQ-ID> — <message>'`, one per requirement a failed check found broken (only those FAIL/WARN). */
  broke: 'broke',
  /**
   * The check failed, and its first error is one the test API threw as a precondition: `setup` (a
   * `setup:` assertion, or a precondition the fixtures found unmet) or `blocked` (markBlocked's
   * skip, caught and turned into a failure by code between it and Playwright). Written by the
   * `target`-level fixture at the end of the check (fixtures/clients/precondition.ts).
   */
  precondition: 'precondition',
  /** The number of HTTP requests the check sent (the `http` fixture counts its transcript). */
  requests: 'requests',
  /**
   * One per request the check sent again because the first had no answer within its deadline
   * (fixtures/support/properties/property-runner.ts RequestDeadline), or because its reused
   * keep-alive connection closed before any answer (fixtures/http/connection-reuse.ts); the
   * description says which and what came of it. The report counts them: a re-send keeps a verdict clean on a slow moment,
   * and the count keeps the slowness in sight.
   */
  sentAgain: 'sent-again',
  /** JSON `{ obligation, due, what }`: the check recorded an obligation; its requirements read PENDING. */
  pending: 'pending',
  /** JSON `{ obligation, recordedRun, recordedAt, settledAt, outcome, reason }`: the check settled an earlier run's obligation. */
  settled: 'settled',
  /**
   * JSON AssumedChoice: the check failed on a choice the profile did not declare (the reference
   * choice was assumed), so the failure reads WARN naming what to declare, at any level.
   */
  assumed: 'assumed',
} as const;

/**
 * A sub-choice a failed assertion relied on that the profile did not declare: `choice` as the
 * report quotes it (`nonPostTokenRequest=405`), `declare` the profile field that would declare it
 * (`interpretations.nonPostTokenRequest`), and the requirements it covers (all the check's when absent).
 */
export interface AssumedChoice {
  choice: string;
  declare: string;
  requirements?: string[];
}

/** The words every report uses for a choice the profile did not declare. */
export function assumedWording(a: Pick<AssumedChoice, 'choice' | 'declare'>): string {
  return `assumed (reference choice) ${a.choice}; declare \`${a.declare}\` if your target chose otherwise`;
}
