import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import { sha256Digest } from '../../src/crypto/random.ts';
import { changePassword } from '../../src/domain/password-change.ts';
import { DAY, HOUR, attempt, issued, outcome, pw, rt, seed, testServices, type TestServices } from '../helpers.ts';

void describe('grant_type=refresh_token', () => {
  let s: TestServices;
  beforeEach(async () => {
    s = await testServices();
  });
  afterEach(() => s.store.close());

  const login = async (
    client: { id: string; secret: string } = seed.usPw,
    user: { username: string; password: string } = seed.alice,
  ) => issued(await attempt(s, pw(client, user)));
  const refresh = (
    token: string,
    client: { id: string; secret: string } = seed.usPw,
    extra: Record<string, string> = {},
  ) => attempt(s, rt(client, token, extra));

  void test('rotates: a new access token and a new refresh token, same scope and shape as the password grant', async () => {
    const first = await login();
    const second = issued(await refresh(first.refresh_token!));
    assert.deepEqual(Object.keys(second).sort(), [
      'access_token',
      'expires_in',
      'refresh_token',
      'refresh_token_expires_in',
      'scope',
      'token_type',
    ]);
    assert.notEqual(second.refresh_token, first.refresh_token);
    assert.notEqual(second.access_token, first.access_token);
    assert.equal(second.scope, first.scope);
    assert.equal(second.expires_in, 604_800);
    const claims = decodeJwt(second.access_token);
    assert.equal(claims.grant, 'refresh_token');
    assert.equal(claims.fid, decodeJwt(first.access_token).fid);
  });

  void test('single use: a used refresh token is invalid_grant, and the reuse revokes the family', async () => {
    const first = await login();
    const second = issued(await refresh(first.refresh_token!));
    assert.equal(outcome(await refresh(first.refresh_token!)), 'invalid_grant');
    assert.equal(outcome(await refresh(second.refresh_token!)), 'invalid_grant', 'the family is revoked');
    // Another login is a new family and is unaffected.
    issued(await refresh((await login()).refresh_token!));
  });

  void test('a used token stays refused forever, also after its successor was used or expired', async () => {
    const first = await login();
    const second = issued(await refresh(first.refresh_token!));
    issued(await refresh(second.refresh_token!));
    s.manual.advance(30 * DAY);
    assert.equal(outcome(await refresh(first.refresh_token!)), 'invalid_grant');
  });

  void test('usable after the access token expired, until 7 days after that expiry (OI-4)', async () => {
    const first = await login();
    s.manual.advance(604_800 + 7 * DAY - 1); // the AT (7 d) has expired; 1 s of the RT window left
    issued(await refresh(first.refresh_token!));
  });

  void test('expires exactly 7 days after its access token expires', async () => {
    const first = await login();
    s.manual.advance(604_800 + 7 * DAY);
    assert.equal(outcome(await refresh(first.refresh_token!)), 'invalid_grant');
  });

  void test("refresh_token_expires_in counts from the access token's iat, as expires_in does: accepted the last millisecond before it, refused from it", async () => {
    for (const offsetMs of [0, 999]) {
      s.manual.set(Date.UTC(2026, 0, 15, 9, 0, 0) + offsetMs);
      const first = await login();
      const second = await login();
      assert.equal(first.refresh_token_expires_in, 604_800 + 7 * DAY);
      const iat = decodeJwt(first.access_token).iat!;
      assert.equal(decodeJwt(first.access_token).exp! - iat, first.expires_in);
      s.manual.set((iat + first.refresh_token_expires_in) * 1000 - 1);
      issued(await refresh(first.refresh_token!));
      s.manual.set((iat + second.refresh_token_expires_in!) * 1000);
      assert.equal(outcome(await refresh(second.refresh_token!)), 'invalid_grant', `iat + ${offsetMs} ms`);
    }
  });

  void test('a refreshed token gets its own window', async () => {
    const first = await login();
    s.manual.advance(10 * DAY);
    const second = issued(await refresh(first.refresh_token!));
    s.manual.advance(13 * DAY); // 23 days after login: past the first window (14 d), inside the second
    issued(await refresh(second.refresh_token!));
  });

  void test('with a 1 h access token the window is 1 h + 7 days', async () => {
    const short = await testServices({ tokens: { passwordLifetimeSeconds: HOUR } });
    try {
      const first = issued(await attempt(short, pw(seed.usPw, seed.alice)));
      assert.equal(first.expires_in, 3600);
      short.manual.advance(HOUR + 7 * DAY - 1);
      const second = issued(await attempt(short, rt(seed.usPw, first.refresh_token!)));
      short.manual.advance(HOUR + 7 * DAY);
      assert.equal(outcome(await attempt(short, rt(seed.usPw, second.refresh_token!))), 'invalid_grant');
    } finally {
      await short.store.close();
    }
  });

  void test('bound to its client: another client gets invalid_grant and the token is not consumed', async () => {
    const first = await login();
    assert.equal(outcome(await refresh(first.refresh_token!, seed.usPw2)), 'invalid_grant');
    issued(await refresh(first.refresh_token!));
  });

  void test('a wrong client secret is invalid_client and does not consume the token', async () => {
    const first = await login();
    assert.equal(
      outcome(await refresh(first.refresh_token!, { ...seed.usPw, secret: 'wrong-secret-value' })),
      'invalid_client',
    );
    issued(await refresh(first.refresh_token!));
  });

  void test('unknown, truncated, or an access token as refresh token: invalid_grant', async () => {
    const first = await login();
    for (const token of ['random-string', first.refresh_token!.slice(0, -1), first.access_token]) {
      assert.equal(outcome(await refresh(token)), 'invalid_grant');
    }
    issued(await refresh(first.refresh_token!));
  });

  void test('scope: narrower is allowed (the next refresh may widen back to the original), beyond the original is invalid_scope', async () => {
    const first = await login();
    assert.equal(outcome(await refresh(first.refresh_token!, seed.usPw, { scope: 'email admin' })), 'invalid_scope');
    const narrowed = issued(await refresh(first.refresh_token!, seed.usPw, { scope: 'email' }));
    assert.equal(narrowed.scope, 'email');
    assert.equal(decodeJwt(narrowed.access_token).scope, 'email');
    assert.equal(issued(await refresh(narrowed.refresh_token!)).scope, 'email openid profile company');
  });

  void test('a narrowed password grant cannot be widened on refresh', async () => {
    const first = issued(await attempt(s, pw(seed.usPw, seed.alice, { scope: 'email' })));
    assert.equal(outcome(await refresh(first.refresh_token!, seed.usPw, { scope: 'email profile' })), 'invalid_scope');
  });

  void test('refused once the user password has expired (45-day rule)', async () => {
    const alice = (await s.store.findUser('acme', 'alice'))!;
    await s.store.saveUser({ ...alice, passwordChangedAt: s.clock.now() - 40 * DAY * 1000 });
    const first = await login();
    s.manual.advance(5 * DAY - 1);
    const second = issued(await refresh(first.refresh_token!));
    s.manual.advance(1);
    const a = await refresh(second.refresh_token!);
    assert.equal(outcome(a), 'invalid_grant');
    assert.match(a.ok ? '' : a.error.description, /password has expired/);
  });

  void test('refused once the user is deactivated', async () => {
    const first = await login();
    const user = (await s.store.findUser('acme', 'alice'))!;
    await s.store.saveUser({ ...user, active: false });
    assert.equal(outcome(await refresh(first.refresh_token!)), 'invalid_grant');
  });

  void test('a password change revokes every outstanding refresh token of the user, not those of others', async () => {
    const a1 = await login(seed.usPw, seed.carol);
    const a2 = await login(seed.usPw2, seed.carol);
    const other = await login(seed.usPw, seed.alice);
    s.manual.advance(60);
    const { revokedRefreshTokens } = await changePassword(s, 'acme', 'carol', 'Carol-new-pass-2025!');
    assert.equal(revokedRefreshTokens, 2);
    assert.equal(outcome(await refresh(a1.refresh_token!)), 'invalid_grant');
    assert.equal(outcome(await refresh(a2.refresh_token!, seed.usPw2)), 'invalid_grant');
    issued(await refresh(other.refresh_token!));
    assert.equal(
      outcome(await attempt(s, pw(seed.usPw, seed.carol))),
      'invalid_grant',
      'the old password no longer works',
    );
    const after = issued(
      await attempt(s, pw(seed.usPw, { username: seed.carol.username, password: 'Carol-new-pass-2025!' })),
    );
    issued(await refresh(after.refresh_token!));
  });

  void test('a password change restarts the 45-day clock', async () => {
    s.manual.advance(50 * DAY);
    assert.equal(outcome(await attempt(s, pw(seed.usPw, seed.bobExpired))), 'invalid_grant');
    await changePassword(s, 'acme', 'bob-expired', 'Bob-new-pass-2025!');
    issued(await attempt(s, pw(seed.usPw, { username: seed.bobExpired.username, password: 'Bob-new-pass-2025!' })));
  });

  void test('100 concurrent refreshes with one token: exactly one succeeds', async () => {
    const first = await login(seed.usPw, seed.dave);
    const results = await Promise.all(Array.from({ length: 100 }, () => refresh(first.refresh_token!)));
    assert.equal(results.filter((r) => r.ok).length, 1);
    assert.ok(results.every((r) => r.ok || r.error.error === 'invalid_grant'));
    const record = await s.store.findRefreshToken(sha256Digest.digest(first.refresh_token!));
    assert.notEqual(record?.usedAt, null);
  });
});
