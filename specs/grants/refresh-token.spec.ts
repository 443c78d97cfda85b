// grant_type=refresh_token (spec §2.1, §3 row 4, §4 row 4, §8; RFC 6749 §5.2, §6).
// Refresh checks burn refresh tokens: each one obtains fresh tokens from the password grant with
// the profile's burnableUser, the user whose refresh tokens the suite may burn.
import { randomBytes } from 'node:crypto';
import { choiceLabel, expect, judgedOn, markBlocked, needs, requirement, test } from '../../fixtures/index.ts';
import type { TokenClient, TokenResponse, TokenSet } from '../../fixtures/index.ts';

/** A scope value no target grants (RFC 6749 §3.3 scope-token syntax). */
const notGrantedScope = 'token-conformance.not-granted';

/** What every check here needs to obtain refresh tokens at US. */
const usRefresh = ['us', 'client:usPasswordClient', 'user:burnableUser'] as const;

/** Fresh tokens from a password grant with the burnable user (`setup:` when no refresh_token comes back). */
async function freshTokens(
  tokenClient: TokenClient,
  options: Parameters<TokenClient['password']>[0] = {},
): Promise<TokenSet & { refresh_token: string }> {
  const tokens = await tokenClient.obtain.password({
    region: 'us',
    client: 'usPasswordClient',
    user: 'burnableUser',
    ...options,
  });
  expect(tokens.refresh_token, 'setup: the password grant returns a refresh_token').toBeTruthy();
  return tokens as TokenSet & { refresh_token: string };
}

/** A fresh password-grant response with the burnable user, its refresh_token unused (control first: `setup:` without one). */
async function freshResponse(
  tokenClient: TokenClient,
  control: { issued(res: TokenResponse, options: { what: string; grant: 'password' }): void },
): Promise<TokenResponse & { refreshToken: string }> {
  const res = await tokenClient.password({ region: 'us', client: 'usPasswordClient', user: 'burnableUser' });
  control.issued(res, { what: 'the password grant with the burnable user', grant: 'password' });
  expect(res.refreshToken, 'setup: the password grant returns a refresh_token').toBeTruthy();
  return res as TokenResponse & { refreshToken: string };
}

/** A refresh of `first` asking for its scope plus a value never granted (control first: `first` states its scope, GRANT-PW-001). */
function refreshBeyondGrant(
  tokenClient: TokenClient,
  first: TokenSet & { refresh_token: string },
): Promise<TokenResponse> {
  return tokenClient.refresh(first.refresh_token, {
    region: 'us',
    client: 'usPasswordClient',
    extra: { scope: `${first.scope} ${notGrantedScope}` },
  });
}

/** A scope string as a sorted list of distinct values (compared as a set). */
const scopeSet = (scope: string | undefined): string[] => [...new Set((scope ?? '').split(' '))].sort();

test.describe('grant_type=refresh_token', () => {
  test(
    'GRANT-RT-001 a US refresh with an unused refresh token gets a token with refresh_token and scope',
    requirement('GRANT-RT-001', needs(...usRefresh)),
    async ({ tokenClient }) => {
      const first = await freshTokens(tokenClient);
      const res = await tokenClient.refresh(first.refresh_token, {
        region: 'us',
        client: 'usPasswordClient',
        specShaped: true,
      });
      await expect(
        res,
        tokenClient.declaredShapingNote('usPasswordClient', 'refresh_token', '§4 row 4'),
      ).toBeTokenIssued();
      await expect(res).toSatisfy('GRANT-RT-001');
    },
  );

  test(
    'GRANT-RT-002 a refresh returns a refresh_token and an access_token that differ from the ones it replaced',
    requirement('GRANT-RT-002', needs(...usRefresh)),
    async ({ tokenClient, control }) => {
      const first = await freshResponse(tokenClient, control);
      const second = await tokenClient.refresh(first.refreshToken, { region: 'us', client: 'usPasswordClient' });
      control.issued(second, { what: 'the refresh of an unused refresh token', grant: 'refresh_token' });
      await expect([first, second]).toSatisfy('GRANT-RT-002');
    },
  );

  test(
    'GRANT-RT-003 a refresh without a scope parameter returns the scope of the original grant',
    requirement('GRANT-RT-003', needs(...usRefresh)),
    async ({ tokenClient, control }) => {
      const first = await freshResponse(tokenClient, control);
      control.answered(Boolean(first.scope), `scope ${JSON.stringify(first.scope)}`, {
        what: "the password grant's response (a scope)",
        by: 'GRANT-PW-001',
      });
      const res = await tokenClient.refresh(first.refreshToken, { region: 'us', client: 'usPasswordClient' });
      await expect(res).toBeTokenIssued();
      await expect([first, res]).toSatisfy('GRANT-RT-003');
    },
  );

  test(
    'GRANT-RT-004 a refresh whose scope includes a value not originally granted never gets that value',
    requirement('GRANT-RT-004', needs(...usRefresh)),
    async ({ tokenClient, control }) => {
      const first = await freshTokens(tokenClient);
      control.answered(Boolean(first.scope), `scope ${JSON.stringify(first.scope)}`, {
        what: "the password grant's response (a scope)",
        by: 'GRANT-PW-001',
      });
      const res = await refreshBeyondGrant(tokenClient, first);
      if (res.accessToken === undefined) {
        expect(res.status, `no token, so a refusal — got ${res.describe()}`).toBeGreaterThanOrEqual(400);
        return;
      }
      // RFC 6749 §5.1: a granted scope other than the requested one must be stated; unstated, the token claims the requested scope.
      expect(
        res.scope,
        `a token was issued, so the response states the scope it grants — got ${res.describe()}`,
      ).toBeDefined();
      const beyond = scopeSet(res.scope).filter((s) => !scopeSet(first.scope).includes(s));
      expect(beyond, `no scope value beyond the original grant "${first.scope}" — got "${res.scope}"`).toEqual([]);
    },
  );

  test(
    'GRANT-RT-014 a refresh whose scope includes a value not originally granted gets the declared answer (invalid_scope, or the original scope)',
    requirement('GRANT-RT-014', needs(...usRefresh)),
    async ({ tokenClient, control, target }) => {
      const declared = target.choice('refreshScopeBeyondGrant');
      const first = await freshTokens(tokenClient);
      control.answered(Boolean(first.scope), `scope ${JSON.stringify(first.scope)}`, {
        what: "the password grant's response (a scope)",
        by: 'GRANT-PW-001',
      });
      const res = await refreshBeyondGrant(tokenClient, first);
      await judgedOn(declared, async () => {
        if (declared.value === 'invalid_scope') {
          await expect(res, choiceLabel(declared)).toBeTokenError('invalid_scope');
          return;
        }
        await expect(res, choiceLabel(declared)).toBeTokenIssued();
        expect(
          scopeSet(res.scope),
          `${choiceLabel(declared)}: the response states the original scope "${first.scope}" — got "${res.scope ?? '(none)'}"`,
        ).toEqual(scopeSet(first.scope));
      });
    },
  );

  test(
    'GRANT-RT-005 a refresh whose scope is a strict subset of the original grant gets exactly the requested scope',
    requirement('GRANT-RT-005', needs(...usRefresh)),
    async ({ tokenClient, target }, testInfo) => {
      const first = await freshTokens(tokenClient);
      const original = scopeSet(first.scope).filter((s) => s !== '');
      // A scope the profile declares for the password grant is what the grant asks for: one value
      // declared, one granted is the declaration's doing, not the target's.
      const field = target.tokenParameterField('usPasswordClient', 'password', 'scope');
      const declared = target.tokenParameters('usPasswordClient', 'password').find(([k]) => k === 'scope')?.[1];
      if (original.length < 2 && field !== undefined && scopeSet(declared).filter((s) => s !== '').length < 2)
        markBlocked(
          testInfo,
          `blocked by the profile: ${field} declares one value ("${declared ?? ''}"); GRANT-RT-005 needs two to narrow (the password grant returned "${first.scope ?? '(none)'}")`,
          { profile: field },
        );
      expect(
        original.length,
        `setup: the password grant returns at least two scope values — got "${first.scope ?? '(none)'}"`,
      ).toBeGreaterThanOrEqual(2);
      const requested = original.slice(0, -1);
      const res = await tokenClient.refresh(first.refresh_token, {
        region: 'us',
        client: 'usPasswordClient',
        extra: { scope: requested.join(' ') },
      });
      await expect(res).toBeTokenIssued();
      expect(
        scopeSet(res.scope),
        `scope "${res.scope ?? '(none)'}" as a set, requested "${requested.join(' ')}"`,
      ).toEqual(requested);
    },
  );

  test(
    "GRANT-RT-006 a refresh token presented with another client's valid credentials is refused with invalid_grant",
    requirement('GRANT-RT-006', needs(...usRefresh)),
    async ({ tokenClient, control }) => {
      // Control first: usClient2's own credentials get a token, so a refusal of them is not theirs.
      const own = await tokenClient.password({ region: 'us', client: 'usClient2', user: 'burnableUser' });
      control.issued(own, { what: 'the password grant by usClient2 alone', grant: 'password' });
      const first = await freshResponse(tokenClient, control);
      const res = await tokenClient.refresh(first.refreshToken, { region: 'us', client: 'usClient2' });
      await expect([own, first, res]).toSatisfy('GRANT-RT-006');
    },
  );

  test(
    'GRANT-RT-007 a refresh_token request without the refresh_token parameter is refused with invalid_request',
    requirement('GRANT-RT-007', needs('us', 'client:usPasswordClient')),
    async ({ tokenClient }) => {
      const res = await tokenClient.refresh('', { region: 'us', client: 'usPasswordClient', omit: ['refresh_token'] });
      await expect(res).toSatisfy('GRANT-RT-007');
    },
  );

  // One check per case: a target that already fails one of them still shows a new failure in another.
  const notRefreshTokens: { label: string; value: (first: TokenSet & { refresh_token: string }) => string }[] = [
    { label: 'a random string', value: () => randomBytes(24).toString('base64url') },
    { label: 'the access token of the password grant', value: (first) => first.access_token },
    { label: 'a truncated refresh token', value: (first) => first.refresh_token.slice(0, -1) },
  ];
  for (const { label, value } of notRefreshTokens) {
    test(
      `GRANT-RT-008 a refresh_token that is ${label} is refused with invalid_grant`,
      requirement('GRANT-RT-008', needs(...usRefresh)),
      async ({ tokenClient }) => {
        const first = await freshTokens(tokenClient);
        await expect(
          await tokenClient.refresh(value(first), { region: 'us', client: 'usPasswordClient' }),
        ).toBeTokenError('invalid_grant');
      },
    );
  }

  test(
    'GRANT-RT-009 a refresh with a valid refresh token and a wrong client_secret is refused with invalid_client',
    requirement('GRANT-RT-009', needs(...usRefresh)),
    async ({ tokenClient, target }) => {
      const status = target.choice('invalidClientStatus');
      const first = await freshTokens(tokenClient);
      const { clientId, clientSecret } = tokenClient.credentials('usPasswordClient');
      const res = await tokenClient.refresh(first.refresh_token, {
        region: 'us',
        client: { clientId, clientSecret: `${clientSecret}-wrong` },
      });
      await expect(res, 'a wrong client_secret').toBeTokenError('invalid_client');
      await judgedOn(status, () => expect(res.status, `${choiceLabel(status)} — ${res.describe()}`).toBe(status.value));
    },
  );

  test(
    'GRANT-RT-010 a refresh by a client allowed only client_credentials is refused with unauthorized_client or invalid_grant',
    requirement('GRANT-RT-010', needs(...usRefresh)),
    async ({ tokenClient }) => {
      // The client's own token first: an invalid_client to its refresh is then no failed authentication.
      const cc = await tokenClient.obtain.clientCredentials({ region: 'us', client: 'usCcOnlyClient' });
      const first = await freshTokens(tokenClient);
      const res = await tokenClient.refresh(first.refresh_token, { region: 'us', client: 'usCcOnlyClient' });
      await expect([tokenClient.issuing(cc), res]).toSatisfy('GRANT-RT-010');
    },
  );

  test(
    'GRANT-RT-010 a client allowed only client_credentials that presents its own access token as a refresh_token is refused with unauthorized_client or invalid_grant',
    requirement('GRANT-RT-010', needs('us', 'client:usCcOnlyClient')),
    async ({ tokenClient }) => {
      // §5.6: a client that uses client_credentials cannot refresh; nor is its access token a refresh token (RFC 6749 §5.2).
      const cc = await tokenClient.obtain.clientCredentials({ region: 'us', client: 'usCcOnlyClient' });
      const res = await tokenClient.refresh(cc.access_token, { region: 'us', client: 'usCcOnlyClient' });
      await expect([tokenClient.issuing(cc), res]).toSatisfy('GRANT-RT-010');
    },
  );

  test(
    'GRANT-RT-011 a refresh_token request at the EU endpoint gets the declared outcome',
    requirement('GRANT-RT-011', needs('eu', 'client:euClient', 'user:burnableUser')),
    async ({ tokenClient, target }) => {
      const declared = target.choice('euOtherGrants');
      if (declared.value === 'supported') {
        const first = await freshTokens(tokenClient, { region: 'eu', client: 'euClient' });
        const res = await tokenClient.refresh(first.refresh_token, { region: 'eu', client: 'euClient' });
        await judgedOn(declared, () => expect(res, choiceLabel(declared)).toBeTokenIssued());
        return;
      }
      const refusal = declared.value;
      // No EU refresh token can exist: present a fresh, unused US one with the EU client.
      const first = await freshTokens(tokenClient);
      const res = await tokenClient.refresh(first.refresh_token, { region: 'eu', client: 'euClient' });
      expect(
        res.accessToken,
        `a US refresh token presented at EU issues no access_token — got ${res.describe()}`,
      ).toBeUndefined();
      await judgedOn(declared, () => expect(res, choiceLabel(declared)).toBeTokenError(refusal));
    },
  );

  test(
    'GRANT-RT-013 a refresh token presented with a wrong client_secret stays unused: the right credentials then refresh it',
    requirement('GRANT-RT-013', needs(...usRefresh)),
    async ({ tokenClient }) => {
      const first = await freshTokens(tokenClient);
      const { clientId, clientSecret } = tokenClient.credentials('usPasswordClient');
      await test.step('refused for a wrong client_secret', async () => {
        const refused = await tokenClient.refresh(first.refresh_token, {
          region: 'us',
          client: { clientId, clientSecret: `${clientSecret}-wrong` },
        });
        expect(refused.ok, `setup: the wrong client_secret is refused — got ${refused.describe()}`).toBe(false);
        expect(
          refused.status,
          `setup: the refusal is an error status — got ${refused.describe()}`,
        ).toBeGreaterThanOrEqual(400);
      });
      await test.step('the same refresh token with the right credentials succeeds', async () => {
        await expect(
          await tokenClient.refresh(first.refresh_token, { region: 'us', client: 'usPasswordClient' }),
        ).toBeTokenIssued();
      });
    },
  );
});
