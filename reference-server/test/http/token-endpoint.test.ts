// The token endpoints over HTTP (inject, :memory: store): every error condition of the
// interpretation table, the headers on every answer, Basic authentication.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { errorDescriptionPattern } from '../../src/domain/errors.ts';
import { EU_TOKEN_PATH, US_TOKEN_PATH } from '../../src/http/token-routes.ts';
import { basic, cc, json, pw, rt, seed, testApp, type TestApp } from '../helpers.ts';

function assertTokenHeaders(r: LightMyRequestResponse): void {
  assert.match(String(r.headers['content-type']), /^application\/json/);
  assert.equal(r.headers['cache-control'], 'no-store');
  assert.equal(r.headers.pragma, 'no-cache');
}

function assertError(r: LightMyRequestResponse, error: string, status = 400): Record<string, unknown> {
  assertTokenHeaders(r);
  const body = json(r);
  assert.equal(r.statusCode, status, `status for ${error}: ${r.body}`);
  assert.equal(body.error, error, r.body);
  assert.equal(typeof body.error_description, 'string');
  assert.ok((body.error_description as string).length > 0, 'non-empty error_description');
  assert.match(body.error_description as string, errorDescriptionPattern);
  assert.equal('access_token' in body || 'refresh_token' in body, false);
  return body;
}

void describe('token endpoints over HTTP', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  void test('US client_credentials: 200, exact shape, no-store headers', async () => {
    const r = await t.token(cc(seed.usCc));
    assert.equal(r.statusCode, 200);
    assertTokenHeaders(r);
    const body = json(r);
    assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'token_type']);
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.expires_in, 3600);
  });

  void test('EU client_credentials: scope empty_default', async () => {
    const r = await t.token(cc(seed.eu), { eu: true });
    assert.equal(r.statusCode, 200);
    assert.equal(json(r).scope, 'empty_default');
    assertError(await t.token(cc(seed.eu, { scope: 'openid' }), { eu: true }), 'invalid_scope');
  });

  void test('password, then refresh once; the second refresh of the same token is refused', async () => {
    const first = await t.token(pw(seed.usPw, seed.alice));
    assert.equal(first.statusCode, 200);
    const { refresh_token: rt1, scope } = json(first) as { refresh_token: string; scope: string };
    assert.equal(scope, 'email openid profile company');
    const second = await t.token(rt(seed.usPw, rt1));
    assert.equal(second.statusCode, 200);
    assertTokenHeaders(second);
    assert.notEqual(json(second).refresh_token, rt1);
    assertError(await t.token(rt(seed.usPw, rt1)), 'invalid_grant');
  });

  void test('the charset parameter and an encoded backslash are accepted', async () => {
    const r = await t.token(new URLSearchParams(pw(seed.usPw, seed.erin)).toString(), {
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
    });
    assert.equal(r.statusCode, 200, r.body);
  });

  void test('invalid_request: missing or empty grant_type, with a description', async () => {
    const body = assertError(
      await t.token({ client_id: seed.usCc.id, client_secret: seed.usCc.secret }),
      'invalid_request',
    );
    assert.match(body.error_description as string, /grant_type/);
    assertError(await t.token(cc(seed.usCc, { grant_type: '' })), 'invalid_request');
    assertError(
      await t.token(`GRANT_TYPE=client_credentials&client_id=${seed.usCc.id}&client_secret=${seed.usCc.secret}`),
      'invalid_request',
    );
  });

  void test('invalid_request: a repeated parameter, even with the same value', async () => {
    const base = new URLSearchParams(cc(seed.usCc)).toString();
    assertError(await t.token(`${base}&grant_type=client_credentials`), 'invalid_request');
    assertError(await t.token(`${base}&client_id=${seed.usCc.id}`), 'invalid_request');
  });

  void test('invalid_request: malformed escapes or invalid UTF-8', async () => {
    assertError(await t.token(`${new URLSearchParams(cc(seed.usCc)).toString()}&x=%zz`), 'invalid_request');
    const r = await t.app.inject({
      method: 'POST',
      url: US_TOKEN_PATH,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: Buffer.concat([Buffer.from('grant_type=client_credentials&x='), Buffer.from([0xc3, 0x28])]),
    });
    assertError(r, 'invalid_request');
  });

  void test('invalid_request: JSON, multipart, text/plain or no content type', async () => {
    const fields = cc(seed.usCc);
    const cases = [
      { 'content-type': 'application/json', payload: JSON.stringify(fields) },
      {
        'content-type': 'multipart/form-data; boundary=x',
        payload: '--x\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\nclient_credentials\r\n--x--',
      },
      { 'content-type': 'text/plain', payload: new URLSearchParams(fields).toString() },
    ];
    for (const { payload, ...headers } of cases) {
      assertError(await t.app.inject({ method: 'POST', url: US_TOKEN_PATH, headers, payload }), 'invalid_request');
    }
    assertError(
      await t.app.inject({ method: 'POST', url: US_TOKEN_PATH, payload: new URLSearchParams(fields).toString() }),
      'invalid_request',
    );
    assertError(await t.app.inject({ method: 'POST', url: US_TOKEN_PATH }), 'invalid_request');
  });

  void test('invalid_request: an oversized body', async () => {
    assertError(
      await t.token(`${new URLSearchParams(cc(seed.usCc)).toString()}&pad=${'x'.repeat(70 * 1024)}`),
      'invalid_request',
    );
  });

  void test('invalid_request: grant parameters missing', async () => {
    assertError(
      await t.token({
        grant_type: 'password',
        client_id: seed.usPw.id,
        client_secret: seed.usPw.secret,
        password: 'x',
      }),
      'invalid_request',
    );
    assertError(
      await t.token({ grant_type: 'refresh_token', client_id: seed.usPw.id, client_secret: seed.usPw.secret }),
      'invalid_request',
    );
  });

  void test('unknown extra parameters are ignored', async () => {
    assert.equal((await t.token(cc(seed.usCc, { foo: 'bar' }))).statusCode, 200);
  });

  void test('unsupported_grant_type: unknown grants; password and refresh_token at EU', async () => {
    assertError(await t.token(cc(seed.usCc, { grant_type: 'authorization_code' })), 'unsupported_grant_type');
    assertError(await t.token(cc(seed.usCc, { grant_type: 'Client_Credentials' })), 'unsupported_grant_type');
    assertError(await t.token(pw(seed.eu, seed.alice), { eu: true }), 'unsupported_grant_type');
    assertError(await t.token(rt(seed.eu, 'x'), { eu: true }), 'unsupported_grant_type');
  });

  void test('invalid_client with form fields: 400 and no challenge', async () => {
    for (const body of [
      cc({ ...seed.usCc, secret: 'wrong-secret-value' }),
      cc({ id: 'no-such-client', secret: 'whatever-secret' }),
      { grant_type: 'client_credentials', client_id: seed.usCc.id },
      { grant_type: 'client_credentials' },
      cc(seed.usProd),
    ]) {
      const r = await t.token(body);
      assertError(r, 'invalid_client', 400);
      assert.equal(r.headers['www-authenticate'], undefined);
    }
  });

  void test('invalid_client across regions, both ways', async () => {
    assertError(await t.token(cc(seed.usCc), { eu: true }), 'invalid_client');
    assertError(await t.token(cc(seed.eu)), 'invalid_client');
  });

  void test('credentials in the query string never authenticate', async () => {
    const query = new URLSearchParams({ client_id: seed.usCc.id, client_secret: seed.usCc.secret }).toString();
    const r = await t.app.inject({
      method: 'POST',
      url: `${US_TOKEN_PATH}?${query}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials',
    });
    assertError(r, 'invalid_client');
  });

  void test('HTTP Basic: urlencoded credentials are decoded; both endpoints', async () => {
    const encodedId = 'us%2Dcc%2Dclient';
    const header = `Basic ${Buffer.from(`${encodedId}:${encodeURIComponent(seed.usCc.secret)}`).toString('base64')}`;
    assert.equal(
      (await t.token({ grant_type: 'client_credentials' }, { headers: { authorization: header } })).statusCode,
      200,
    );
    assert.equal(
      (
        await t.token(
          { grant_type: 'client_credentials' },
          { headers: { authorization: basic(seed.eu.id, seed.eu.secret) }, eu: true },
        )
      ).statusCode,
      200,
    );
    assert.equal(
      (
        await t.token(
          { grant_type: 'client_credentials' },
          { headers: { authorization: basic(seed.usCc.id, seed.usCc.secret).replace('Basic', 'basic') } },
        )
      ).statusCode,
      200,
    );
  });

  void test('HTTP Basic failure: 401 invalid_client with WWW-Authenticate: Basic', async () => {
    for (const authorization of [
      basic(seed.usCc.id, 'wrong-secret-value'),
      'Basic !!!',
      `Basic ${Buffer.from('no-colon').toString('base64')}`,
      'Bearer abc',
    ]) {
      const r = await t.token({ grant_type: 'client_credentials' }, { headers: { authorization } });
      assertError(r, 'invalid_client', 401);
      assert.equal(r.headers['www-authenticate'], 'Basic realm="token-service"');
    }
  });

  void test('HTTP Basic plus client_secret in the body: invalid_request', async () => {
    assertError(
      await t.token(cc(seed.usCc), { headers: { authorization: basic(seed.usCc.id, seed.usCc.secret) } }),
      'invalid_request',
    );
  });

  void test('unauthorized_client: a grant the client may not use', async () => {
    assertError(await t.token(pw(seed.usCcOnly, seed.alice)), 'unauthorized_client');
  });

  void test('invalid_grant: bad user, tenant-less username, expired password, foreign refresh token', async () => {
    assertError(await t.token(pw(seed.usPw, { ...seed.alice, password: 'nope' })), 'invalid_grant');
    assertError(await t.token(pw(seed.usPw, { username: 'alice', password: seed.alice.password })), 'invalid_grant');
    const expired = assertError(await t.token(pw(seed.usPw, seed.bobExpired)), 'invalid_grant');
    assert.match(expired.error_description as string, /password has expired/);
    const { refresh_token } = json(await t.token(pw(seed.usPw, seed.dave))) as { refresh_token: string };
    assertError(await t.token(rt(seed.usPw2, refresh_token)), 'invalid_grant');
  });

  void test('non-POST methods: 405, Allow: POST, JSON invalid_request, no-store', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const) {
      for (const url of [US_TOKEN_PATH, EU_TOKEN_PATH]) {
        const r = await t.app.inject({ method, url });
        assertError(r, 'invalid_request', 405);
        assert.equal(r.headers.allow, 'POST');
      }
    }
  });

  void test('an unexpected failure is a 500 server_error without detail', async () => {
    const store = t.services.store;
    const original = {
      findClient: store.findClient.bind(store),
      readsOfOneDecision: store.readsOfOneDecision?.bind(store),
    };
    // The client is read through the request's decision reads when the store has them: the store itself here.
    store.readsOfOneDecision = () => store;
    store.findClient = () => {
      throw new Error('SQLITE_CORRUPT: database disk image is malformed at /data/x');
    };
    try {
      const r = await t.token(cc(seed.usCc));
      const body = assertError(r, 'server_error', 500);
      assert.doesNotMatch(JSON.stringify(body), /SQLITE|data/);
    } finally {
      store.findClient = original.findClient;
      store.readsOfOneDecision = original.readsOfOneDecision;
    }
  });
});
