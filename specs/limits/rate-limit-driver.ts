// The one way the suite drives a target's rate limits (capabilities.rateLimit: spikePerSecond,
// quotaPerWindow, windowSeconds), for the gateway-code checks (specs/gateway/rate-limits.spec.ts)
// and the limit checks (specs/limits/rate-limits.spec.ts) alike. Every request a driven check
// sends takes a slot of the profile's load budget (capabilities.load, LoadBudget); a budget too
// small to pass a threshold SKIPs the check with that reason. Calls use the profile's
// rateLimitClient only, so that no other check loses its quota.
import { setTimeout as pause } from 'node:timers/promises';
import { expect, test, type ApiResponse, type ClockControl, type Target, type TokenClient } from '../../fixtures/index.ts';
import { LoadBudget } from './load-budget.ts';

export interface RateLimit {
  spikePerSecond: number;
  quotaPerWindow: number;
  windowSeconds: number;
}

/** What the driver sends: one protected call (it must not send more than one request). */
export type Call = () => Promise<ApiResponse>;

/** How a quota is spent: calls per second (0.8 × spike at most) and the most calls it may take. */
export interface QuotaPlan {
  perSecond: number;
  cap: number;
}

/** A spent quota: every answer in order, and the first refusal if there was one. */
export interface QuotaRun {
  responses: ApiResponse[];
  refused: ApiResponse | undefined;
  /** Calls per second (target seconds for the clock-driven run, real seconds for the paced one). */
  perSecond: number;
}

export class RateLimitDriver {
  private constructor(readonly limit: RateLimit, readonly budget: LoadBudget) {}

  /** The thresholds the target declares and its load budget; SKIPs the check when it declares none. */
  static of(target: Target): RateLimitDriver {
    const limit = target.profile.capabilities.rateLimit;
    if (!limit) test.info().skip(true, 'profile declares no rate-limit thresholds (capabilities.rateLimit)');
    return new RateLimitDriver(limit!, LoadBudget.of(target));
  }

  /** A client_credentials token of the rateLimitClient (at US), counted against the budget. */
  async token(tokenClient: TokenClient): Promise<string> {
    await this.budget.slot();
    return (await tokenClient.obtain.clientCredentials({ region: 'us', client: 'rateLimitClient' })).access_token;
  }

  /**
   * The size of a burst within one second that passes spikePerSecond: with a fixed one-second
   * window a burst may straddle two windows, so 2 × spike + 1 calls when the budget allows, never
   * fewer than spike + 1 (else the check SKIPs). `reserved`: the check's other requests (its token,
   * a call after the burst), which share the budget's second and total.
   */
  spikeBurstSize(reserved: number): number {
    const { limit, budget } = this;
    const size = Math.min(2 * limit.spikePerSecond + 1, budget.maxRequestsPerSecond - reserved, budget.remaining - reserved);
    if (size < limit.spikePerSecond + 1) {
      test.info().skip(true, `the load budget (capabilities.load: ${budget.maxRequestsPerSecond}/s, ${budget.maxRequests} in all) cannot pass spikePerSecond ${limit.spikePerSecond} within one second`);
    }
    return size;
  }

  /**
   * `size` calls at once. A burst that drew no refusal must have been sent within one second: one
   * spread over more than a second (a loaded machine) proves nothing about the spike limit (setup).
   */
  async spike(size: number, call: Call): Promise<ApiResponse[]> {
    const started = performance.now();
    const responses = await this.budget.burst(size, call);
    const elapsedMs = performance.now() - started;
    if (responses.every((r) => r.status === 200)) expect(elapsedMs, `setup: the burst of ${size} calls was sent within one second`).toBeLessThan(1000);
    return responses;
  }

  /**
   * The calls per second that spend the quota without the spike limit deciding (0.8 × spike, at
   * most the budget's rate), and the number of calls that may take: quota + 1, and since the calls
   * may start late in a window (then the quota is spent in the next one) up to one window more.
   * SKIPs when the budget cannot pass the quota or the quota cannot be spent within one window.
   * `reserved`: the check's other requests still to come (its token).
   */
  quotaPlan(reserved: number): QuotaPlan {
    const { limit, budget } = this;
    const perSecond = Math.min(Math.max(1, Math.floor(limit.spikePerSecond * 0.8)), budget.maxRequestsPerSecond);
    const needed = limit.quotaPerWindow + 1;
    const available = budget.remaining - reserved;
    if (needed > available) test.info().skip(true, `the load budget (capabilities.load.maxRequests ${budget.maxRequests}) cannot pass quotaPerWindow ${limit.quotaPerWindow}`);
    if (needed / perSecond > limit.windowSeconds) test.info().skip(true, `at ${perSecond} calls per second the quota of ${limit.quotaPerWindow} cannot be spent within one window of ${limit.windowSeconds} s`);
    return { perSecond, cap: Math.min(available, needed + perSecond * limit.windowSeconds) };
  }

  /**
   * Spends the quota on the target's clock: batches of `perSecond` calls, the clock moved on one
   * second after each, stopping at the first refusal; a few real seconds instead of a window. It
   * starts two windows ahead, clear of windows other rate-limit checks may have spent. Sets the
   * check's timeout to what the budget's pacing and the clock moves take.
   */
  async spendQuotaByClock({ perSecond, cap }: QuotaPlan, clock: ClockControl, call: Call): Promise<QuotaRun> {
    test.setTimeout(30_000 + Math.ceil(cap / this.budget.maxRequestsPerSecond) * 1000 + Math.ceil(cap / perSecond) * 200);
    await clock.advance(2 * this.limit.windowSeconds);
    const responses: ApiResponse[] = [];
    let refused: ApiResponse | undefined;
    while (responses.length < cap && !refused) {
      const answers = await this.budget.burst(Math.min(perSecond, cap - responses.length), call);
      responses.push(...answers);
      refused = answers.find((r) => r.status !== 200);
      if (!refused) await clock.advance(1);
    }
    return { responses, refused, perSecond };
  }

  /**
   * Spends the quota in real time, for targets whose clock cannot be moved: calls evenly spaced at
   * `perSecond` (below the spike limit in any one-second window), each sent without waiting for the
   * one before, stopping at the first refusal. The first call goes out one second after the start,
   * so that no spike window is shared with a burst just before. Waiting here is pacing, not a wait
   * for the target's state. Sets the check's timeout to what the pacing takes.
   */
  async spendQuotaPaced({ perSecond, cap }: QuotaPlan, call: Call): Promise<QuotaRun> {
    test.setTimeout((Math.ceil(cap / perSecond) + 30) * 1000);
    const interval = 1000 / perSecond;
    const started = performance.now() + 1000;
    const responses: ApiResponse[] = [];
    const inFlight: Promise<void>[] = [];
    let refused: ApiResponse | undefined;
    for (let i = 0; i < cap && !refused; i += 1) {
      await pause(Math.max(0, started + i * interval - performance.now()));
      await this.budget.slot();
      inFlight.push(call().then((res) => {
        responses.push(res);
        if (res.status !== 200 && !refused) refused = res;
      }));
    }
    await Promise.all(inFlight);
    return { responses, refused, perSecond };
  }
}

/** The answers of a run by status and gateway code, for a failure message ("3× 200, 1× 429 000-2000"). */
export function tally(responses: ApiResponse[]): string {
  const counts = new Map<string, number>();
  for (const r of responses) {
    const key = `${r.status}${r.gatewayCode ? ` ${r.gatewayCode}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${n}× ${k}`).join(', ');
}
