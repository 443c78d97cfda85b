// Property: N parallel uses of one unused refresh token yield exactly one token; every other use
// gets invalid_grant (LIMIT-RT-USES-001, spec §8 "Refresh token uses: 1"). N is drawn from 2 up to 10, within
// what the profile's load budget allows at once (2 when load-like checks are not allowed).
import fc from 'fast-check';
import {
  needs, requirement, test, tokenErrorResult, tokenIssuedResult, LoadBudget, propertyRuns, propertyTag,
  runProperty,
} from '../../fixtures/index.ts';

const name = 'refresh-concurrency';

test.describe('property: concurrent refresh', () => {
  test('concurrent refresh: of N parallel refreshes with one unused refresh token exactly one succeeds, the others get invalid_grant',
    requirement('LIMIT-RT-USES-001', needs('us', 'user:burnableUser'), { tag: [propertyTag(name), '@serial'] }),
    async ({ tokenClient, target }, testInfo) => {
      const load = target.profile.capabilities.load;
      const bound = load.allowed ? Math.max(2, Math.min(10, load.maxRequestsPerSecond)) : 2;
      const budget = LoadBudget.of(target);
      const property = fc.asyncProperty(fc.integer({ min: 2, max: bound }), async (n) => {
        const first = await tokenClient.obtain.password({ user: 'burnableUser' });
        const responses = await budget.burst(n, () => tokenClient.refresh(first.refresh_token!));
        const won = responses.filter((r) => r.status === 200);
        const problems: string[] = [];
        if (won.length !== 1) problems.push(`${won.length} of ${n} succeeded (statuses ${responses.map((r) => r.status).join(', ')})`);
        for (const w of won) { const r = tokenIssuedResult(w); if (!r.pass) problems.push(r.message()); }
        for (const l of responses.filter((r) => r.status !== 200)) { const r = tokenErrorResult(l, 'invalid_grant', {}); if (!r.pass) problems.push(r.message()); }
        if (problems.length > 0) throw new Error(`N=${n}: ${problems.join('; ')}`);
      });
      await runProperty(property, { name, testInfo, runs: propertyRuns(target, 'concurrency') });
    });
});
