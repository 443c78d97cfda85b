import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import { attempt, cc, issued, outcome, seed, testServices, type TestServices } from '../helpers.ts';

void describe('grant_type=client_credentials', () => {
  let s: TestServices;
  before(async () => {
    s = await testServices();
  });
  after(() => s.store.close());

  void test('US: access token, Bearer, 3600, no refresh_token and no scope', async () => {
    const body = issued(await attempt(s, cc(seed.usCc)));
    assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'token_type']);
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.expires_in, 3600);
    const claims = decodeJwt(body.access_token);
    assert.equal(claims.sub, 'us-cc-client');
    assert.equal(claims.client_id, 'us-cc-client');
    assert.equal(claims.grant, 'client_credentials');
    assert.equal(claims.region, 'us');
    assert.equal(claims.env, 'sandbox');
    assert.equal(claims.exp! - claims.iat!, 3600);
    assert.equal(claims.scope, undefined);
  });

  void test('US: a scope parameter is ignored (OI-6)', async () => {
    const body = issued(await attempt(s, cc(seed.usCc, { scope: 'anything "at all' })));
    assert.equal(body.scope, undefined);
  });

  void test('EU: scope is always empty_default; asking for it explicitly works too', async () => {
    for (const extra of [{}, { scope: 'empty_default' }, { scope: '' }] as Record<string, string>[]) {
      const body = issued(await attempt(s, cc(seed.eu, extra), { region: 'eu' }));
      assert.equal(body.scope, 'empty_default');
      assert.equal(body.refresh_token, undefined);
      assert.equal(decodeJwt(body.access_token).region, 'eu');
    }
  });

  void test('EU: any other scope is invalid_scope', async () => {
    assert.equal(outcome(await attempt(s, cc(seed.eu, { scope: 'unknown_x' }), { region: 'eu' })), 'invalid_scope');
    assert.equal(
      outcome(await attempt(s, cc(seed.eu, { scope: 'empty_default openid' }), { region: 'eu' })),
      'invalid_scope',
    );
  });

  void test('registration does not gate issuance (OI-7: the gateway answers 000-1100 / 000-1101)', async () => {
    issued(await attempt(s, cc(seed.usUnregistered)));
    issued(await attempt(s, cc(seed.usReporting)));
  });

  void test('each issuance is a different token (jti)', async () => {
    const a = issued(await attempt(s, cc(seed.usCc)));
    const b = issued(await attempt(s, cc(seed.usCc)));
    assert.notEqual(a.access_token, b.access_token);
  });

  void test('the lifetime is configurable', async () => {
    const short = await testServices({ tokens: { clientCredentialsLifetimeSeconds: 60 } });
    try {
      assert.equal(issued(await attempt(short, cc(seed.usCc))).expires_in, 60);
    } finally {
      await short.store.close();
    }
  });
});
