// The model-based lifecycle (spec §3): fc.commands over obtain, refresh, reuse, call-api and (with
// clock control) advance-clock; a plain model (lifecycle/lifecycle.model.ts) predicts every answer
// and the target must agree. Three checks:
//   - the clock variant (time-travel project): expiry at 1 h / 7 days, the refresh window, 45 days;
//   - the clock-free variant: the states and transitions that need no clock, on every target;
//   - reuse detection (ADVISORY): the same clock-free model, predicting family revocation.
import fc from 'fast-check';
import { needs, requirement, test, type ApiClient, type ClockControl, type Target, type TokenClient } from '../../fixtures/index.ts';
import { LoadBudget } from '../limits/load-budget.ts';
import { lifecycleCommands } from './lifecycle/lifecycle.commands.ts';
import { DAY, LifecycleModel, RealSystem, type ModelOptions } from './lifecycle/lifecycle.model.ts';
import { propertyRuns, propertyTag, runProperty } from './property-runner.ts';

/** API calls paced to half the declared spike limit (the property checks run serially, tagged @clock or @serial). */
function apiPacer(target: Target): LoadBudget {
  const spike = target.profile.capabilities.rateLimit?.spikePerSecond ?? target.profile.capabilities.load.maxRequestsPerSecond;
  return new LoadBudget(Number.MAX_SAFE_INTEGER, Math.max(1, Math.floor(spike / 2)));
}

/** The burnable user's declared password age in seconds (never assumed: the reference seed's is 1 day). */
function passwordAgeSeconds(target: Target): number | undefined {
  const days = target.profile.credentials.users.burnableUser?.passwordAgeDays;
  return days === undefined ? undefined : days * DAY;
}

/** The clock-free variants explore a much smaller state space: a fifth of the lifecycle budget. */
const clockFreeRuns = (target: Target) => Math.max(1, Math.round(propertyRuns(target, 'lifecycle') / 5));

interface Deps { tokenClient: TokenClient; api: ApiClient; target: Target; clock?: ClockControl }

function lifecycleProperty(deps: Deps, variant: { clock: boolean; familyRevocation: boolean }) {
  const { target } = deps;
  const pacer = apiPacer(target);
  return fc.asyncProperty(fc.commands(lifecycleCommands(variant.clock), { maxCommands: variant.clock ? 14 : 10 }), async (cmds) => {
    if (deps.clock) await deps.clock.reset();
    const started = performance.now();
    const options: ModelOptions = {
      clock: variant.clock,
      familyRevocation: variant.familyRevocation,
      anchor: target.interpretation('refreshTokenAnchor'),
      accessTokenAfterRefresh: target.interpretation('accessTokenAfterRefresh'),
      margin: () => target.profile.expectations.clockSkewSeconds + Math.ceil((performance.now() - started) / 1000) + 1,
      passwordAge: passwordAgeSeconds(target),
    };
    await fc.asyncModelRun(() => ({ model: new LifecycleModel(options), real: new RealSystem(deps.tokenClient, deps.api, target, pacer, deps.clock) }), cmds);
  });
}

test.describe('property: token lifecycle model', () => {
  test('token lifecycle model with the clock: every answer across 1 h, 7 days and 45 days is the one the model predicts',
    requirement('STATE-AT-EXP-001', 'STATE-AT-EXP-002', 'STATE-RT-UNUSED-002', 'STATE-RT-EXP-001', 'LIMIT-AT-LIFETIME-001', 'LIMIT-RT-LIFETIME-001',
      needs('us', 'gateway', 'people', 'user:burnableUser'), { tag: [propertyTag('lifecycle-clock')] }),
    async ({ tokenClient, api, target, clock }, testInfo) => {
      await runProperty(lifecycleProperty({ tokenClient, api, target, clock }, { clock: true, familyRevocation: false }),
        { name: 'lifecycle-clock', testInfo, runs: propertyRuns(target, 'lifecycle') });
    });

  test('token lifecycle model without the clock: every answer of obtain, refresh, reuse and protected calls is the one the model predicts',
    requirement('STATE-CC-001', 'STATE-PW-001', 'STATE-PW-002', 'STATE-RT-USED-001', 'STATE-RT-USED-002', 'GRANT-RT-001', 'GRANT-RT-002', 'STATE-AT-AFTER-REFRESH-001',
      needs('us', 'gateway', 'people', 'user:burnableUser'), { tag: [propertyTag('lifecycle'), '@serial'] }),
    async ({ tokenClient, api, target }, testInfo) => {
      await runProperty(lifecycleProperty({ tokenClient, api, target }, { clock: false, familyRevocation: false }),
        { name: 'lifecycle', testInfo, runs: clockFreeRuns(target) });
    });

  test('token lifecycle model with reuse detection: after a used refresh token is presented again, its family is refused',
    requirement('STATE-RT-FAMILY-001', 'STATE-RT-FAMILY-002', needs('us', 'gateway', 'people', 'user:burnableUser'), { tag: [propertyTag('lifecycle-family'), '@serial'] }),
    async ({ tokenClient, api, target }, testInfo) => {
      await runProperty(lifecycleProperty({ tokenClient, api, target }, { clock: false, familyRevocation: true }),
        { name: 'lifecycle-family', testInfo, runs: clockFreeRuns(target) });
    });
});
