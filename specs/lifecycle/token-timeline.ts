// Where a check puts the target's clock relative to the moment a token was issued.
//
// The suite cannot see the instant of issuance, only that it lies between two readings of the
// target's clock: `from` (before the request) and `to` (after the response). So a moment that must
// still lie INSIDE a lifetime is measured from `from` (the earliest possible issuance), and a moment
// that must lie BEYOND it from `to` (the latest). Both readings come from the target, never from
// the machine running the suite.
import type { ClockControl, Target } from '../../fixtures/index.ts';

/** Spec §3 row 6 and §8: a refresh token is valid 7 days after the access token. */
export const refreshTokenValiditySeconds = 7 * 24 * 60 * 60;

export interface Issued<T> {
  value: T;
  /** The target's clock (epoch ms) just before the request. */
  from: number;
  /** The target's clock (epoch ms) just after the response. */
  to: number;
}

/** Runs `issue` between two readings of the target's clock. */
export async function issuedBetween<T>(clock: ClockControl, issue: () => Promise<T>): Promise<Issued<T>> {
  const from = await clock.now();
  const value = await issue();
  const to = await clock.now();
  return { value, from, to };
}

/** Sets the clock to `seconds` after the earliest possible issuance: a moment still inside a lifetime of `seconds`. */
export async function moveToNoLaterThan(clock: ClockControl, issued: Issued<unknown>, seconds: number): Promise<void> {
  await clock.set(issued.from + seconds * 1000);
}

/** Sets the clock to `seconds` after the latest possible issuance: a moment beyond a lifetime shorter than `seconds`. */
export async function moveToNoEarlierThan(clock: ClockControl, issued: Issued<unknown>, seconds: number): Promise<void> {
  await clock.set(issued.to + seconds * 1000);
}

/** The tolerance the target declares for time comparisons (profile `expectations.clockSkewSeconds`). */
export function clockSkewSeconds(target: Target): number {
  return target.profile.expectations.clockSkewSeconds;
}

/**
 * A moment clearly beyond a lifetime of `seconds`: past it by the declared clock skew plus 1 s, so
 * that a target that accepts a token up to `clockSkewSeconds` after its end (jose's clockTolerance,
 * say) is not judged as if it never expired.
 */
export function beyondSeconds(target: Target, seconds: number): number {
  return seconds + clockSkewSeconds(target) + 1;
}

/** The last moment clearly inside a lifetime of `seconds`: before its end by the declared clock skew. */
export function withinSeconds(target: Target, seconds: number): number {
  return seconds - clockSkewSeconds(target);
}

/**
 * OI-4: seconds from issuance to the moment the refresh token's 7 days start counting: the
 * lifetime of the access token issued with it (`access-token-expiry`), or 0 (`access-token-issuance`).
 */
export function refreshTokenAnchorSeconds(target: Target, accessTokenExpiresIn: number): number {
  const anchor = target.interpretation('refreshTokenAnchor');
  return anchor === 'access-token-expiry' ? accessTokenExpiresIn : 0;
}
