// JWKS and the clock control routes (present only with --test-controls).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { JWKS_PATH } from '../../src/http/well-known-routes.ts';
import { TEST_CLOCK_PATH } from '../../src/http/test-clock-routes.ts';
import { T0, cc, json, seed, testApp, type TestApp } from '../helpers.ts';

void describe('JWKS', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  void test('GET /.well-known/jwks.json verifies issued access tokens', async () => {
    const r = await t.app.inject({ method: 'GET', url: JWKS_PATH });
    assert.equal(r.statusCode, 200);
    assert.match(String(r.headers['content-type']), /^application\/json/);
    const jwks = json(r) as { keys: Record<string, unknown>[] };
    assert.equal(jwks.keys.length, 1);
    assert.equal(jwks.keys[0]?.d, undefined);
    const { access_token } = json(await t.token(cc(seed.usCc))) as { access_token: string };
    const { payload } = await jwtVerify(access_token, createLocalJWKSet(jwks as never), { currentDate: new Date(T0) });
    assert.equal(payload.client_id, 'us-cc-client');
  });
});

void describe('clock control', () => {
  void test('absent without --test-controls', async () => {
    const t = await testApp({ testControls: false });
    try {
      const get = await t.app.inject({ method: 'GET', url: TEST_CLOCK_PATH, headers: { host: '127.0.0.1' } });
      assert.notEqual(get.statusCode, 200);
      const post = await t.app.inject({
        method: 'POST',
        url: TEST_CLOCK_PATH,
        headers: { host: '127.0.0.1', 'content-type': 'application/json' },
        payload: { advanceSeconds: 10 },
      });
      assert.notEqual(post.statusCode, 200);
      assert.equal(t.services.clock.now(), T0, 'the clock did not move');
    } finally {
      await t.close();
    }
  });

  void test('GET reads, POST advances, sets and resets; expiry decisions follow it', async () => {
    const t = await testApp({ testControls: true });
    try {
      const read = json(await t.app.inject({ method: 'GET', url: TEST_CLOCK_PATH }));
      assert.deepEqual(read, { now: new Date(T0).toISOString(), epochMs: T0 });
      const post = (payload: unknown) =>
        t.app.inject({
          method: 'POST',
          url: TEST_CLOCK_PATH,
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify(payload),
        });
      assert.equal(json(await post({ advanceSeconds: 3600 })).epochMs, T0 + 3_600_000);
      assert.deepEqual(json(await post({ setTo: '2030-01-01T00:00:00Z' })), {
        now: '2030-01-01T00:00:00.000Z',
        epochMs: Date.UTC(2030, 0, 1),
      });
      assert.equal(json(await post({ reset: true })).epochMs, T0);
      for (const bad of [
        {},
        { advanceSeconds: 'x' },
        { setTo: 'tomorrow' },
        { reset: false },
        { advanceSeconds: 1, reset: true },
      ]) {
        const r = await post(bad);
        assert.equal(r.statusCode, 400, JSON.stringify(bad));
      }
      assert.equal(
        (
          await t.app.inject({
            method: 'POST',
            url: TEST_CLOCK_PATH,
            headers: { 'content-type': 'application/json' },
            payload: '{oops',
          })
        ).statusCode,
        400,
      );

      // The token side reads the same clock: an access token issued now is expired 3600 s later.
      const { access_token } = json(await t.token(cc(seed.usCc))) as { access_token: string };
      assert.equal((await t.services.verifier.verify(access_token)).ok, true);
      await post({ advanceSeconds: 3600 });
      assert.deepEqual(await t.services.verifier.verify(access_token), { ok: false, reason: 'expired' });
    } finally {
      await t.close();
    }
  });

  void test('the Date header shows the test clock (a suite without clock control reads time from it)', async () => {
    const t = await testApp({ testControls: true });
    try {
      const post = (payload: unknown) =>
        t.app.inject({
          method: 'POST',
          url: TEST_CLOCK_PATH,
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify(payload),
        });
      await post({ setTo: '2030-01-01T00:00:00Z' });
      const token = await t.token(cc(seed.usCc));
      assert.equal(token.headers.date, new Date(Date.UTC(2030, 0, 1)).toUTCString());
    } finally {
      await t.close();
    }
  });
});

void describe('tokens at the gateway (wiring)', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  const people = (token: string) =>
    t.app.inject({
      method: 'GET',
      url: '/v1/people/er/E-1001',
      headers: { host: '127.0.0.1', accept: 'application/json', authorization: `Bearer ${token}` },
    });
  const accessToken = async (body: Record<string, string>, eu = false) =>
    (json(await t.token(body, { eu })) as { access_token: string }).access_token;

  void test('US and EU client_credentials tokens and password tokens are accepted; unregistered and reporting clients are refused', async () => {
    assert.equal((await people(await accessToken(cc(seed.usCc)))).statusCode, 200);
    assert.equal((await people(await accessToken(cc(seed.eu), true))).statusCode, 200);
    assert.equal(
      (
        await people(
          await accessToken({
            grant_type: 'password',
            client_id: seed.usPw.id,
            client_secret: seed.usPw.secret,
            username: seed.alice.username,
            password: seed.alice.password,
          }),
        )
      ).statusCode,
      200,
    );
    assert.equal(json(await people(await accessToken(cc(seed.usUnregistered)))).code, '000-1100');
    assert.equal(json(await people(await accessToken(cc(seed.usReporting)))).code, '000-1101');
  });
});
