// Spec §3 row 2 and the text after the table: a password grant gives an access token that works
// and an unused refresh token; a partner may instead repeat the full password grant.
import { expect, needs, requirement, test } from '../../fixtures/index.ts';

test.describe('grant_type=password: lifecycle', () => {
  test(
    'STATE-PW-001 a password-grant access token is accepted by the protected endpoint',
    requirement('STATE-PW-001', needs('us', 'gateway')),
    async ({ tokenClient, api }) => {
      const token = await tokenClient.obtain.password({ region: 'us', user: 'user' });
      const res = await api.person('existing', { token: token.access_token });
      expect(res.status, `the protected endpoint accepts the token — got ${res.describe()}`).toBe(200);
    },
  );

  test(
    'STATE-PW-002 a second full password grant while the first refresh token is unused gives a new access token and a new refresh token',
    requirement('STATE-PW-002', needs('us')),
    async ({ tokenClient }) => {
      const first = await tokenClient.obtain.password({ region: 'us', user: 'user' });
      expect(typeof first.refresh_token, 'setup: the first password grant returns a refresh_token').toBe('string');

      await test.step('repeat the full password grant (the first refresh token stays unused)', async () => {
        const second = await tokenClient.password({ region: 'us', user: 'user' });
        await expect(second).toBeTokenIssued();
        expect(second.accessToken === first.access_token, 'a new access token (not the first one again)').toBe(false);
        expect(second.refreshToken !== undefined, 'the response carries a refresh_token').toBe(true);
        expect(second.refreshToken === first.refresh_token, 'a new refresh token (not the first one again)').toBe(
          false,
        );
      });
    },
  );
});
