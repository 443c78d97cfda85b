// Versioning (spec §9): the version is part of the path. The v1 paths are served (VER-001); the
// token path of another version issues no token (VER-004). Protected paths of another version are
// ERR-GW-1020 (specs/gateway/paths.spec.ts).
import { expect, needs, requirement, test, tokenPaths, gatewayToken } from '../../fixtures/index.ts';

test.describe('versioned paths', () => {
  test('VER-001 the US token path /api/v1/auth/oauth2/token is served',
    requirement('VER-001', needs('us')),
    async ({ tokenClient, rawHttp }) => {
      expect(new URL(rawHttp.tokenUrl('us')).pathname, 'setup: the US token URL').toMatch(/\/api\/v1\/auth\/oauth2\/token$/);
      await expect(await tokenClient.clientCredentials({ region: 'us', client: 'usClient' })).toBeTokenIssued();
    });

  test('VER-001 the EU token path /oauth2/default/v1/token is served',
    requirement('VER-001', needs('eu')),
    async ({ tokenClient, rawHttp }) => {
      expect(new URL(rawHttp.tokenUrl('eu')).pathname, 'setup: the EU token URL').toMatch(/\/oauth2\/default\/v1\/token$/);
      await expect(await tokenClient.clientCredentials({ region: 'eu', client: 'euClient' })).toBeTokenIssued();
    });

  test('VER-001 the protected path /v1/people/er/<identifier> is served',
    requirement('VER-001', needs('people')),
    async ({ target, tokenClient, api }, testInfo) => {
      const token = await gatewayToken(target, tokenClient, testInfo);
      const res = await api.person('existing', { token });
      expect(res.status, res.describe()).toBe(200);
      expect(res.mediaType, 'a JSON answer').toBe('application/json');
    });

  for (const version of ['v2', 'v0']) {
    test(`VER-004 a token request to the US token path of version ${version} issues no token`,
      requirement('VER-004', needs('us', 'client:usClient')),
      async ({ target, tokenClient, rawHttp }) => {
        const client = tokenClient.credentials('usClient');
        const url = target.authUrl('us')!.replace(/\/+$/, '') + tokenPaths.us.replace('/api/v1/', `/api/${version}/`);
        await expect(await tokenClient.clientCredentials({ region: 'us', client: 'usClient' }), 'setup: the same request at v1 issues a token').toBeTokenIssued();
        const res = await rawHttp.send({
          method: 'POST',
          url,
          headers: [['content-type', 'application/x-www-form-urlencoded'], ['accept', 'application/json']],
          body: rawHttp.form([['grant_type', 'client_credentials'], ['client_id', client.clientId], ['client_secret', client.clientSecret]]),
        });
        const body = res.json !== null && typeof res.json === 'object' ? (res.json as Record<string, unknown>) : {};
        expect(body.access_token, `no access_token member — HTTP ${res.status}`).toBeUndefined();
        expect(res.text.includes('access_token'), `no access_token anywhere in the body — HTTP ${res.status}`).toBe(false);
      });
  }
});
