// Step 13 of the decision order: per-client rate limits in fixed windows of the injected clock,
// so that the suite's test clock can move a client into a fresh window.
//   quota: `quotaPerWindow` requests per window of `windowSeconds` (aligned to epoch) → 000-2000
//   spike: `spikePerSecond` requests per clock second                                 → 000-2001
// The quota is checked first: when it is spent, waiting a second would not help, and its
// Retry-After says when it will. A refused request consumes nothing. Retry-After is the whole
// number of seconds until the window that refused the request ends (at least 1).
// Memory: one small entry per client; entries whose quota window has passed are dropped when
// the table grows past `maxTrackedClients`, and the oldest entries go if that is not enough.
import type { Clock } from '../domain/ports.ts';
import type { RateLimitSettings } from './gateway-deps.ts';

export type RateLimitDecision =
  { allowed: true } | { allowed: false; code: '000-2000' | '000-2001'; retryAfterSeconds: number };

interface ClientWindows {
  quotaWindow: number;
  quotaUsed: number;
  spikeSecond: number;
  spikeUsed: number;
}

export class FixedWindowRateLimiter {
  private readonly clients = new Map<string, ClientWindows>();

  constructor(
    private readonly settings: RateLimitSettings,
    private readonly clock: Clock,
    private readonly maxTrackedClients = 10_000,
  ) {
    if (!(settings.windowSeconds > 0 && settings.quotaPerWindow >= 0 && settings.spikePerSecond >= 0)) {
      throw new RangeError('rate limits need windowSeconds > 0 and non-negative thresholds');
    }
  }

  /** Counts one request of `clientId` if it is allowed. */
  take(clientId: string): RateLimitDecision {
    const now = this.clock.now();
    const windowMs = this.settings.windowSeconds * 1000;
    const quotaWindow = Math.floor(now / windowMs);
    const spikeSecond = Math.floor(now / 1000);

    const entry = this.entryFor(clientId, quotaWindow, spikeSecond);
    if (entry.quotaWindow !== quotaWindow) Object.assign(entry, { quotaWindow, quotaUsed: 0 });
    if (entry.spikeSecond !== spikeSecond) Object.assign(entry, { spikeSecond, spikeUsed: 0 });

    if (entry.quotaUsed >= this.settings.quotaPerWindow) {
      return { allowed: false, code: '000-2000', retryAfterSeconds: secondsUntil((quotaWindow + 1) * windowMs, now) };
    }
    if (entry.spikeUsed >= this.settings.spikePerSecond) {
      return { allowed: false, code: '000-2001', retryAfterSeconds: secondsUntil((spikeSecond + 1) * 1000, now) };
    }
    entry.quotaUsed += 1;
    entry.spikeUsed += 1;
    return { allowed: true };
  }

  /** How many clients are tracked (for the memory-bound test). */
  get trackedClients(): number {
    return this.clients.size;
  }

  private entryFor(clientId: string, quotaWindow: number, spikeSecond: number): ClientWindows {
    const existing = this.clients.get(clientId);
    if (existing !== undefined) return existing;
    if (this.clients.size >= this.maxTrackedClients) this.evict(quotaWindow);
    const created = { quotaWindow, quotaUsed: 0, spikeSecond, spikeUsed: 0 };
    this.clients.set(clientId, created);
    return created;
  }

  private evict(currentWindow: number): void {
    for (const [clientId, entry] of this.clients) {
      if (entry.quotaWindow < currentWindow) this.clients.delete(clientId);
    }
    // Still full: drop the oldest insertions (Map keeps insertion order).
    for (const clientId of this.clients.keys()) {
      if (this.clients.size < this.maxTrackedClients) break;
      this.clients.delete(clientId);
    }
  }
}

function secondsUntil(end: number, now: number): number {
  return Math.max(1, Math.ceil((end - now) / 1000));
}
