// Account state at the token endpoint (Gitea CVE-2026-128359, Apache SeaTunnel CVE-2026-128981:
// tokens issued or refreshed for an account deactivated after issuance). Each check deactivates a
// principal through the target's principal control (the profile's hooks, or the reference's test
// controls) and the principals fixture activates it again after the check; the checks are @serial,
// so no other check on the same target uses the principal meanwhile. What the gateway does with the
// principal's access tokens is ERR-GW-5002 (specs/gateway/backend.spec.ts).
import { expect, needs, obtainPasswordTokens, requirement, test } from '../../fixtures/index.ts';
import { obtainRefreshed } from '../../fixtures/support/lifecycle/password-tokens.ts';

test.describe('account state: a deactivated user', () => {
  test(
    'STATE-DEACT-001 a refresh token of a user deactivated after issuance is refused with invalid_grant',
    requirement('STATE-DEACT-001', needs('us', 'user:burnableUser')),
    async ({ tokenClient, principals }) => {
      const first = await obtainPasswordTokens(tokenClient, 'burnableUser');
      // Control: the family refreshes while the user is active, so a refusal below is the account state's.
      const second = await test.step('refresh once while the user is active', () =>
        obtainRefreshed(tokenClient, first.refresh_token));
      await principals.deactivate({ user: 'burnableUser' });
      await test.step('refresh with the unused refresh token after the user was deactivated', async () => {
        const res = await tokenClient.refresh(second.refresh_token, { region: 'us' });
        await expect(res, 'a deactivated user gets no token by a refresh (RFC 6749 §6, §5.2)').toBeTokenError(
          'invalid_grant',
        );
      });
    },
  );

  test(
    'STATE-DEACT-002 a password grant of a deactivated user is refused with invalid_grant, and issues again once reactivated',
    requirement('STATE-DEACT-002', needs('us', 'user:burnableUser')),
    async ({ tokenClient, principals }) => {
      await test.step('control: the password grant issues tokens while the user is active', async () => {
        await tokenClient.obtain.password({ region: 'us', user: 'burnableUser' });
      });
      await principals.deactivate({ user: 'burnableUser' });
      await test.step('the password grant after the user was deactivated', async () => {
        const res = await tokenClient.password({ region: 'us', user: 'burnableUser' });
        await expect(res, 'a deactivated user gets no token by its password (RFC 6749 §4.3.2)').toBeTokenError(
          'invalid_grant',
        );
      });
      await principals.activate({ user: 'burnableUser' });
      await test.step('the password grant once the user is active again', async () => {
        const res = await tokenClient.password({ region: 'us', user: 'burnableUser' });
        await expect(res, 'once reactivated, the password grant issues tokens again').toBeTokenIssued();
      });
    },
  );
});

test.describe('account state: a deactivated client', () => {
  test(
    'STATE-DEACT-003 client_credentials of a deactivated client is refused with invalid_client, and issues again once reactivated',
    requirement('STATE-DEACT-003', needs('us', 'client:usCcOnlyClient')),
    async ({ tokenClient, principals }) => {
      await test.step('control: client_credentials issues a token while the client is active', async () => {
        await tokenClient.obtain.clientCredentials({ region: 'us', client: 'usCcOnlyClient' });
      });
      await principals.deactivate({ client: 'usCcOnlyClient' });
      await test.step('client_credentials after the client was deactivated', async () => {
        const res = await tokenClient.clientCredentials({ region: 'us', client: 'usCcOnlyClient' });
        await expect(res, 'a deactivated client gets no token (RFC 6749 §2.3.1, §5.2)').toBeTokenError(
          'invalid_client',
        );
      });
      await principals.activate({ client: 'usCcOnlyClient' });
      await test.step('client_credentials once the client is active again', async () => {
        const res = await tokenClient.clientCredentials({ region: 'us', client: 'usCcOnlyClient' });
        await expect(res, 'once reactivated, client_credentials issues a token again').toBeTokenIssued();
      });
    },
  );

  test(
    'STATE-DEACT-004 a refresh token of a client deactivated after issuance is refused',
    requirement('STATE-DEACT-004', needs('us', 'client:usClient2', 'user:user')),
    async ({ tokenClient, principals }) => {
      const first = await tokenClient.obtain.password({ region: 'us', client: 'usClient2', user: 'user' });
      expect(typeof first.refresh_token, 'setup: the password grant returns a refresh_token').toBe('string');
      // Control: the family refreshes while the client is active.
      const second = await test.step('refresh once while the client is active', () =>
        tokenClient.obtain.refresh(first.refresh_token!, { region: 'us', client: 'usClient2' }));
      expect(typeof second.refresh_token, 'setup: the refresh returns a new refresh_token').toBe('string');
      await principals.deactivate({ client: 'usClient2' });
      await test.step('refresh with the unused refresh token after the client was deactivated', async () => {
        const res = await tokenClient.refresh(second.refresh_token!, { region: 'us', client: 'usClient2' });
        await expect(
          res,
          'a deactivated client gets no token by a refresh: it can no longer authenticate (invalid_client), or its grant is gone (invalid_grant)',
        ).toBeTokenError(['invalid_client', 'invalid_grant']);
      });
    },
  );
});
