// The model-based lifecycle (spec §3): fc.commands over obtain, refresh, reuse, call-api and (with
// clock control) advance-clock; a plain model (lifecycle/lifecycle.model.ts) predicts every answer
// and the target must agree. Three checks:
//   - the clock variant (time-travel project): expiry at 1 h / 7 days, the refresh window, 45 days;
//   - the clock-free variant: the states and transitions that need no clock, on every target;
//   - reuse detection (ADVISORY): the same clock-free model, predicting family revocation.
// Each disagreement names the requirement its prediction comes from (the commands say which): it
// FAILs that requirement only, through the bounded per-requirement search of attributed-property.ts.
// A disagreement over a requirement the variant does not cite (a refresh that does not rotate,
// GRANT-RT-002, in the reuse-detection variant) stands in the way of what the variant verifies: the
// variant is BLOCKED by it; the variant that cites it FAILs it.
import fc from 'fast-check';
import {
  needs, requirement, test, annotationTypes, LoadBudget, runAttributedProperty, attributeDisagreement,
  lifecycleCommands, DAY, LifecycleModel, RealSystem, RunClock, propertyRuns, propertyTag, type ApiClient,
  type ClockControl, type Target, type TokenClient, type Finding, type ModelOptions,
} from '../../fixtures/index.ts';

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

/**
 * The clock-free variants explore a much smaller state space: a fifth of the lifecycle budget. Their
 * runs stay one after another: all of them grant tokens to the one burnable user, so on a target
 * that keeps state per user (e.g. one that answers a second password grant with the first response)
 * runs side by side would meet each other's tokens, and the finding would name the wrong requirement
 * (the self-validation's pw-grant-replayed-while-unused showed GRANT-RT-001 instead of STATE-PW-002).
 */
const clockFreeRuns = (target: Target) => Math.max(1, Math.round(propertyRuns(target, 'lifecycle') / 5));

interface Deps { tokenClient: TokenClient; api: ApiClient; target: Target; clock?: ClockControl }

/**
 * The lifecycle property as an arbitrary and a check: the check runs one command sequence against
 * a fresh model and reports the disagreement as a finding of the requirement its prediction comes
 * from, when this check cites that requirement; a disagreement over a requirement it does not cite
 * blocks it (BlockedByRequirement); any other error fails the check as a whole.
 */
function lifecycleProperty(deps: Deps, variant: { clock: boolean; familyRevocation: boolean }, cited: readonly string[]) {
  const { target } = deps;
  const pacer = apiPacer(target);
  const runClock = deps.clock && new RunClock(deps.clock);
  const arbitrary = fc.commands(lifecycleCommands(variant.clock), { maxCommands: variant.clock ? 14 : 10 });
  const check = async (cmds: Iterable<fc.AsyncCommand<LifecycleModel, RealSystem>>): Promise<Finding[]> => {
    await runClock?.startRun();
    const started = performance.now();
    const options: ModelOptions = {
      clock: variant.clock,
      familyRevocation: variant.familyRevocation,
      anchor: target.interpretation('refreshTokenAnchor'),
      accessTokenAfterRefresh: target.interpretation('accessTokenAfterRefresh'),
      margin: () => target.profile.expectations.clockSkewSeconds + Math.ceil((performance.now() - started) / 1000) + 1,
      passwordAge: passwordAgeSeconds(target),
    };
    try {
      await fc.asyncModelRun(() => ({ model: new LifecycleModel(options), real: new RealSystem(deps.tokenClient, deps.api, target, pacer, runClock) }), cmds);
      return [];
    } catch (error) {
      return attributeDisagreement(error, cited);
    }
  };
  return { arbitrary, check };
}

const clockCited = ['STATE-AT-EXP-001', 'STATE-AT-EXP-002', 'STATE-RT-UNUSED-002', 'STATE-RT-EXP-001', 'LIMIT-AT-LIFETIME-001', 'LIMIT-RT-LIFETIME-001'] as const;
const clockFreeCited = ['STATE-CC-001', 'STATE-PW-001', 'STATE-PW-002', 'STATE-RT-USED-001', 'STATE-RT-USED-002', 'GRANT-RT-001', 'GRANT-RT-002', 'STATE-AT-AFTER-REFRESH-001'] as const;
const familyCited = ['STATE-RT-FAMILY-001', 'STATE-RT-FAMILY-002'] as const;

test.describe('property: token lifecycle model', () => {
  test('token lifecycle model with the clock: every answer across 1 h, 7 days and 45 days is the one the model predicts',
    requirement(...clockCited, needs('us', 'gateway', 'people', 'user:burnableUser'), { tag: [propertyTag('lifecycle-clock')] }),
    async ({ tokenClient, api, target, clock }, testInfo) => {
      // The 45-day edge is predicted only from a declared password age: only then does this check verify LIMIT-PWD-001.
      const cited: string[] = [...clockCited];
      if (passwordAgeSeconds(target) !== undefined) {
        cited.push('LIMIT-PWD-001');
        testInfo.annotations.push({ type: annotationTypes.requirement, description: 'LIMIT-PWD-001' });
      }
      const { arbitrary, check } = lifecycleProperty({ tokenClient, api, target, clock }, { clock: true, familyRevocation: false }, cited);
      await runAttributedProperty(arbitrary, check, { name: 'lifecycle-clock', testInfo, runs: propertyRuns(target, 'lifecycle') });
    });

  test('token lifecycle model without the clock: every answer of obtain, refresh, reuse and protected calls is the one the model predicts',
    requirement(...clockFreeCited, needs('us', 'gateway', 'people', 'user:burnableUser'), { tag: [propertyTag('lifecycle'), '@serial'] }),
    async ({ tokenClient, api, target }, testInfo) => {
      const { arbitrary, check } = lifecycleProperty({ tokenClient, api, target }, { clock: false, familyRevocation: false }, clockFreeCited);
      await runAttributedProperty(arbitrary, check, { name: 'lifecycle', testInfo, runs: clockFreeRuns(target) });
    });

  test('token lifecycle model with reuse detection: after a used refresh token is presented again, its family is refused',
    requirement(...familyCited, needs('us', 'gateway', 'people', 'user:burnableUser'), { tag: [propertyTag('lifecycle-family'), '@serial'] }),
    async ({ tokenClient, api, target }, testInfo) => {
      const { arbitrary, check } = lifecycleProperty({ tokenClient, api, target }, { clock: false, familyRevocation: true }, familyCited);
      await runAttributedProperty(arbitrary, check, { name: 'lifecycle-family', testInfo, runs: clockFreeRuns(target) });
    });
});
