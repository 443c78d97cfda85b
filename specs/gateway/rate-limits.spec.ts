// Gateway codes of rate limiting: 000-2001 (per-client spike limit) and 000-2000 (per-client quota
// of a window). The thresholds are the profile's (capabilities.rateLimit, draft OI-17: the spike
// check needs spikePerSecond, the quota checks quotaPerWindow and windowSeconds); the calls
// are driven by the rate-limit driver (fixtures/support/limits/rate-limit-driver.ts: within the load budget,
// with the client reserved for these checks). They run in the serial project (tag @serial), away
// from the parallel checks, the spike check first: a spent quota would answer its calls with 000-2000.
import {
  choiceLabel,
  expect,
  judgedOn,
  markNotApplicable,
  needs,
  requirement,
  test,
  RateLimitDriver,
} from '../../fixtures/index.ts';

test.describe('gateway: rate limits', () => {
  test(
    'ERR-GW-2001 a protected call beyond the per-client spike limit gets the code declared for it (reference 000-2001)',
    requirement('ERR-GW-2001', needs('people'), { tag: ['@serial'] }),
    async ({ target, tokenClient, api }) => {
      const driver = RateLimitDriver.of(target, ['spikePerSecond']);
      // OI-14 conditions.perSecondLimit: 000-2001, or the quota code 000-2000 for every rate limit.
      const choice = target.gatewayCondition('perSecondLimit');
      const code = choice.value;
      const size = driver.spikeBurstSize(1);
      const token = await driver.token(tokenClient);
      const responses = await driver.spike(size, () => api.person('existing', { token }));
      const refused = responses.find((r) => r.gatewayCode === code) ?? responses.find((r) => r.status !== 200);
      expect(
        refused,
        `one of ${size} calls within one second is refused (answers: ${RateLimitDriver.tally(responses)})`,
      ).toBeDefined();
      await judgedOn(choice, () => expect(refused!, choiceLabel(choice)).toBeGatewayError(code));
    },
  );

  test(
    'ERR-GW-2000 a protected call beyond the per-client quota of the window gets 000-2000 (clock-driven)',
    requirement('ERR-GW-2000', needs('people', 'clock-control')),
    async ({ target, tokenClient, api, clock }) => {
      const driver = RateLimitDriver.of(target, ['quotaPerWindow', 'windowSeconds']);
      const { quotaPerWindow, windowSeconds } = driver.limit;
      const plan = driver.quotaPlan(1);
      const token = await driver.token(tokenClient);
      const { responses, refused, perSecond } = await driver.spendQuotaByClock(plan, clock, () =>
        api.person('existing', { token }),
      );
      expect(
        refused,
        `a call is refused within ${responses.length} calls at ${perSecond} per clock second (quota ${quotaPerWindow} per ${windowSeconds} s; answers: ${RateLimitDriver.tally(responses)})`,
      ).toBeDefined();
      await expect(refused!).toBeGatewayError('000-2000');
    },
  );

  test(
    'ERR-GW-2000 a protected call beyond the per-client quota of the window gets 000-2000 (paced in real time)',
    requirement('ERR-GW-2000', needs('people'), { tag: ['@serial'] }),
    async ({ target, tokenClient, api }, testInfo) => {
      // Spending a quota in real time takes up to a whole window: only for targets whose clock cannot be moved.
      if (!target.gap('clock-control'))
        markNotApplicable(testInfo, 'the target has clock control: the clock-driven check verifies the quota');
      const driver = RateLimitDriver.of(target, ['quotaPerWindow', 'windowSeconds']);
      const { quotaPerWindow, windowSeconds } = driver.limit;
      const plan = driver.quotaPlan(1);
      const token = await driver.token(tokenClient);
      const { responses, refused, perSecond } = await driver.spendQuotaPaced(plan, () =>
        api.person('existing', { token }),
      );
      expect(
        refused,
        `a call is refused within ${responses.length} calls at ${perSecond}/s (quota ${quotaPerWindow} per ${windowSeconds} s; answers: ${RateLimitDriver.tally(responses)})`,
      ).toBeDefined();
      await expect(refused!).toBeGatewayError('000-2000');
    },
  );
});
