// The failed credential checks one source (a network address) may cost the server: a token bucket
// per source, `failures` deep, refilled at `failures` per `windowMs`. Every failed client
// authentication or password check spends one; an empty bucket means 429 before any lookup or
// hashing, for every principal that source tries. This bounds the scrypt work (and the
// failed-attempt rows) one source can cause, whoever it targets; it never touches other sources.
// In memory, per process: a bound on work, not a security record, so nothing is written for it.
// Bounded: at most `maxSources` buckets; full buckets carry no information and go first, then the
// oldest.

export interface SourceBudgetSettings {
  /** Failures a source may spend at once (the bucket's depth). */
  failures: number;
  /** Milliseconds in which an empty bucket fills again. */
  windowMs: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class SourceBudget {
  readonly #buckets = new Map<string, Bucket>();

  constructor(
    private readonly settings: SourceBudgetSettings,
    private readonly maxSources = 10_000,
  ) {
    if (!(settings.failures >= 1 && settings.windowMs > 0))
      throw new RangeError('a source budget needs failures >= 1 and windowMs > 0');
  }

  /** 0 when `source` may try; else the seconds until it may (at least 1). */
  waitSeconds(source: string, now: number): number {
    const tokens = this.#tokens(source, now);
    if (tokens >= 1) return 0;
    return Math.max(1, Math.ceil(((1 - tokens) * this.settings.windowMs) / this.settings.failures / 1000));
  }

  /** One failure of `source`. */
  spend(source: string, now: number): void {
    const tokens = this.#tokens(source, now);
    this.#buckets.delete(source);
    if (this.#buckets.size >= this.maxSources) this.#evict(now);
    this.#buckets.set(source, { tokens: Math.max(0, tokens - 1), at: now });
  }

  get trackedSources(): number {
    return this.#buckets.size;
  }

  #tokens(source: string, now: number): number {
    const bucket = this.#buckets.get(source);
    if (bucket === undefined) return this.settings.failures;
    const refill = (Math.max(0, now - bucket.at) * this.settings.failures) / this.settings.windowMs;
    return Math.min(this.settings.failures, bucket.tokens + refill);
  }

  #evict(now: number): void {
    for (const source of this.#buckets.keys()) {
      if (this.#tokens(source, now) >= this.settings.failures) this.#buckets.delete(source);
    }
    // Still full: the least recently spent go (the Map keeps the order of the last spend).
    for (const source of this.#buckets.keys()) {
      if (this.#buckets.size < this.maxSources) break;
      this.#buckets.delete(source);
    }
  }
}
