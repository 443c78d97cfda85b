// Versioning (spec §9): the version is part of the path. The v1 paths are served (VER-001); the
// token path of another version issues no token (VER-004). Protected paths of another version are
// ERR-GW-1020 (specs/gateway/paths.spec.ts).
import { asClientCredentialsResponse, expect, needs, requirement, test } from '../../fixtures/index.ts';
import { tokenPaths } from '../../schemas/token-paths.ts';

test.describe('versioned paths', () => {
  // A token path is served when its token request is answered by the token endpoint: a token. A 404
  // says the path is not served (FAIL); any other refusal is the token request's own business, which
  // the issuance requirement judges (GRANT-CC-001/002): the check is BLOCKED by it (control.issued).
  test(
    'VER-001 the US token path /api/v1/auth/oauth2/token is served',
    requirement('VER-001', needs('us')),
    async ({ tokenClient, rawHttp, control }) => {
      expect(new URL(rawHttp.tokenUrl('us')).pathname, 'setup: the US token URL').toMatch(
        /\/api\/v1\/auth\/oauth2\/token$/,
      );
      const res = await tokenClient.clientCredentials({ region: 'us', client: 'usClient' });
      expect(res.status, `the token path is served (not 404) — got ${res.describe()}`).not.toBe(404);
      control.issued(res, { what: 'a client_credentials request at the US token path', region: 'us' });
    },
  );

  test(
    'VER-001 the EU token path /oauth2/default/v1/token is served',
    requirement('VER-001', needs('eu')),
    async ({ tokenClient, rawHttp, control }) => {
      expect(new URL(rawHttp.tokenUrl('eu')).pathname, 'setup: the EU token URL').toMatch(
        /\/oauth2\/default\/v1\/token$/,
      );
      const res = await tokenClient.clientCredentials({ region: 'eu', client: 'euClient' });
      expect(res.status, `the token path is served (not 404) — got ${res.describe()}`).not.toBe(404);
      control.issued(res, { what: 'a client_credentials request at the EU token path', region: 'eu' });
    },
  );

  test(
    'VER-001 the protected path /v1/people/er/<identifier> is served',
    requirement('VER-001', needs('people')),
    async ({ api, wire }) => {
      const token = await wire.token();
      const res = await api.person('existing', { token });
      expect(res.status, res.describe()).toBe(200);
      expect(res.mediaType, 'a JSON answer').toBe('application/json');
    },
  );

  for (const version of ['v2', 'v0']) {
    test(
      `VER-004 a token request to the US token path of version ${version} issues no token`,
      requirement('VER-004', needs('us', 'client:usClient')),
      async ({ target, tokenClient, rawHttp, redactor, control }) => {
        const client = tokenClient.credentials('usClient');
        const url = target.authUrl('us')!.replace(/\/+$/, '') + tokenPaths.us.replace('/api/v1/', `/api/${version}/`);
        control.issued(await tokenClient.clientCredentials({ region: 'us', client: 'usClient' }), {
          what: 'the same request at v1',
        });
        const data = await rawHttp.send({
          method: 'POST',
          url,
          headers: [
            ['content-type', 'application/x-www-form-urlencoded'],
            ['accept', 'application/json'],
          ],
          body: rawHttp.form([
            ['grant_type', 'client_credentials'],
            ['client_id', client.clientId],
            ['client_secret', client.clientSecret],
          ]),
        });
        await expect(asClientCredentialsResponse(data, redactor, 'us', target)).toSatisfy('VER-004');
      },
    );
  }
});
