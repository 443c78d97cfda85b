// grant_type=password (spec §2.1, §2.2, §3 row 2, §4 row 3, §5.5, §5.7; RFC 6749 §4.3, §5.2).
// Every client, user and interpretation comes from the target profile through the fixtures.
import { randomUUID } from 'node:crypto';
import { choiceLabel, expect, judgedOn, markBlocked, needs, requirement, test } from '../../fixtures/index.ts';
import type { TokenClient } from '../../fixtures/index.ts';

/** A scope value no target grants (RFC 6749 §3.3 scope-token syntax). */
const unknownScope = 'token-conformance.unknown-scope';

/**
 * The profile user `tenant_system_name\user_name` split in its two parts. A username of another form
 * is the profile's declaration, not the target's answer: the check is BLOCKED by the profile.
 */
function splitUser(tokenClient: TokenClient): { tenant: string; userName: string; password: string } {
  const { username, password } = tokenClient.userCredentials('user');
  const at = username.indexOf('\\');
  if (!(at > 0 && at < username.length - 1))
    markBlocked(
      test.info(),
      'blocked by the profile: credentials.users.user.username is not of the form tenant_system_name\\user_name; the check sends its two parts apart',
      { profile: 'credentials.users.user.username' },
    );
  return { tenant: username.slice(0, at), userName: username.slice(at + 1), password };
}

test.describe('grant_type=password', () => {
  test(
    'GRANT-PW-001 a US password request with tenant_system_name\\user_name and its password gets a token with refresh_token and scope',
    requirement('GRANT-PW-001', needs('us', 'client:usPasswordClient', 'user:user')),
    async ({ tokenClient }) => {
      splitUser(tokenClient);
      const res = await tokenClient.password({
        region: 'us',
        client: 'usPasswordClient',
        user: 'user',
        specShaped: true,
      });
      await expect(res, tokenClient.declaredShapingNote('usPasswordClient', 'password', '§4 row 3')).toBeTokenIssued();
      await expect(res).toSatisfy('GRANT-PW-001');
    },
  );

  test(
    'GRANT-PW-002 the scope of a password-grant token response equals the declared scope set',
    requirement('GRANT-PW-002', needs('us', 'client:usPasswordClient', 'user:user')),
    async ({ tokenClient, control }) => {
      const res = await tokenClient.password({ region: 'us', client: 'usPasswordClient', user: 'user' });
      control.issued(res, { what: 'the password grant', grant: 'password' });
      // The declared scope set (OI passwordScopes): the judge decides it, WARN if assumed.
      await expect(res).toSatisfy('GRANT-PW-002');
    },
  );

  test(
    'GRANT-PW-004 a password request without username, or without password, is refused with invalid_request',
    requirement('GRANT-PW-004', needs('us', 'client:usPasswordClient', 'user:user')),
    async ({ tokenClient }) => {
      for (const field of ['username', 'password']) {
        await test.step(`without ${field}`, async () => {
          const res = await tokenClient.password({
            region: 'us',
            client: 'usPasswordClient',
            user: 'user',
            omit: [field],
          });
          await expect(res, `without ${field}`).toSatisfy('GRANT-PW-004');
        });
      }
    },
  );

  test(
    'GRANT-PW-005 a password request with a wrong password is refused with invalid_grant',
    requirement('GRANT-PW-005', needs('us', 'client:usPasswordClient', 'user:user')),
    async ({ tokenClient }) => {
      const { username, password } = tokenClient.userCredentials('user');
      const res = await tokenClient.password({
        region: 'us',
        client: 'usPasswordClient',
        user: { username, password: `${password}-wrong` },
      });
      await expect(res).toBeTokenError('invalid_grant');
    },
  );

  test(
    'GRANT-PW-006 a password request naming an unknown user or an unknown tenant is refused with invalid_grant',
    requirement('GRANT-PW-006', needs('us', 'client:usPasswordClient', 'user:user')),
    async ({ tokenClient }) => {
      const { tenant, userName, password } = splitUser(tokenClient);
      const nonce = randomUUID().slice(0, 8);
      const cases = [
        { label: "an unknown user in the user's tenant", username: `${tenant}\\tc-unknown-user-${nonce}` },
        { label: "the user's name in an unknown tenant", username: `tc-unknown-tenant-${nonce}\\${userName}` },
      ];
      for (const { label, username } of cases) {
        await test.step(label, async () => {
          const res = await tokenClient.password({
            region: 'us',
            client: 'usPasswordClient',
            user: { username, password },
          });
          await expect(res).toBeTokenError('invalid_grant');
        });
      }
    },
  );

  test(
    'GRANT-PW-007 a password request whose username lacks the tenant_system_name\\ prefix is refused with 400 and the declared error',
    requirement('GRANT-PW-007', needs('us', 'client:usPasswordClient', 'user:user')),
    async ({ tokenClient, target }) => {
      const declared = target.choice('usernameWithoutTenantError');
      const { userName, password } = splitUser(tokenClient);
      const res = await tokenClient.password({
        region: 'us',
        client: 'usPasswordClient',
        user: { username: userName, password },
      });
      await expect(res, 'refused with 400 and either error of OI-10').toBeTokenError(
        ['invalid_grant', 'invalid_request'],
        { status: 400 },
      );
      await judgedOn(declared, () =>
        expect(res, choiceLabel(declared)).toBeTokenError(declared.value, { status: 400 }),
      );
    },
  );

  test(
    'GRANT-PW-009 a password request by a client that may not use the password grant is refused with unauthorized_client',
    requirement('GRANT-PW-009', needs('us', 'user:user')),
    async ({ tokenClient }) => {
      const res = await tokenClient.password({ region: 'us', client: 'usCcOnlyClient', user: 'user' });
      await expect(res).toBeTokenError('unauthorized_client');
    },
  );

  test(
    'GRANT-PW-010 a password request at the EU endpoint gets the declared outcome',
    requirement('GRANT-PW-010', needs('eu', 'client:euClient', 'user:user')),
    async ({ tokenClient, target }) => {
      const declared = target.choice('euOtherGrants');
      const res = await tokenClient.password({ region: 'eu', client: 'euClient', user: 'user' });
      await judgedOn(declared, async () => {
        if (declared.value === 'supported') await expect(res, choiceLabel(declared)).toBeTokenIssued();
        else await expect(res, choiceLabel(declared)).toBeTokenError(declared.value);
      });
    },
  );

  test(
    'GRANT-PW-011 a password request with an unknown scope value is refused with invalid_scope',
    requirement('GRANT-PW-011', needs('us', 'client:usPasswordClient', 'user:user')),
    async ({ tokenClient }) => {
      const res = await tokenClient.password({
        region: 'us',
        client: 'usPasswordClient',
        user: 'user',
        extra: { scope: unknownScope },
      });
      await expect(res).toBeTokenError('invalid_scope');
    },
  );
});
