// Spec §8 "Refresh token uses: 1": single use holds under concurrency. The same unused refresh
// token is sent in concurrent requests: exactly one gets a token, every other gets invalid_grant.
import { expect, needs, requirement, test, obtainPasswordTokens } from '../../fixtures/index.ts';

test.describe('limit: refresh token uses (1)', () => {
  for (const concurrent of [2, 10]) {
    test(
      `LIMIT-RT-USES-001 of ${concurrent} concurrent refreshes with one unused refresh token exactly one succeeds, the others get invalid_grant`,
      requirement('LIMIT-RT-USES-001', needs('us')),
      async ({ tokenClient }) => {
        const { refresh_token: refreshToken } = await obtainPasswordTokens(tokenClient, 'burnableUser');
        const responses = await test.step(`${concurrent} refreshes at once`, () =>
          Promise.all(Array.from({ length: concurrent }, () => tokenClient.refresh(refreshToken, { region: 'us' }))));

        const succeeded = responses.filter((r) => r.status === 200);
        expect(
          succeeded.length,
          `exactly one of ${concurrent} concurrent refreshes succeeds — statuses ${responses.map((r) => r.status).join(', ')}`,
        ).toBe(1);
        await expect(succeeded[0]!, 'the one success is a token response').toBeTokenIssued();
        for (const [i, refused] of responses.filter((r) => r.status !== 200).entries()) {
          await expect.soft(refused, `refused refresh #${i + 1}`).toBeTokenError('invalid_grant');
        }
      },
    );
  }
});
