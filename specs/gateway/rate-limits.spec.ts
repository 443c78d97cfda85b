// Gateway codes of rate limiting: 000-2001 (per-client spike limit) and 000-2000 (per-client quota
// of a window). The thresholds are the profile's (capabilities.rateLimit, draft OI-17); the calls
// stay within its load budget (capabilities.load) and use the client reserved for these checks
// (rateLimitClient). They run in the serial project (tag @serial), away from the parallel checks,
// the spike check first: a spent quota would answer its calls with 000-2000.
import { setTimeout as pause } from 'node:timers/promises';
import { expect, markNotApplicable, needs, requirement, test, LoadBudget, type ApiResponse, type Target } from '../../fixtures/index.ts';

function thresholds(target: Target) {
  const limits = target.profile.capabilities.rateLimit;
  test.skip(!limits, 'profile declares no rate-limit thresholds (capabilities.rateLimit)');
  return { limits: limits!, budget: target.profile.capabilities.load };
}

function tally(responses: ApiResponse[]): string {
  const counts = new Map<string, number>();
  for (const r of responses) {
    const key = `${r.status}${r.gatewayCode ? ` ${r.gatewayCode}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${n}× ${k}`).join(', ');
}

test.describe('gateway: rate limits', () => {
  test('ERR-GW-2001 a protected call beyond the per-client spike limit gets the code declared for it (reference 000-2001)',
    requirement('ERR-GW-2001', needs('people'), { tag: ['@serial'] }),
    async ({ target, tokenClient, api }) => {
      const { limits, budget } = thresholds(target);
      // OI-14 conditions.perSecondLimit: 000-2001, or the quota code 000-2000 for every rate limit.
      const code = target.gatewayCodes().conditions.perSecondLimit;
      // 2·spike+1 calls within one second exceed the spike limit in one of the (at most two) one-second
      // windows they fall into; the budget may allow fewer.
      const burst = Math.min(2 * limits.spikePerSecond + 1, budget.maxRequestsPerSecond, budget.maxRequests);
      test.skip(burst <= limits.spikePerSecond, `the load budget (${budget.maxRequestsPerSecond}/s, ${budget.maxRequests} requests) cannot exceed the spike limit of ${limits.spikePerSecond}/s`);
      const token = (await tokenClient.obtain.clientCredentials({ client: 'rateLimitClient' })).access_token;
      const started = performance.now();
      const responses = await Promise.all(Array.from({ length: burst }, () => api.person('existing', { token })));
      const elapsedMs = performance.now() - started;
      const refused = responses.find((r) => r.gatewayCode === code) ?? responses.find((r) => r.status !== 200);
      if (!refused) expect(elapsedMs, `setup: the burst of ${burst} calls was sent within one second`).toBeLessThan(1000);
      expect(refused, `one of ${burst} calls within ${Math.round(elapsedMs)} ms is refused (answers: ${tally(responses)})`).toBeDefined();
      await expect(refused!, `declared perSecondLimit=${code}`).toBeGatewayError(code);
    });

  test('ERR-GW-2000 a protected call beyond the per-client quota of the window gets 000-2000 (clock-driven)',
    requirement('ERR-GW-2000', needs('people', 'clock-control')),
    async ({ target, tokenClient, api, clock }) => {
      const { limits, budget } = thresholds(target);
      // Batches below the spike limit, the target's clock moved on one second after each batch: the
      // quota is spent in a few real seconds instead of a window. Every call takes a slot of the load
      // budget, so that the calls stay within capabilities.load.maxRequestsPerSecond in real time too.
      const batch = Math.min(Math.max(1, Math.floor(limits.spikePerSecond * 0.8)), budget.maxRequestsPerSecond);
      const needed = limits.quotaPerWindow + 1;
      test.skip(needed > budget.maxRequests, `the load budget of ${budget.maxRequests} requests cannot exceed the quota of ${limits.quotaPerWindow}`);
      test.skip(needed / batch > limits.windowSeconds, `at ${batch} calls per second the quota of ${limits.quotaPerWindow} cannot be spent within one window of ${limits.windowSeconds} s`);
      const cap = Math.min(budget.maxRequests, needed + batch * limits.windowSeconds);
      const pacing = LoadBudget.of(target);
      const token = (await tokenClient.obtain.clientCredentials({ client: 'rateLimitClient' })).access_token;
      // Start two windows ahead, clear of windows that other rate-limit checks may have spent.
      await clock.advance(2 * limits.windowSeconds);
      const responses: ApiResponse[] = [];
      let refused: ApiResponse | undefined;
      while (responses.length < cap && !refused) {
        const size = Math.min(batch, cap - responses.length);
        const answers = await pacing.burst(size, () => api.person('existing', { token }));
        responses.push(...answers);
        refused = answers.find((r) => r.status !== 200);
        if (!refused) await clock.advance(1);
      }
      expect(refused, `a call is refused within ${responses.length} calls at ${batch} per clock second (quota ${limits.quotaPerWindow} per ${limits.windowSeconds} s; answers: ${tally(responses)})`).toBeDefined();
      await expect(refused!).toBeGatewayError('000-2000');
    });

  test('ERR-GW-2000 a protected call beyond the per-client quota of the window gets 000-2000 (paced in real time)',
    requirement('ERR-GW-2000', needs('people'), { tag: ['@serial'] }),
    async ({ target, tokenClient, api }, testInfo) => {
      // Spending a quota in real time takes up to a whole window: only for targets whose clock cannot be moved.
      if (!target.gap('clock-control')) markNotApplicable(testInfo, 'the target has clock control: the clock-driven check verifies the quota');
      const { limits, budget } = thresholds(target);
      // Paced below both the spike limit and the budget's rate, so that only the quota can refuse a call.
      const perSecond = Math.min(Math.max(1, Math.floor(limits.spikePerSecond * 0.8)), budget.maxRequestsPerSecond);
      const needed = limits.quotaPerWindow + 1;
      test.skip(needed > budget.maxRequests, `the load budget of ${budget.maxRequests} requests cannot exceed the quota of ${limits.quotaPerWindow}`);
      test.skip(needed / perSecond > limits.windowSeconds, `at ${perSecond} calls/s the quota of ${limits.quotaPerWindow} cannot be spent within one window of ${limits.windowSeconds} s`);
      // The calls may start late in a window: then the quota is spent in the next one.
      const cap = Math.min(budget.maxRequests, needed + perSecond * limits.windowSeconds);
      test.setTimeout((Math.ceil(cap / perSecond) + 30) * 1000);
      const token = (await tokenClient.obtain.clientCredentials({ client: 'rateLimitClient' })).access_token;
      // Calls evenly spaced at `perSecond` (below the spike limit in any one-second window), each sent
      // without waiting for the one before; stop at the first refusal. The first call goes out one
      // second after the check starts, so that no spike window is shared with a burst just before
      // (the spike check runs right before this one). Waiting here is pacing, not a wait for expiry.
      const interval = 1000 / perSecond;
      const started = performance.now() + 1000;
      const responses: ApiResponse[] = [];
      const inFlight: Promise<void>[] = [];
      let refused: ApiResponse | undefined;
      for (let i = 0; i < cap && !refused; i += 1) {
        await pause(Math.max(0, started + i * interval - performance.now()));
        inFlight.push(api.person('existing', { token }).then((res) => {
          responses.push(res);
          if (res.status !== 200 && !refused) refused = res;
        }));
      }
      await Promise.all(inFlight);
      expect(refused, `a call is refused within ${responses.length} calls at ${perSecond}/s (quota ${limits.quotaPerWindow} per ${limits.windowSeconds} s; answers: ${tally(responses)})`).toBeDefined();
      await expect(refused!).toBeGatewayError('000-2000');
    });
});
