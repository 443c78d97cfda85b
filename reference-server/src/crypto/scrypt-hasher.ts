// Client secrets and user passwords: scrypt with a per-record random salt, compared with
// timingSafeEqual. Encoded as `scrypt$<log2 N>$<r>$<p>$<salt b64url>$<hash b64url>`, so that a hash
// made with one cost (tests use a low one) verifies under any configuration.
import { createHmac, randomBytes, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { SecretHasher } from '../domain/ports.ts';
import { scryptOnThread as scrypt } from './scrypt-thread.ts';

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

export interface ScryptCost {
  /** log2 of scrypt's N. 14 (16 MiB with r=8) in production; tests use 4 or so. */
  log2N: number;
  r: number;
  p: number;
}

export const productionScryptCost: ScryptCost = { log2N: 14, r: 8, p: 1 };
export const testScryptCost: ScryptCost = { log2N: 4, r: 8, p: 1 };

export class ScryptSecretHasher implements SecretHasher {
  readonly #cost: ScryptCost;

  constructor(cost: ScryptCost = productionScryptCost) {
    this.#cost = cost;
  }

  async hash(secret: string): Promise<string> {
    const { log2N, r, p } = this.#cost;
    const salt = randomBytes(SALT_LENGTH);
    const key = await scrypt(secret, salt, KEY_LENGTH, options(log2N, r, p));
    return ['scrypt', log2N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
  }

  async verify(secret: string, encodedHash: string): Promise<boolean> {
    const parts = encodedHash.split('$');
    if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
    const [log2N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
    if (![log2N, r, p].every((n) => Number.isInteger(n) && n > 0) || log2N > 20) return false;
    const salt = Buffer.from(parts[4] ?? '', 'base64url');
    const expected = Buffer.from(parts[5] ?? '', 'base64url');
    if (expected.length !== KEY_LENGTH) return false;
    const actual = await scrypt(secret, salt, KEY_LENGTH, options(log2N, r, p));
    return timingSafeEqual(actual, expected);
  }
}

function options(log2N: number, r: number, p: number): ScryptOptions {
  const N = 2 ** log2N;
  return { N, r, p, maxmem: 256 * N * r + 16 * 1024 * 1024 };
}

/**
 * Remembers successful verifications so that repeated token requests of one client do not pay for
 * scrypt every time. The key is an HMAC, under a per-process random key, of the stored hash and the
 * presented secret: the plain secret is never kept, and a changed hash (new secret or password)
 * never hits an old entry. Failures are never cached (a failure is shared only by the requests
 * already waiting on the same computation). Bounded, oldest entries evicted first.
 */
export class CachingSecretHasher implements SecretHasher {
  readonly #inner: SecretHasher;
  readonly #key = randomBytes(32);
  readonly #hits = new Set<string>();
  readonly #inFlight = new Map<string, Promise<boolean>>();
  readonly #capacity: number;

  constructor(inner: SecretHasher, capacity = 1000) {
    this.#inner = inner;
    this.#capacity = capacity;
  }

  hash(secret: string): Promise<string> {
    return this.#inner.hash(secret);
  }

  async verify(secret: string, encodedHash: string): Promise<boolean> {
    const entry = createHmac('sha256', this.#key).update(encodedHash).update('\0').update(secret).digest('base64url');
    if (this.#hits.has(entry)) return true;
    // Concurrent verifications of the same secret against the same hash share one scrypt run (16
    // connections logging in at once cost one 16 MiB scrypt computation, not sixteen).
    const running = this.#inFlight.get(entry);
    if (running) return running;
    const verification = this.#inner
      .verify(secret, encodedHash)
      .then((ok) => {
        if (ok) {
          if (this.#hits.size >= this.#capacity) {
            const oldest = this.#hits.values().next();
            if (!oldest.done) this.#hits.delete(oldest.value);
          }
          this.#hits.add(entry);
        }
        return ok;
      })
      .finally(() => this.#inFlight.delete(entry));
    this.#inFlight.set(entry, verification);
    return verification;
  }
}
