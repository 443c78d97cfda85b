// The order of the checks and the grant-type errors (OI-1, OI-9, OI-19).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { attempt, cc, outcome, pw, rt, seed, testServices, type TestServices } from '../helpers.ts';

void describe('token service decisions', () => {
  let s: TestServices;
  before(async () => {
    s = await testServices();
  });
  after(() => s.store.close());

  void test('grant_type missing or empty: invalid_request with a description', async () => {
    for (const params of [
      { client_id: seed.usCc.id, client_secret: seed.usCc.secret },
      cc(seed.usCc, { grant_type: '' }),
    ]) {
      const a = await attempt(s, params);
      assert.equal(outcome(a), 'invalid_request');
      assert.match(a.ok ? '' : a.error.description, /grant_type/);
    }
  });

  void test('unknown grant types (and case variants) are unsupported_grant_type', async () => {
    for (const grant of ['authorization_code', 'urn:x:foo', 'Client_Credentials', 'implicit']) {
      assert.equal(outcome(await attempt(s, cc(seed.usCc, { grant_type: grant }))), 'unsupported_grant_type', grant);
    }
  });

  void test('EU: password and refresh_token are unsupported_grant_type (OI-9)', async () => {
    assert.equal(outcome(await attempt(s, { ...pw(seed.eu, seed.alice) }, { region: 'eu' })), 'unsupported_grant_type');
    assert.equal(outcome(await attempt(s, rt(seed.eu, 'x'), { region: 'eu' })), 'unsupported_grant_type');
    assert.equal(
      outcome(
        await attempt(
          s,
          { grant_type: 'password', client_id: seed.eu.id, client_secret: seed.eu.secret },
          { region: 'eu' },
        ),
      ),
      'unsupported_grant_type',
    );
  });

  void test("missing grant parameters are invalid_request, other grants' parameters do not count", async () => {
    const base = { client_id: seed.usPw.id, client_secret: seed.usPw.secret };
    assert.equal(outcome(await attempt(s, { ...base, grant_type: 'password', password: 'x' })), 'invalid_request');
    assert.equal(
      outcome(await attempt(s, { ...base, grant_type: 'password', username: 'acme\\alice' })),
      'invalid_request',
    );
    assert.equal(outcome(await attempt(s, { ...base, grant_type: 'password', refresh_token: 'x' })), 'invalid_request');
    assert.equal(
      outcome(await attempt(s, { ...base, grant_type: 'refresh_token', username: 'acme\\alice', password: 'x' })),
      'invalid_request',
    );
    assert.equal(
      outcome(await attempt(s, { ...base, grant_type: 'refresh_token', refresh_token: '' })),
      'invalid_request',
    );
  });

  void test('unknown extra parameters are ignored', async () => {
    assert.equal(outcome(await attempt(s, cc(seed.usCc, { foo: 'bar', GRANT_TYPE: 'password' }))), 'issued');
  });

  void test('precedence: syntax > client authentication > grant type > grant > scope (OI-19)', async () => {
    const badClient = { ...seed.usPw, secret: 'wrong-secret-value' };
    assert.equal(
      outcome(await attempt(s, { grant_type: 'password', client_id: badClient.id, client_secret: badClient.secret })),
      'invalid_request',
    );
    assert.equal(outcome(await attempt(s, cc(badClient, { grant_type: 'urn:x:foo' }))), 'invalid_client');
    assert.equal(outcome(await attempt(s, pw(seed.usCcOnly, { username: 'x', password: 'y' }))), 'unauthorized_client');
    assert.equal(
      outcome(await attempt(s, pw(seed.usPw, { username: 'acme\\alice', password: 'wrong' }, { scope: 'bogus' }))),
      'invalid_grant',
    );
  });
});
