// The bearer rule of spec §5.1 at the protected API: `Authorization: Bearer <access token>` is
// accepted, anything else that claims to be a credential is refused (RFC 6750 §2, §3).
import {
  choiceLabel,
  expect,
  judgedOn,
  needs,
  requirement,
  test,
  alterOneCharacter,
  unknownToken,
} from '../../fixtures/index.ts';

test.describe('protected call: Authorization: Bearer', () => {
  test(
    'BEARER-001 a call with a client_credentials access token and Accept: application/json answers 200 JSON',
    requirement('BEARER-001', needs('people')),
    async ({ api, wire }) => {
      const token = await wire.token();
      const res = await api.person('existing', { token, accept: 'application/json' });
      await expect(res).toSatisfy('BEARER-001');
    },
  );

  test(
    'BEARER-001 a call with a password-grant access token and Accept: application/json answers 200 JSON',
    requirement('BEARER-001', needs('us', 'people', 'user:user')),
    async ({ tokenClient, api }) => {
      const token = (await tokenClient.obtain.password({ user: 'user' })).access_token;
      const res = await api.person('existing', { token, accept: 'application/json' });
      await expect(res).toSatisfy('BEARER-001');
    },
  );

  test(
    'BEARER-002 a call without an Authorization header is refused with 401',
    requirement('BEARER-002', needs('people')),
    async ({ api }) => {
      await expect(await api.person('existing')).toSatisfy('BEARER-002');
    },
  );

  test(
    'BEARER-003 a call with an unknown access token is refused with 401',
    requirement('BEARER-003', needs('people')),
    async ({ api, wire }) => {
      // Unknown but well-formed for the target's token format (JWT or opaque), read from a real token.
      const res = await api.person('existing', { token: unknownToken(await wire.token()) });
      expect(res.status, res.describe()).toBe(401);
    },
  );

  test(
    'BEARER-003 a call with a valid access token altered in one character is refused with 401',
    requirement('BEARER-003', needs('people')),
    async ({ api, control, wire }) => {
      const token = await wire.token();
      const plain = await api.person('existing', { token });
      control.answered(plain.status === 200, plain.describe(), {
        what: 'the unaltered token is accepted',
        by: 'BEARER-001',
      });
      const res = await api.person('existing', { token: alterOneCharacter(token) });
      expect(res.status, res.describe()).toBe(401);
    },
  );

  for (const scheme of ['bearer', 'BEARER']) {
    test(
      `BEARER-006 a call whose scheme is written ${scheme} is accepted`,
      requirement('BEARER-006', needs('people')),
      async ({ api, wire }) => {
        const token = await wire.token();
        const res = await api.person('existing', { authorization: `${scheme} ${token}` });
        expect(res.status, res.describe()).toBe(200);
      },
    );
  }

  test(
    'BEARER-009 a call with the access token only in the access_token query parameter is refused with 401 like a call without credentials',
    requirement('BEARER-009', needs('people')),
    async ({ target, api, wire }) => {
      const token = await wire.token();
      const id = encodeURIComponent(target.profile.resources.people!.existing);
      const without = await api.get(`/v1/people/er/${id}`);
      expect(without.status, `setup: a call without credentials is refused with 401 — ${without.describe()}`).toBe(401);
      const res = await api.get(`/v1/people/er/${id}?access_token=${encodeURIComponent(token)}`);
      // The judge compares the refusal with the one of the call without credentials before it.
      await expect([without, res]).toSatisfy('BEARER-009');
    },
  );

  test(
    'BEARER-011 a GET with the access token only as a form field of its body is not accepted',
    requirement('BEARER-011', needs('people')),
    async ({ api, wire }) => {
      const token = await wire.token();
      const res = await api.person('existing', {
        headers: [['content-type', 'application/x-www-form-urlencoded']],
        body: new URLSearchParams({ access_token: token }).toString(),
      });
      expect(res.status, `not a success — ${res.describe()}`).toBeGreaterThanOrEqual(400);
    },
  );

  test(
    'BEARER-014 a refresh token sent as the bearer credential is refused with 401',
    requirement('BEARER-014', needs('us', 'people', 'user:user')),
    async ({ tokenClient, api }) => {
      const set = await tokenClient.obtain.password({ user: 'user' });
      expect(set.refresh_token, 'setup: the password grant returns a refresh_token').toBeTruthy();
      const res = await api.person('existing', { token: set.refresh_token! });
      // The judge knows the bearer credential for a refresh token from the response that issued it.
      await expect([tokenClient.issuing(set), res]).toSatisfy('BEARER-014');
    },
  );

  test(
    'BEARER-015 an access token issued in the other environment is refused with 401',
    requirement('BEARER-015', needs('people')),
    async ({ target, api }) => {
      const token = target.otherEnvironmentToken();
      const res = await api.person('existing', { token });
      expect(res.status, res.describe()).toBe(401);
    },
  );

  test(
    'BEARER-016 an access token from the EU token endpoint is accepted or refused as the target declares (OI-24)',
    requirement('BEARER-016', needs('eu', 'people', 'client:euClient')),
    async ({ target, tokenClient, api }) => {
      const declared = target.choice('euTokensAtBaseUrl');
      const token = (await tokenClient.obtain.clientCredentials({ region: 'eu', client: 'euClient' })).access_token;
      const res = await api.person('existing', { token });
      await judgedOn(declared, () => {
        if (declared.value === 'accepted') expect(res.status, `${choiceLabel(declared)} — ${res.describe()}`).toBe(200);
        else expect([401, 403], `${choiceLabel(declared)} — ${res.describe()}`).toContain(res.status);
      });
    },
  );
});
