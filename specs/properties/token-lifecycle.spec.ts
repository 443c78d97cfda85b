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
import { needs, requirement, test, type Target } from '../../fixtures/index.ts';
import { citeRequirement, runAttributedProperty } from '../../fixtures/support/properties/attributed-property.ts';
import {
  lifecycleProperty,
  passwordAgeSeconds,
} from '../../fixtures/support/properties/lifecycle/lifecycle.property.ts';
import { propertyRuns, propertyTag } from '../../fixtures/support/properties/property-runner.ts';

/**
 * The clock-free variants explore a much smaller state space: a fifth of the lifecycle budget. Their
 * runs stay one after another: all of them grant tokens to the one burnable user, so on a target
 * that keeps state per user (e.g. one that answers a second password grant with the first response)
 * runs side by side would meet each other's tokens, and the finding would name the wrong requirement
 * (under the self-validation's pw-grant-replayed-while-unused: GRANT-RT-001 instead of STATE-PW-002).
 */
const clockFreeRuns = (target: Target) => Math.max(1, Math.round(propertyRuns(target, 'lifecycle') / 5));

const clockCited = [
  'STATE-AT-EXP-001',
  'STATE-AT-EXP-002',
  'STATE-RT-UNUSED-002',
  'STATE-RT-EXP-001',
  'LIMIT-AT-LIFETIME-001',
  'LIMIT-RT-LIFETIME-001',
] as const;
const clockFreeCited = [
  'STATE-CC-001',
  'STATE-PW-001',
  'STATE-PW-002',
  'STATE-RT-USED-001',
  'STATE-RT-USED-002',
  'GRANT-RT-001',
  'GRANT-RT-002',
  'STATE-AT-AFTER-REFRESH-001',
] as const;
const familyCited = ['STATE-RT-FAMILY-001', 'STATE-RT-FAMILY-002'] as const;

test.describe('property: token lifecycle model', () => {
  test(
    'token lifecycle model with the clock: every answer across 1 h, 7 days and 45 days is the one the model predicts',
    requirement(...clockCited, needs('us', 'gateway', 'people', 'user:burnableUser'), {
      tag: [propertyTag('lifecycle-clock')],
    }),
    async ({ tokenClient, api, target, clock }, testInfo) => {
      // The 45-day edge is predicted only from a declared password age: only then does this check verify LIMIT-PWD-001.
      const cited: string[] = [...clockCited];
      if (passwordAgeSeconds(target) !== undefined) {
        cited.push('LIMIT-PWD-001');
        citeRequirement(testInfo, 'LIMIT-PWD-001');
      }
      const { arbitrary, check } = lifecycleProperty(
        { tokenClient, api, target, clock },
        { clock: true, familyRevocation: false },
        cited,
      );
      await runAttributedProperty(arbitrary, check, {
        name: 'lifecycle-clock',
        testInfo,
        runs: propertyRuns(target, 'lifecycle'),
      });
    },
  );

  test(
    'token lifecycle model without the clock: every answer of obtain, refresh, reuse and protected calls is the one the model predicts',
    requirement(...clockFreeCited, needs('us', 'gateway', 'people', 'user:burnableUser'), {
      tag: [propertyTag('lifecycle'), '@serial'],
    }),
    async ({ tokenClient, api, target }, testInfo) => {
      const { arbitrary, check } = lifecycleProperty(
        { tokenClient, api, target },
        { clock: false, familyRevocation: false },
        clockFreeCited,
      );
      await runAttributedProperty(arbitrary, check, { name: 'lifecycle', testInfo, runs: clockFreeRuns(target) });
    },
  );

  test(
    'token lifecycle model with reuse detection: after a used refresh token is presented again, its family is refused',
    requirement(...familyCited, needs('us', 'gateway', 'people', 'user:burnableUser'), {
      tag: [propertyTag('lifecycle-family'), '@serial'],
    }),
    async ({ tokenClient, api, target }, testInfo) => {
      const { arbitrary, check } = lifecycleProperty(
        { tokenClient, api, target },
        { clock: false, familyRevocation: true },
        familyCited,
      );
      await runAttributedProperty(arbitrary, check, {
        name: 'lifecycle-family',
        testInfo,
        runs: clockFreeRuns(target),
      });
    },
  );
});
