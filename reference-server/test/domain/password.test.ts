import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import { sha256Digest } from '../../src/crypto/random.ts';
import { errorDescriptionPattern } from '../../src/domain/errors.ts';
import { parseUsername } from '../../src/domain/grants/password.ts';
import { DAY, attempt, issued, outcome, pw, seed, testServices, type TestServices } from '../helpers.ts';

void describe('grant_type=password', () => {
  let s: TestServices;
  before(async () => {
    s = await testServices();
  });
  after(() => s.store.close());

  void test('issues an access token (604800 s), a refresh token and the full scope', async () => {
    const body = issued(await attempt(s, pw(seed.usPw, seed.alice)));
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.expires_in, 604_800);
    assert.equal(body.scope, 'email openid profile company');
    assert.match(body.refresh_token ?? '', /^[A-Za-z0-9_-]{43}$/);
    const claims = decodeJwt(body.access_token);
    assert.equal(claims.sub, 'acme\\alice');
    assert.equal(claims.grant, 'password');
    assert.equal(claims.scope, 'email openid profile company');
    assert.equal(typeof claims.fid, 'string');
  });

  void test('the refresh token is stored only as a hash', async () => {
    const body = issued(await attempt(s, pw(seed.usPw, seed.alice)));
    assert.equal(await s.store.findRefreshToken(body.refresh_token ?? ''), undefined);
  });

  void test('a password with + & = % space and non-ASCII characters works', async () => {
    issued(await attempt(s, pw(seed.usPw, seed.erin)));
  });

  void test('a requested subset narrows the scope; an unknown value is invalid_scope', async () => {
    assert.equal(
      issued(await attempt(s, pw(seed.usPw, seed.alice, { scope: 'profile email' }))).scope,
      'email profile',
    );
    assert.equal(outcome(await attempt(s, pw(seed.usPw, seed.alice, { scope: 'email bogus' }))), 'invalid_scope');
    assert.equal(outcome(await attempt(s, pw(seed.usPw, seed.alice, { scope: 'email  profile' }))), 'invalid_scope');
  });

  void test('wrong password, unknown user, unknown tenant, no tenant prefix, deactivated user: the same invalid_grant', async () => {
    const cases = [
      { ...seed.alice, password: 'wrong' },
      { username: 'acme\\nobody', password: 'x' },
      { username: 'nowhere\\alice', password: seed.alice.password },
      { username: 'alice', password: seed.alice.password },
      { username: '\\alice', password: seed.alice.password },
      { username: 'acme\\', password: seed.alice.password },
      seed.gina,
    ];
    const descriptions = new Set<string>();
    for (const user of cases) {
      const a = await attempt(s, pw(seed.usPw, user));
      assert.equal(outcome(a), 'invalid_grant', user.username);
      if (!a.ok) descriptions.add(a.error.description);
    }
    assert.equal(descriptions.size, 1, 'no account enumeration through the description');
  });

  void test('45-day rule: an expired password is invalid_grant saying so', async () => {
    const a = await attempt(s, pw(seed.usPw, seed.bobExpired));
    assert.ok(!a.ok);
    assert.equal(a.error.error, 'invalid_grant');
    assert.match(a.error.description, /password has expired/);
    assert.match(a.error.description, errorDescriptionPattern);
  });

  void test('45-day rule at the boundary, driven by the clock', async () => {
    const fresh = await testServices();
    try {
      // alice changed her password 1 day before T0: valid until 44 days after T0.
      fresh.manual.advance(44 * DAY - 1);
      issued(await attempt(fresh, pw(seed.usPw, seed.alice)));
      fresh.manual.advance(1);
      assert.equal(outcome(await attempt(fresh, pw(seed.usPw, seed.alice))), 'invalid_grant');
    } finally {
      await fresh.store.close();
    }
  });

  void test('a repeated password grant issues new tokens and leaves the older refresh token valid', async () => {
    const first = issued(await attempt(s, pw(seed.usPw, seed.dave)));
    const second = issued(await attempt(s, pw(seed.usPw, seed.dave)));
    assert.notEqual(first.refresh_token, second.refresh_token);
    const older = await s.store.findRefreshToken(sha256Digest.digest(first.refresh_token ?? ''));
    assert.equal(older?.usedAt, null);
    assert.equal(older?.revokedAt, null);
  });

  void test('parseUsername splits at the first backslash', () => {
    assert.deepEqual(parseUsername('acme\\alice'), { tenant: 'acme', userName: 'alice' });
    assert.deepEqual(parseUsername('acme\\a\\b'), { tenant: 'acme', userName: 'a\\b' });
    assert.equal(parseUsername('alice'), undefined);
  });
});
