// Brute-force protection at the token endpoint (RFC 6749 §4.3.2 for passwords, §2.3.1 for client
// secrets; LIMIT-RATE-003 for passwords, client secrets uncatalogued), built so that a stranger cannot turn it against a client
// or a user. Two bounds, both keyed by the source (the caller's network address):
//
// 1. Per (principal, source): consecutive failed attempts for one username (password grant) or
//    client_id (client authentication) from one source. At the threshold that pair is locked for
//    the lock window: every attempt from that source for that principal is refused before any
//    secret is verified (so the right password is refused too) with 429 and `Retry-After`. A
//    verified secret ends the run. The same principal from another source is not affected: a
//    stranger who sends wrong secrets for a client id (client ids are in every access token)
//    locks only himself out of it, never the client.
// 2. Per source (SourceBudget, in memory): the failures one source may spend, whatever the
//    principals, refilled over the lock window. When spent, every attempt from that source gets
//    429 before any lookup or hashing: the scrypt work and the stored rows one source can cause
//    are bounded, however many client ids or usernames it tries.
//
// - Names are counted whether or not they exist, so that a lock says nothing about which
//   accounts exist (OI-10: no account enumeration). Names that cannot be a client id or username
//   (credential-syntax.ts) never get here.
// - A run of failures is forgotten after a lock window without failures, so that a few typos
//   spread over weeks never add up to a lock.
// - The per-pair counts live in the store: processes sharing one data file share them. The check
//   and the count are not one transaction: N requests in flight at the moment of the lock may still
//   be verified (at most N extra guesses), which does not matter for a brute-force bound.
// - What it does not stop: guessing spread over many sources, each under its bounds. A lock per
//   principal whatever the source would stop that, and would hand every stranger a switch that
//   locks out any client or user he can name; see reference-server/README.md.
import { TooManyAttempts } from './errors.ts';
import type { AttemptPrincipal, Store } from './ports.ts';
import { SourceBudget } from './source-budget.ts';

export interface AttemptThrottleSettings {
  /** Consecutive failed passwords for one username from one source before that pair is locked. */
  userFailures: number;
  /** Consecutive failed client authentications for one client_id from one source before that pair is locked. */
  clientFailures: number;
  /** How long a lock lasts, and how long without failures before a run is forgotten. */
  lockSeconds: number;
  /** Failed attempts one source may spend per lock window, whatever the principals (SourceBudget). */
  sourceFailures: number;
}

export const defaultAttemptThrottleSettings: AttemptThrottleSettings = {
  userFailures: 10,
  clientFailures: 50,
  lockSeconds: 900,
  sourceFailures: 1000,
};

export type ThrottleStore = Pick<
  Store,
  'findFailedAttempts' | 'recordFailedAttempt' | 'lockPrincipal' | 'clearFailedAttempts'
>;

/**
 * What assertNotLocked saw, for recordSuccess: whether the principal had no run of failures, and
 * how many failures this throttle had recorded at that moment.
 */
export interface AttemptCheck {
  readonly noRun: boolean;
  readonly failuresRecorded: number;
}

export class AttemptThrottle {
  readonly #store: ThrottleStore;
  readonly #settings: AttemptThrottleSettings;

  readonly #sources: SourceBudget;
  /** Failures recorded by this throttle so far (see recordSuccess). */
  #failuresRecorded = 0;

  constructor(store: ThrottleStore, settings: AttemptThrottleSettings = defaultAttemptThrottleSettings) {
    this.#store = store;
    this.#settings = settings;
    this.#sources = new SourceBudget({ failures: settings.sourceFailures, windowMs: settings.lockSeconds * 1000 });
  }

  get settings(): AttemptThrottleSettings {
    return this.#settings;
  }

  /** How many sources the per-source budget tracks (for the memory-bound test). */
  get trackedSources(): number {
    return this.#sources.trackedSources;
  }

  /**
   * Throws TooManyAttempts while the principal is locked for this source, or the source has spent
   * its failures; call before looking anything up or verifying anything. What it saw goes to
   * recordSuccess. `reads`: the reads of the decision this check is part of (Store.readsOfOneDecision).
   */
  async assertNotLocked(
    principal: AttemptPrincipal,
    now: number,
    reads: Pick<Store, 'findFailedAttempts'> = this.#store,
  ): Promise<AttemptCheck> {
    const wait = this.#sources.waitSeconds(principal.source ?? '', now);
    if (wait > 0) {
      throw new TooManyAttempts(
        principal.kind === 'user' ? 'invalid_grant' : 'invalid_client',
        wait,
        'source spent its failed attempts',
      );
    }
    const state = await reads.findFailedAttempts(principal);
    const lockedUntil = state?.lockedUntil ?? null;
    if (lockedUntil === null || now >= lockedUntil)
      return { noRun: state === undefined, failuresRecorded: this.#failuresRecorded };
    throw new TooManyAttempts(
      principal.kind === 'user' ? 'invalid_grant' : 'invalid_client',
      Math.max(1, Math.ceil((lockedUntil - now) / 1000)),
      `${principal.kind} locked after too many failed attempts`,
    );
  }

  /** Counts a failed attempt; the one that reaches the threshold locks the principal. Returns whether it did. */
  async recordFailure(principal: AttemptPrincipal, now: number): Promise<boolean> {
    this.#sources.spend(principal.source ?? '', now);
    this.#failuresRecorded += 1;
    const windowMs = this.#settings.lockSeconds * 1000;
    const state = await this.#store.recordFailedAttempt(principal, now, now - windowMs);
    const threshold = principal.kind === 'user' ? this.#settings.userFailures : this.#settings.clientFailures;
    if (state.failures < threshold) return false;
    await this.#store.lockPrincipal(principal, now + windowMs);
    return true;
  }

  /**
   * A verified secret or password: the run of failures ends. With the check of this attempt's
   * assertNotLocked: when it saw no run and this throttle has recorded no failure since, there is
   * nothing to forget and the store is not read again (the token endpoint's hot path). A failure
   * another process (or replica) records in between is then ordered after this success, as it
   * could have been anyway: the check and the count were never one transaction.
   */
  async recordSuccess(principal: AttemptPrincipal, check?: AttemptCheck): Promise<void> {
    if (check?.noRun === true && check.failuresRecorded === this.#failuresRecorded) return;
    // A read first: the common case (nothing to forget) then costs no write.
    if ((await this.#store.findFailedAttempts(principal)) !== undefined)
      await this.#store.clearFailedAttempts(principal);
  }
}
