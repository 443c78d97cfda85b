// Brute-force protection at the token endpoint (RFC 6749 §4.3.2 for passwords, §2.3.1 for client
// secrets; LIMIT-RATE-003 for passwords, client secrets uncatalogued). Consecutive failed attempts are counted per principal:
// per username as presented for the password grant, per client_id for client authentication.
// At the threshold the principal is locked for the lock window of the injected clock; while it
// is locked every attempt is refused before any secret is verified (so the right password is
// refused too) with 429 and `Retry-After`. A verified secret or password ends the run.
//
// - Per principal: a lock never touches another user or client.
// - Names are counted whether or not they exist, so that a lock says nothing about which
//   accounts exist (OI-10: no account enumeration).
// - A run of failures is forgotten after a lock window without failures, so that a few typos
//   spread over weeks never add up to a lock.
// - The counts live in the store: processes sharing one data file share them. The check and the
//   count are not one transaction: N requests in flight at the moment of the lock may still be
//   verified (at most N extra guesses), which does not matter for a brute-force bound.
import { TooManyAttempts } from './errors.ts';
import type { AttemptPrincipal, Store } from './ports.ts';

export interface AttemptThrottleSettings {
  /** Consecutive failed passwords for one username before it is locked. */
  userFailures: number;
  /** Consecutive failed client authentications for one client_id before it is locked. */
  clientFailures: number;
  /** How long a lock lasts, and how long without failures before a run is forgotten. */
  lockSeconds: number;
}

export const defaultAttemptThrottleSettings: AttemptThrottleSettings = {
  userFailures: 10,
  clientFailures: 50,
  lockSeconds: 900,
};

export type ThrottleStore = Pick<Store, 'findFailedAttempts' | 'recordFailedAttempt' | 'lockPrincipal' | 'clearFailedAttempts'>;

export class AttemptThrottle {
  readonly #store: ThrottleStore;
  readonly #settings: AttemptThrottleSettings;

  constructor(store: ThrottleStore, settings: AttemptThrottleSettings = defaultAttemptThrottleSettings) {
    this.#store = store;
    this.#settings = settings;
  }

  get settings(): AttemptThrottleSettings {
    return this.#settings;
  }

  /** Throws TooManyAttempts while the principal is locked; call before verifying anything. */
  assertNotLocked(principal: AttemptPrincipal, now: number): void {
    const state = this.#store.findFailedAttempts(principal);
    const lockedUntil = state?.lockedUntil ?? null;
    if (lockedUntil === null || now >= lockedUntil) return;
    throw new TooManyAttempts(
      principal.kind === 'user' ? 'invalid_grant' : 'invalid_client',
      Math.max(1, Math.ceil((lockedUntil - now) / 1000)),
      `${principal.kind} locked after too many failed attempts`,
    );
  }

  /** Counts a failed attempt; the one that reaches the threshold locks the principal. Returns whether it did. */
  recordFailure(principal: AttemptPrincipal, now: number): boolean {
    const windowMs = this.#settings.lockSeconds * 1000;
    const state = this.#store.recordFailedAttempt(principal, now, now - windowMs);
    const threshold = principal.kind === 'user' ? this.#settings.userFailures : this.#settings.clientFailures;
    if (state.failures < threshold) return false;
    this.#store.lockPrincipal(principal, now + windowMs);
    return true;
  }

  /** A verified secret or password: the run of failures ends. */
  recordSuccess(principal: AttemptPrincipal): void {
    // A read first: the common case (nothing to forget) then costs no write.
    if (this.#store.findFailedAttempts(principal) !== undefined) this.#store.clearFailedAttempts(principal);
  }
}
