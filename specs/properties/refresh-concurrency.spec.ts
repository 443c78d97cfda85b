// Property: N parallel uses of one unused refresh token yield exactly one token; every other use
// gets invalid_grant (LIMIT-RT-USES-001, spec §8 "Refresh token uses: 1"). N is drawn from 2 up to 10, within
// what the profile's load budget allows at once (2 when load-like checks are not allowed).
import { needs, requirement, test } from '../../fixtures/index.ts';
import { propertyRuns, propertyTag, runProperty } from '../../fixtures/support/properties/property-runner.ts';
import { concurrentRefreshProperty } from '../../fixtures/support/properties/refresh-concurrency.property.ts';

const name = 'refresh-concurrency';

test.describe('property: concurrent refresh', () => {
  test(
    'concurrent refresh: of N parallel refreshes with one unused refresh token exactly one succeeds, the others get invalid_grant',
    requirement('LIMIT-RT-USES-001', needs('us', 'user:burnableUser'), { tag: [propertyTag(name), '@serial'] }),
    async ({ tokenClient, target }, testInfo) => {
      const property = concurrentRefreshProperty(tokenClient, target);
      await runProperty(property, { name, testInfo, runs: propertyRuns(target, 'concurrency') });
    },
  );
});
