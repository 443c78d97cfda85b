// The verified-token cache skips the signature check for a token seen before, and still honours
// expiry (the injected clock, on every request) and revocation (the store, on every request).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AccessTokenVerifier } from '../../src/domain/ports.ts';
import { CachingAccessTokenVerifier } from '../../src/gateway/verified-token-cache.ts';
import { attempt, cc, issued, json, pw, rt, seed, testApp, testServices } from '../helpers.ts';

/** Counts the calls that reach the real verifier. */
function counting(inner: AccessTokenVerifier): AccessTokenVerifier & { calls: number } {
  const spy = {
    calls: 0,
    verify: (token: string) => {
      spy.calls += 1;
      return inner.verify(token);
    },
  };
  return spy;
}

void describe('CachingAccessTokenVerifier', () => {
  void test('a second verification of a token is a hit; the token is refused from its exp second on', async () => {
    const services = await testServices({ tokens: { clientCredentialsLifetimeSeconds: 60 } });
    try {
      const token = issued(await attempt(services, cc(seed.usCc))).access_token;
      const inner = counting(services.verifier);
      const cache = new CachingAccessTokenVerifier(inner, services.clock);
      assert.equal((await cache.verify(token)).ok, true);
      assert.equal((await cache.verify(token)).ok, true);
      assert.equal(inner.calls, 1, 'the second verification came from the cache');

      services.manual.advance(59);
      assert.equal((await cache.verify(token)).ok, true, 'one second before exp');
      services.manual.advance(1);
      assert.deepEqual(await cache.verify(token), { ok: false, reason: 'expired' });
      assert.deepEqual(
        await cache.verify(token),
        { ok: false, reason: 'expired' },
        'still expired (now from the verifier)',
      );
      assert.equal(inner.calls, 2);
    } finally {
      await services.store.close();
    }
  });

  void test('a clock moved back before iat: not yet valid, as without the cache', async () => {
    const services = await testServices();
    try {
      const token = issued(await attempt(services, cc(seed.usCc))).access_token;
      const cache = new CachingAccessTokenVerifier(services.verifier, services.clock);
      assert.equal((await cache.verify(token)).ok, true);
      services.manual.advance(-10);
      assert.deepEqual(await cache.verify(token), { ok: false, reason: 'not-yet-valid' });
      assert.deepEqual(
        await services.verifier.verify(token),
        { ok: false, reason: 'not-yet-valid' },
        'the verifier agrees',
      );
    } finally {
      await services.store.close();
    }
  });

  void test('refusals are not cached; the cache is bounded (oldest out first)', async () => {
    const services = await testServices();
    try {
      const tokens = await Promise.all(
        [1, 2, 3].map(async () => issued(await attempt(services, cc(seed.usCc))).access_token),
      );
      const inner = counting(services.verifier);
      const cache = new CachingAccessTokenVerifier(inner, services.clock, 2);
      const forged = `${tokens[0]!.slice(0, -4)}AAAA`;
      assert.deepEqual(await cache.verify(forged), { ok: false, reason: 'invalid-signature' });
      assert.deepEqual(await cache.verify(forged), { ok: false, reason: 'invalid-signature' });
      assert.equal(inner.calls, 2, 'a refusal is verified again');

      for (const token of tokens) await cache.verify(token);
      assert.equal(cache.size, 2);
      inner.calls = 0;
      await cache.verify(tokens[2]!);
      assert.equal(inner.calls, 0, 'the newest is cached');
      await cache.verify(tokens[0]!);
      assert.equal(inner.calls, 1, 'the oldest was evicted');
      assert.throws(() => new CachingAccessTokenVerifier(inner, services.clock, 0), RangeError);
    } finally {
      await services.store.close();
    }
  });
});

void describe('the gateway with the cache', () => {
  const people = (token: string) => ({
    method: 'GET' as const,
    url: '/v1/people/er/E-1001',
    headers: { host: '127.0.0.1', authorization: `Bearer ${token}`, accept: 'application/json' },
  });

  void test('a token accepted before is refused once its refresh-token family is revoked (reuse of a refresh token)', async () => {
    const t = await testApp();
    try {
      const first = json(await t.token(pw(seed.usPw, seed.alice)));
      const accessToken = first.access_token as string;
      assert.equal((await t.app.inject(people(accessToken))).statusCode, 200);
      assert.equal((await t.app.inject(people(accessToken))).statusCode, 200, 'now from the cache');
      assert.equal((await t.token(rt(seed.usPw, first.refresh_token as string))).statusCode, 200);
      assert.equal(
        json(await t.token(rt(seed.usPw, first.refresh_token as string))).error,
        'invalid_grant',
        'reuse revokes the family',
      );
      const refused = await t.app.inject(people(accessToken));
      assert.equal(refused.statusCode, 401);
      assert.equal(json(refused).code, '000-1202');
      assert.match(String(refused.headers['www-authenticate']), /revoked/);
    } finally {
      await t.close();
    }
  });

  void test('a token accepted before is refused once it expires', async () => {
    const t = await testApp({ tokens: { clientCredentialsLifetimeSeconds: 60 } });
    try {
      const accessToken = json(await t.token(cc(seed.usCc))).access_token as string;
      assert.equal((await t.app.inject(people(accessToken))).statusCode, 200);
      t.services.manual.advance(60);
      const refused = await t.app.inject(people(accessToken));
      assert.equal(refused.statusCode, 401);
      assert.equal(json(refused).code, '000-1202');
      assert.match(String(refused.headers['www-authenticate']), /expired/);
    } finally {
      await t.close();
    }
  });
});
