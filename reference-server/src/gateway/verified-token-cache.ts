// A bounded cache of verified access tokens in front of the verifier: a protected call with a token
// seen before skips the signature check (the costliest step of the gateway). What may change over
// a token's life is still decided on every request:
//   - time: a hit is re-checked against the injected clock exactly as the verifier checks it —
//     expired from its `exp` second on (OI-18), not yet valid while `iat` is in the future — so the
//     test clock and real expiry behave as without the cache;
//   - revocation: never cached here. authenticateToken looks the token's refresh-token family up in
//     the store after this, on every request, so a revocation by any process sharing the store
//     counts from its next request on.
// Only successful verifications are cached (a refusal is cheap to repeat and must not fill the
// cache). The key, issuer, audience and environment are fixed for the life of the process, so a
// verification's other outcomes cannot change. Bounded: the oldest entry goes first.
import type { AccessTokenVerification, AccessTokenVerifier, Clock, VerifiedAccessToken } from '../domain/ports.ts';

export const DEFAULT_VERIFIED_TOKEN_CAPACITY = 10_000;

export class CachingAccessTokenVerifier implements AccessTokenVerifier {
  readonly #inner: AccessTokenVerifier;
  readonly #clock: Clock;
  readonly #capacity: number;
  readonly #verified = new Map<string, VerifiedAccessToken>();

  constructor(inner: AccessTokenVerifier, clock: Clock, capacity = DEFAULT_VERIFIED_TOKEN_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
    this.#inner = inner;
    this.#clock = clock;
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#verified.size;
  }

  /** Whether `token` verified before (so it is a well-formed JWT), whatever its time checks say now. */
  knows(token: string): boolean {
    return this.#verified.has(token);
  }

  async verify(token: string): Promise<AccessTokenVerification> {
    const hit = this.#verified.get(token);
    if (hit !== undefined) {
      const now = this.#clock.now();
      if (hit.exp <= Math.floor(now / 1000)) {
        this.#verified.delete(token);
        return { ok: false, reason: 'expired' };
      }
      if (hit.iat * 1000 > now) return { ok: false, reason: 'not-yet-valid' };
      return { ok: true, token: hit };
    }
    const verification = await this.#inner.verify(token);
    if (verification.ok) {
      if (this.#verified.size >= this.#capacity) {
        const oldest = this.#verified.keys().next();
        if (!oldest.done) this.#verified.delete(oldest.value);
      }
      this.#verified.set(token, verification.token);
    }
    return verification;
  }
}
