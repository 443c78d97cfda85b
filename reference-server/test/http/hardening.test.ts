// The advisory behaviours at the HTTP edge: the brute-force lock's 429 (LIMIT-RATE-003;
// client secrets: RFC 6749 §2.3.1), HSTS on every HTTPS answer and never over plain HTTP (SEC-TLS-005), and access
// tokens of a revoked refresh-token family refused by the gateway (STATE-RT-FAMILY-002).
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { createCertificatePems, type CertificatePems } from '../../src/crypto/tls.ts';
import { changePassword } from '../../src/domain/password-change.ts';
import { HSTS_VALUE } from '../../src/http/app.ts';
import { JWKS_PATH } from '../../src/http/well-known-routes.ts';
import { T0, basic, cc, json, pw, rt, seed, testApp, type TestApp } from '../helpers.ts';

const tokenHeaders = { host: '127.0.0.1', 'content-type': 'application/x-www-form-urlencoded' };

void describe('brute-force lock at the token endpoint (HTTP)', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp({ throttle: { userFailures: 3, clientFailures: 3, lockSeconds: 900 } });
  });
  after(() => t.close());

  void test('a locked user: 429, Retry-After, the JSON invalid_grant body, no-store and no-cache', async () => {
    for (let i = 0; i < 3; i += 1) {
      const r = await t.token(pw(seed.usPw, { username: seed.dave.username, password: `nope-${i}` }));
      assert.equal(r.statusCode, 400);
      assert.equal(json(r).error, 'invalid_grant');
    }
    t.services.manual.advance(100);
    const r = await t.token(pw(seed.usPw, seed.dave));
    assert.equal(r.statusCode, 429);
    assert.equal(r.headers['retry-after'], '800');
    assert.equal(r.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.equal(r.headers.pragma, 'no-cache');
    assert.equal(r.headers['www-authenticate'], undefined);
    assert.deepEqual(json(r), {
      error: 'invalid_grant',
      error_description: 'Too many failed attempts; try again later.',
    });
    assert.equal((await t.token(pw(seed.usPw, seed.alice))).statusCode, 200, 'another user is not affected');
  });

  void test('a locked client (HTTP Basic): 429 invalid_client with Retry-After and no Basic challenge', async () => {
    const wrongBasic = { authorization: basic(seed.usCcOnly.id, 'wrong') };
    for (let i = 0; i < 3; i += 1) {
      const r = await t.token({ grant_type: 'client_credentials' }, { headers: wrongBasic });
      assert.equal(r.statusCode, 401);
    }
    const r = await t.token(
      { grant_type: 'client_credentials' },
      { headers: { authorization: basic(seed.usCcOnly.id, seed.usCcOnly.secret) } },
    );
    assert.equal(r.statusCode, 429);
    assert.equal(r.headers['retry-after'], '900');
    assert.equal(r.headers['www-authenticate'], undefined);
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.deepEqual(json(r), {
      error: 'invalid_client',
      error_description: 'Too many failed attempts; try again later.',
    });
    assert.equal((await t.token(cc(seed.usCc))).statusCode, 200, 'another client is not affected');
  });
});

void describe('Strict-Transport-Security (HTTPS only)', () => {
  let pems: CertificatePems;
  let https: TestApp;
  let plain: TestApp;
  before(async () => {
    pems = await createCertificatePems('127.0.0.1', new Date(), 1);
    https = await testApp({ https: pems });
    plain = await testApp();
  });
  after(async () => {
    await https.close();
    await plain.close();
  });

  const gateway = (t: TestApp, url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers: { host: '127.0.0.1', accept: 'application/json', ...headers } });

  async function answers(t: TestApp): Promise<[string, { statusCode: number; headers: Record<string, unknown> }][]> {
    const { access_token: token } = json(await t.token(cc(seed.usCc))) as { access_token: string };
    return [
      ['token success', await t.token(cc(seed.usCc))],
      ['token error', await t.token(cc({ id: seed.usCc.id, secret: 'wrong' }))],
      ['token 405', await t.app.inject({ method: 'GET', url: '/api/v1/auth/oauth2/token', headers: tokenHeaders })],
      ['EU token', await t.token(cc(seed.eu), { eu: true })],
      ['JWKS', await t.app.inject({ method: 'GET', url: JWKS_PATH })],
      ['protected API 200', await gateway(t, '/v1/people/er/E-1001', { authorization: `Bearer ${token}` })],
      ['gateway 000-1201', await gateway(t, '/v1/people/er/E-1001')],
      ['gateway 000-1020', await gateway(t, '/v2/people/er/E-1001')],
      ['gateway 000-1010 (router)', await gateway(t, '/v1/people/er/%E0%A4%A')],
      [
        'not-found (method not served)',
        await t.app.inject({ method: 'PUT', url: JWKS_PATH, headers: { host: '127.0.0.1' } }),
      ],
    ];
  }

  void test(`every HTTPS answer carries ${HSTS_VALUE}`, async () => {
    for (const [what, r] of await answers(https))
      assert.equal(r.headers['strict-transport-security'], HSTS_VALUE, `${what} (${r.statusCode})`);
  });

  void test('no plain-HTTP answer carries it', async () => {
    for (const [what, r] of await answers(plain))
      assert.equal(r.headers['strict-transport-security'], undefined, `${what} (${r.statusCode})`);
  });

  void test('the gateway answer to an unframeable message (written to the socket) carries it too', async () => {
    await https.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = https.app.server.address() as AddressInfo;
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, ca: pems.cert, servername: 'localhost' }, () => {
        socket.write('GET /v1/people/er/E-1001 HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n');
      });
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      socket.on('end', () => resolve(text));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    assert.match(raw, /^HTTP\/1\.1 400 /);
    assert.match(raw, /\r\nstrict-transport-security: max-age=31536000\r\n/i);
    assert.match(raw, /"code":"000-1000"/);
  });
});

void describe('access tokens of a revoked refresh-token family (gateway 000-1202)', () => {
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
  const grant = async (body: Record<string, string>) => {
    const r = await t.token(body);
    assert.equal(r.statusCode, 200, r.body);
    return json(r) as { access_token: string; refresh_token: string };
  };
  const assertRevoked = async (token: string, what: string) => {
    const r = await people(token);
    assert.equal(r.statusCode, 401, what);
    assert.deepEqual(json(r), { code: '000-1202', message: 'Unauthorized' }, what);
    assert.equal(
      r.headers['www-authenticate'],
      'Bearer realm="data-services", error="invalid_token", error_description="The access token was revoked"',
      what,
    );
  };

  void test('reuse of a refresh token: every access token of the family is refused; other families and earlier refreshes are not touched', async () => {
    const first = await grant(pw(seed.usPw, seed.dave));
    const other = await grant(pw(seed.usPw, seed.dave));
    const second = await grant(rt(seed.usPw, first.refresh_token));
    assert.equal(
      (await people(first.access_token)).statusCode,
      200,
      'a refresh alone leaves the earlier access token valid (OI-15)',
    );
    assert.equal((await people(second.access_token)).statusCode, 200);
    assert.equal((await t.token(rt(seed.usPw, first.refresh_token))).statusCode, 400, 'the replay');
    await assertRevoked(first.access_token, 'the access token of the password grant');
    await assertRevoked(second.access_token, 'the access token of the refresh');
    assert.equal((await people(other.access_token)).statusCode, 200, 'another family of the same user');
  });

  void test("a password change: the user's access tokens are refused, others' are not; a new password grant works", async () => {
    const carol = await grant(pw(seed.usPw, seed.carol));
    const refreshed = await grant(rt(seed.usPw, carol.refresh_token));
    const alice = await grant(pw(seed.usPw, seed.alice));
    const client = await grant(cc(seed.usCc));
    t.services.manual.set(T0 + 1000);
    await changePassword(t.services, 'acme', 'carol', 'Carol-new-pass-2025!');
    await assertRevoked(carol.access_token, 'carol before the change');
    await assertRevoked(refreshed.access_token, 'carol refreshed before the change');
    assert.equal((await people(alice.access_token)).statusCode, 200);
    assert.equal((await people(client.access_token)).statusCode, 200);
    const fresh = await grant(pw(seed.usPw, { username: seed.carol.username, password: 'Carol-new-pass-2025!' }));
    assert.equal((await people(fresh.access_token)).statusCode, 200);
  });
});
