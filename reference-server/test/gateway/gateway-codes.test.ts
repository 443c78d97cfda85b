// Every code of the gateway catalogue (except 000-1200, which the reference server never
// produces) produced end to end by its documented trigger, with its documented status, body and
// headers. The last test fails if a catalogued code has no test here.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gatewayErrorCodes, gatewayErrors } from '../../../schemas/gateway-error-codes.ts';
import type { GatewayErrorCode } from '../../../schemas/gateway-error-codes.ts';
import type { FaultName } from '../../src/gateway/faults.ts';
import { expectGatewayError, fromInject, producedCodes } from './support/expect-gateway-error.ts';
import { createGatewayFixture } from './support/gateway-fixture.ts';
import type { GatewayFixture } from './support/gateway-fixture.ts';
import { sendRaw } from './support/raw-http.ts';

let f: GatewayFixture;
let port: number;
const token: Record<string, string> = {};
const issuedTokens: string[] = [];

before(async () => {
  f = await createGatewayFixture();
  port = await f.listen();
  const issue = async (name: string, claims: Parameters<GatewayFixture['tokens']['issue']>[0]) => {
    token[name] = await f.tokens.issue(claims);
    issuedTokens.push(token[name]);
  };
  await issue('reader', { client_id: 'reader-cc' });
  await issue('writer', { client_id: 'writer-cc' });
  await issue('euReader', { client_id: 'eu-reader-cc', region: 'eu' });
  await issue('reporting', { client_id: 'reporting-cc' });
  await issue('unregistered', { client_id: 'unregistered-cc' });
  await issue('alice', {
    client_id: 'app-pw',
    sub: 'acme\\alice',
    grant: 'password',
    scope: 'email openid profile company',
  });
  await issue('walter', { client_id: 'app-pw', sub: 'acme\\walter', grant: 'refresh_token' });
  await issue('rita', { client_id: 'app-pw', sub: 'acme\\rita', grant: 'password' });
});
after(() => f.close());

const t = (name: string): string => token[name] ?? assert.fail(`no token ${name}`);
const auth = (name: string) => ({ authorization: `Bearer ${t(name)}` });

async function get(url: string, headers: Record<string, string | string[]> = {}) {
  return fromInject(await f.app.inject({ method: 'GET', url, headers }));
}
async function postNote(
  identifier: string,
  payload: string | undefined,
  headers: Record<string, string> = {},
  who = 'writer',
) {
  return fromInject(
    await f.app.inject({
      method: 'POST',
      url: `/v1/people/er/${identifier}/notes`,
      headers: { ...auth(who), ...headers },
      ...(payload === undefined ? {} : { payload }),
    }),
  );
}
async function withFault<T>(fault: FaultName, run: () => Promise<T>): Promise<T> {
  f.gateway.faults.set(fault);
  try {
    return await run();
  } finally {
    f.gateway.faults.set(null);
  }
}
const raw = (lines: string[], body = '') => {
  const [requestLine = '', ...headers] = lines;
  const closing = headers.some((h) => /^connection:/i.test(h)) ? headers : [...headers, 'Connection: close'];
  return sendRaw(port, `${[requestLine, ...closing].join('\r\n')}\r\n\r\n${body}`);
};

void describe('success', () => {
  void test('GET /v1/people/er/{identifier} answers the person as JSON with Cache-Control: no-store', async () => {
    const response = await get('/v1/people/er/E1001', { ...auth('reader'), accept: 'application/json' });
    assert.equal(response.status, 200);
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.equal((JSON.parse(response.body) as { identifier: string }).identifier, 'E1001');
  });
  void test('search, a note (201), HEAD, password and refresh_token tokens by role, EU tokens', async () => {
    const search = await get('/v1/people/search?lastName=lovelace&limit=1', auth('alice'));
    assert.equal(search.status, 200);
    assert.deepEqual(
      (JSON.parse(search.body) as { items: { identifier: string }[] }).items.map((p) => p.identifier),
      ['E1001'],
    );
    const note = await postNote(
      'E1003',
      JSON.stringify({ text: 'hello' }),
      { 'content-type': 'application/json; charset=utf-8' },
      'walter',
    );
    assert.equal(note.status, 201);
    assert.equal((JSON.parse(note.body) as { text: string }).text, 'hello');
    assert.equal(
      (await f.app.inject({ method: 'HEAD', url: '/v1/people/er/E1001', headers: auth('reader') })).statusCode,
      200,
    );
    assert.equal((await get('/v1/people/er/E1002', auth('euReader'))).status, 200);
    assert.equal(
      (await get('/v1/people/er/E1002', { accept: 'text/html, application/*;q=0.5', ...auth('reader') })).status,
      200,
    );
  });
});

void describe('framing, host, target and URI (1000, 1001, 1002, 1010)', () => {
  void test('000-1000 a GET carrying a body', async () => {
    expectGatewayError(
      fromInject(
        await f.app.inject({ method: 'GET', url: '/v1/people/er/E1001', headers: auth('reader'), payload: 'x=1' }),
      ),
      '000-1000',
    );
  });
  void test('000-1000 messages Node cannot frame: broken chunking, a malformed header line', async () => {
    expectGatewayError(
      await raw(['POST /v1/people/er/E1001/notes HTTP/1.1', 'Host: localhost', 'Transfer-Encoding: chunked'], 'zz\r\n'),
      '000-1000',
    );
    expectGatewayError(await raw(['GET /v1/people/er/E1001 HTTP/1.1', 'Host: localhost', 'Bad Header: x']), '000-1000');
    expectGatewayError(
      await raw(['GET /v1/people/er/E1001 HTTP/1.1', 'Host: localhost', 'Content-Length: 1', 'Content-Length: 2']),
      '000-1000',
    );
  });
  void test('000-1001 a foreign, missing, repeated or unparseable Host', async () => {
    expectGatewayError(await get('/v1/people/er/E1001', { host: 'evil.test', ...auth('reader') }), '000-1001');
    expectGatewayError(
      await raw(['GET /v1/people/er/E1001 HTTP/1.1', `Authorization: Bearer ${t('reader')}`, 'Connection: close']),
      '000-1001',
    );
    expectGatewayError(
      await raw(['GET /v1/people/er/E1001 HTTP/1.1', 'Host: localhost', 'Host: localhost', 'Connection: close']),
      '000-1001',
    );
    expectGatewayError(
      await raw(['GET /v1/people/er/E1001 HTTP/1.1', 'Host: local host:x', 'Connection: close']),
      '000-1001',
    );
  });
  void test('allowed hosts: port stripped, IPv6 brackets handled, case ignored', async () => {
    for (const host of ['LOCALHOST:8443', '[::1]:443', 'api.example.test']) {
      assert.equal((await get('/v1/people/er/E1001', { host, ...auth('reader') })).status, 200, host);
    }
  });
  void test('000-1002 absolute-form naming a foreign host, another scheme, or asterisk-form', async () => {
    expectGatewayError(
      await raw(['GET http://evil.test/v1/people/er/E1001 HTTP/1.1', 'Host: localhost', 'Connection: close']),
      '000-1002',
    );
    expectGatewayError(
      await raw(['GET ftp://localhost/v1/people/er/E1001 HTTP/1.1', 'Host: localhost', 'Connection: close']),
      '000-1002',
    );
    expectGatewayError(await raw(['OPTIONS * HTTP/1.1', 'Host: localhost', 'Connection: close']), '000-1002');
  });
  void test('absolute-form naming a configured host is served (its authority wins over Host)', async () => {
    const response = await raw([
      `GET http://api.example.test:${port}/v1/people/er/E1001 HTTP/1.1`,
      'Host: evil.test',
      `Authorization: Bearer ${t('reader')}`,
      'Connection: close',
    ]);
    assert.equal(response.status, 200);
  });
  void test('000-1010 bad escape, encoded NUL, control characters, dot-segments, illegal characters', async () => {
    expectGatewayError(await get('/v1/people/er/%zz', auth('reader')), '000-1010'); // the router refuses it: frameworkErrors
    expectGatewayError(await get('/v1/people/er/%C3%28', auth('reader')), '000-1010');
    expectGatewayError(await get('/v1/people/er/a%00b', auth('reader')), '000-1010');
    expectGatewayError(await get('/v1/people/er/a%0Ab', auth('reader')), '000-1010');
    expectGatewayError(
      await raw(['GET /v1/people/er/%2e%2E HTTP/1.1', 'Host: localhost', 'Connection: close']),
      '000-1010',
    ); // inject would normalise it
    expectGatewayError(
      await raw(['GET /v1/../v1/people/er/E1001 HTTP/1.1', 'Host: localhost', 'Connection: close']),
      '000-1010',
    );
    expectGatewayError(
      await raw(['GET /v1/people/er/./E1001 HTTP/1.1', 'Host: localhost', 'Connection: close']),
      '000-1010',
    );
    expectGatewayError(
      await raw(['GET /v1/people/er/E1\x01001 HTTP/1.1', 'Host: localhost', 'Connection: close']),
      '000-1010',
    ); // Node's parser: clientErrorHandler
    expectGatewayError(
      await raw(['GET /v1/people/er/E1001{} HTTP/1.1', 'Host: localhost', 'Connection: close']),
      '000-1010',
    );
  });
  void test('the host is checked before the URI (decision order)', async () => {
    expectGatewayError(await get('/v1/people/er/%zz', { host: 'evil.test' }), '000-1001');
  });
});

void describe('version and path (1020, 4000)', () => {
  void test('000-1020 no version segment, or a version other than v1', async () => {
    for (const path of [
      '/people/er/E1001',
      '/v0/people/er/E1001',
      '/v2/people/er/E1001',
      '/v99/people/er/E1001',
      '/vx/people/er/E1001',
      '/V1/people/er/E1001',
      '/',
      '/__test/clock-not',
    ]) {
      expectGatewayError(await get(path, auth('reader')), '000-1020');
    }
  });
  void test('000-4000 a path under /v1/ that is not exposed, or an exposed path with another method', async () => {
    for (const path of [
      '/v1',
      '/v1/',
      '/v1/internal/x',
      '/v1/people/er',
      '/v1/people/er/',
      '/v1/people/er/E1001/',
      '/v1/people/er/E1001/notes/x',
    ]) {
      expectGatewayError(await get(path, auth('reader')), '000-4000');
    }
    expectGatewayError(
      fromInject(await f.app.inject({ method: 'DELETE', url: '/v1/people/er/E1001', headers: auth('writer') })),
      '000-4000',
    );
    expectGatewayError(
      fromInject(await f.app.inject({ method: 'GET', url: '/v1/people/er/E1001/notes', headers: auth('writer') })),
      '000-4000',
    );
  });
  void test('methods Fastify does not route (PROPFIND) still get a gateway decision', async () => {
    expectGatewayError(
      await raw(['PROPFIND /v1/people/er/E1001 HTTP/1.1', 'Host: localhost', 'Connection: close']),
      '000-4000',
    );
  });
  void test('the exposed path is checked before credentials (decision order)', async () => {
    expectGatewayError(await get('/v1/internal/x'), '000-4000');
  });
});

void describe('header syntax (2100, 2102)', () => {
  void test('000-2100 an Accept that is not a media-range list', async () => {
    for (const accept of ['not a media range', 'application/json;', 'application/json;q=2', '*/json']) {
      expectGatewayError(await get('/v1/people/er/E1001', { accept, ...auth('reader') }), '000-2100');
    }
  });
  void test('000-2102 an Accept that excludes application/json', async () => {
    expectGatewayError(await get('/v1/people/er/E1001', { accept: 'application/xml', ...auth('reader') }), '000-2102');
    expectGatewayError(
      await get('/v1/people/er/E1001', { accept: 'application/json;q=0, */*', ...auth('reader') }),
      '000-2102',
    );
  });
  void test('000-2102 two Authorization headers (raw socket)', async () => {
    expectGatewayError(
      await raw([
        'GET /v1/people/er/E1001 HTTP/1.1',
        'Host: localhost',
        `Authorization: Bearer ${t('reader')}`,
        `Authorization: Bearer ${t('reader')}`,
        'Connection: close',
      ]),
      '000-2102',
    );
  });
});

void describe('authentication (1201, 1205, 1202, 1208)', () => {
  void test('000-1201 no Authorization header, another scheme, a token only in the query or a form body', async () => {
    expectGatewayError(await get('/v1/people/er/E1001'), '000-1201');
    expectGatewayError(
      await get('/v1/people/er/E1001', { authorization: 'Basic cmVhZGVyLWNjOnNlY3JldA==' }),
      '000-1201',
    );
    expectGatewayError(await get('/v1/people/er/E1001', { authorization: `Token ${t('reader')}` }), '000-1201');
    expectGatewayError(await get(`/v1/people/er/E1001?access_token=${t('reader')}`), '000-1201');
    expectGatewayError(
      fromInject(
        await f.app.inject({
          method: 'POST',
          url: '/v1/people/er/E1001/notes',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: `access_token=${t('writer')}`,
        }),
      ),
      '000-1201',
    );
  });
  void test('000-1205 Bearer without a token, a token outside b64token, or not a parseable JWT', async () => {
    const [header, claims] = t('reader').split('.');
    for (const value of [
      'Bearer',
      'Bearer a b',
      'Bearer a,b',
      `Bearer\t${t('reader')}`,
      'Bearer abc',
      'Bearer a.b',
      'Bearer ===',
      `Bearer xxx.${claims}.sig`,
      `Bearer ${header}.e30x.sig`,
      `Bearer ${header}.${claims}.`,
    ]) {
      expectGatewayError(await get('/v1/people/er/E1001', { authorization: value }), '000-1205');
    }
  });
  void test('000-1202 a bad signature, a changed character, another environment or audience, not yet valid', async () => {
    const forged = await f.tokens.issue({ client_id: 'reader-cc' }, { key: f.tokens.foreignKey });
    const production = await f.tokens.issue({ client_id: 'reader-cc', env: 'production' });
    const otherAudience = await f.tokens.issue({ client_id: 'reader-cc' }, { audience: 'billing' });
    const future = await f.tokens.issue({ client_id: 'reader-cc' }, { issuedAt: f.clock.now() + 60_000 });
    const reader = t('reader');
    const tampered = reader.slice(0, -3) + (reader.at(-3) === 'A' ? 'B' : 'A') + reader.slice(-2);
    issuedTokens.push(forged, production, otherAudience, future);
    for (const value of [forged, production, otherAudience, future, tampered]) {
      expectGatewayError(await get('/v1/people/er/E1001', { authorization: `Bearer ${value}` }), '000-1202');
    }
  });
  void test('000-1202 an expired token (clock advanced past exp)', async () => {
    const short = await f.tokens.issue({ client_id: 'reader-cc' }, { lifetimeSeconds: 60 });
    issuedTokens.push(short);
    assert.equal(
      (await get('/v1/people/er/E1001', { authorization: `Bearer ${short}` })).status,
      200,
      'setup: valid before expiry',
    );
    f.clock.advance(61_000);
    expectGatewayError(await get('/v1/people/er/E1001', { authorization: `Bearer ${short}` }), '000-1202');
  });
  void test('000-1202 a valid user token whose refresh-token family was revoked (no cache: refused from the next request on)', async () => {
    const user = { client_id: 'app-pw', sub: 'acme\\alice', grant: 'password' as const };
    const family = await f.tokens.issue({ ...user, fid: 'family-1' });
    const sibling = await f.tokens.issue({ ...user, grant: 'refresh_token', fid: 'family-1' });
    const otherFamily = await f.tokens.issue({ ...user, fid: 'family-2' });
    issuedTokens.push(family, sibling, otherFamily);
    assert.equal(
      (await get('/v1/people/er/E1001', { authorization: `Bearer ${family}` })).status,
      200,
      'setup: valid before the revocation',
    );
    f.store.revokedFamilies.add('family-1');
    try {
      for (const token of [family, sibling]) {
        const res = await get('/v1/people/er/E1001', { authorization: `Bearer ${token}` });
        expectGatewayError(res, '000-1202');
        assert.match(
          String(res.headers['www-authenticate']),
          /error="invalid_token", error_description="The access token was revoked"/,
        );
      }
      assert.equal(
        (await get('/v1/people/er/E1001', { authorization: `Bearer ${otherFamily}` })).status,
        200,
        'another family',
      );
      assert.equal(
        (await get('/v1/people/er/E1001', { authorization: `Bearer ${t('reader')}` })).status,
        200,
        'client_credentials tokens carry no family',
      );
    } finally {
      f.store.revokedFamilies.delete('family-1');
    }
  });
  void test('the scheme is case-insensitive; one or more spaces are accepted (RFC 6750 grammar)', async () => {
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
      assert.equal(
        (await get('/v1/people/er/E1001', { authorization: `${scheme} ${t('reader')}` })).status,
        200,
        scheme,
      );
    }
    assert.equal((await get('/v1/people/er/E1001', { authorization: `Bearer   ${t('reader')}` })).status, 200);
  });
  void test('000-1208 the key source fails (fault switch key-source-failure)', async () => {
    await withFault('key-source-failure', async () => {
      expectGatewayError(await get('/v1/people/er/E1001', auth('reader')), '000-1208');
      expectGatewayError(await get('/v1/people/er/E1001', { authorization: 'Bearer abc' }), '000-1205'); // parsing needs no keys
    });
  });
  void test('000-1208 a verifier that throws', async () => {
    // A token the gateway has not verified before: one it has is answered from its cache of
    // verified tokens without asking the key source (verified-token-cache.ts).
    const unseen = await f.tokens.issue({ client_id: 'reader-cc' });
    const verifier = f.tokens.verifier;
    const original = verifier.verify.bind(verifier);
    verifier.verify = () => Promise.reject(new Error('JWKS fetch failed'));
    try {
      expectGatewayError(await get('/v1/people/er/E1001', { authorization: `Bearer ${unseen}` }), '000-1208');
    } finally {
      verifier.verify = original;
    }
  });
});

void describe('authorization (1100, 1101)', () => {
  void test('000-1100 a client_credentials client without Data Services registration', async () => {
    expectGatewayError(await get('/v1/people/er/E1001', auth('unregistered')), '000-1100');
  });
  void test('000-1101 a role that does not grant the API', async () => {
    expectGatewayError(await get('/v1/people/er/E1001', auth('reporting')), '000-1101');
    expectGatewayError(await get('/v1/people/er/E1001', auth('rita')), '000-1101');
    expectGatewayError(
      await postNote('E1001', JSON.stringify({ text: 'x' }), { 'content-type': 'application/json' }, 'reader'),
      '000-1101',
    );
    expectGatewayError(
      await postNote('E1001', JSON.stringify({ text: 'x' }), { 'content-type': 'application/json' }, 'alice'),
      '000-1101',
    );
  });
  void test('users are authorized by their role, not by their client registration', async () => {
    assert.equal((await get('/v1/people/er/E1001', auth('alice'))).status, 200);
  });
});

void describe('request syntax (2110, 2111, 2112, 2101, 1005, 2120, 2121, 2122)', () => {
  void test('000-2110 an unparseable query or a repeated parameter', async () => {
    expectGatewayError(await get('/v1/people/search?lastName=%zz', auth('reader')), '000-2110');
    expectGatewayError(await get('/v1/people/search?lastName=a&lastName=b', auth('reader')), '000-2110');
    expectGatewayError(await get('/v1/people/er/E1001?x=%', auth('reader')), '000-2110');
  });
  void test('000-2111 lastName missing', async () => {
    expectGatewayError(await get('/v1/people/search', auth('reader')), '000-2111');
    expectGatewayError(await get('/v1/people/search?lastName=&limit=5', auth('reader')), '000-2111');
  });
  void test('000-2112 limit not an integer from 1 to 100, lastName too long', async () => {
    for (const query of [
      'limit=0',
      'limit=101',
      'limit=abc',
      'limit=1.5',
      'limit=-1',
      `limit=5&x=1&lastName=${'a'.repeat(101)}`,
    ]) {
      expectGatewayError(
        await get(
          `/v1/people/search?lastName=Hopper&${query}`.replace('lastName=Hopper&limit=5&x=1&', ''),
          auth('reader'),
        ),
        '000-2112',
      );
    }
  });
  void test('000-2101 a note without Content-Type', async () => {
    expectGatewayError(await postNote('E1001', '{"text":"x"}'), '000-2101');
    expectGatewayError(await postNote('E1001', undefined), '000-2101');
  });
  void test('000-1005 a note body that is not application/json', async () => {
    expectGatewayError(await postNote('E1001', 'text=x', { 'content-type': 'text/plain' }), '000-1005');
    expectGatewayError(
      await postNote('E1001', '{"text":"x"}', { 'content-type': 'application/json; charset=latin1' }),
      '000-1005',
    );
  });
  void test('000-2120 invalid JSON, not an object, not UTF-8, over 64 KiB', async () => {
    for (const body of ['{"text":', '', '[1]', '"text"', JSON.stringify({ text: 'x', pad: 'y'.repeat(70_000) })]) {
      expectGatewayError(await postNote('E1001', body, { 'content-type': 'application/json' }), '000-2120');
    }
    expectGatewayError(
      fromInject(
        await f.app.inject({
          method: 'POST',
          url: '/v1/people/er/E1001/notes',
          headers: { ...auth('writer'), 'content-type': 'application/json' },
          payload: Buffer.from([0x7b, 0xff, 0x7d]),
        }),
      ),
      '000-2120',
    );
  });
  void test('000-2121 text missing', async () => {
    expectGatewayError(await postNote('E1001', '{"note":"x"}', { 'content-type': 'application/json' }), '000-2121');
  });
  void test('000-2122 text not a string of 1 to 2000 characters', async () => {
    for (const text of [5, '', null, 'x'.repeat(2001), ['x']]) {
      expectGatewayError(
        await postNote('E1001', JSON.stringify({ text }), { 'content-type': 'application/json' }),
        '000-2122',
      );
    }
    assert.equal(
      (await postNote('E1001', JSON.stringify({ text: 'x'.repeat(2000) }), { 'content-type': 'application/json' }))
        .status,
      201,
    );
  });
});

void describe('routing faults (1003, 1004, 3000, 3010, 5000)', () => {
  const faultCases: [FaultName, GatewayErrorCode][] = [
    ['invalid-gateway', '000-1003'],
    ['gateway-config-error', '000-1004'],
    ['route-failure', '000-3000'],
    ['multi-route-failure', '000-3010'],
    ['unavailable', '000-5000'],
  ];
  for (const [fault, code] of faultCases) {
    void test(`${code} fault switch ${fault} (set through POST /__test/faults)`, async () => {
      const set = await f.app.inject({
        method: 'POST',
        url: '/__test/faults',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ fault }),
      });
      assert.deepEqual(set.json(), { active: fault }, 'setup: fault switched on');
      try {
        expectGatewayError(await get('/v1/people/er/E1001', auth('reader')), code);
        expectGatewayError(await get('/v1/people/er/E1001'), '000-1201'); // a fault is only reached by valid requests
      } finally {
        await f.app.inject({
          method: 'POST',
          url: '/__test/faults',
          headers: { 'content-type': 'application/json' },
          payload: '{"fault":null}',
        });
      }
      assert.equal((await get('/v1/people/er/E1001', auth('reader'))).status, 200);
    });
  }
  void test('000-5000 carries Retry-After', async () => {
    await withFault('unavailable', async () => {
      assert.equal((await get('/v1/people/er/E1001', auth('reader'))).headers['retry-after'], '30');
    });
  });
  void test('000-1004 an unexpected error inside the gateway', async () => {
    const original = f.store.findPerson.bind(f.store);
    f.store.findPerson = () => {
      throw new Error('disk on fire');
    };
    try {
      expectGatewayError(await get('/v1/people/er/E1001', auth('reader')), '000-1004');
    } finally {
      f.store.findPerson = original;
    }
  });
});

void describe('backend (5001, 5002, 5003, 5004)', () => {
  void test('000-5001 an identifier that is not well formed', async () => {
    for (const id of ['-E1001', 'E_1001', 'a%2Fb', 'x'.repeat(65), 'E1001!']) {
      expectGatewayError(await get(`/v1/people/er/${id}`, auth('reader')), '000-5001');
    }
  });
  void test('000-5003 a well-formed identifier with no record', async () => {
    expectGatewayError(await get('/v1/people/er/E9999', auth('reader')), '000-5003');
    expectGatewayError(await postNote('E9999', '{"text":"x"}', { 'content-type': 'application/json' }), '000-5003');
  });
  void test('000-5004 a route the backend does not implement (history)', async () => {
    expectGatewayError(await get('/v1/people/er/E1001/history', auth('reader')), '000-5004');
  });
  void test('000-5002 the user was deactivated after the token was issued, and activated again', async () => {
    const deactivate = await f.app.inject({
      method: 'POST',
      url: '/__test/principals/deactivate',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ kind: 'user', tenant: 'acme', userName: 'alice' }),
    });
    assert.equal(deactivate.statusCode, 200, 'setup: deactivated');
    expectGatewayError(await get('/v1/people/er/E1001', auth('alice')), '000-5002');
    await f.app.inject({
      method: 'POST',
      url: '/__test/principals/activate',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ kind: 'user', tenant: 'acme', userName: 'alice' }),
    });
    assert.equal((await get('/v1/people/er/E1001', auth('alice'))).status, 200);
  });
  void test('000-5002 the client was deactivated (its client_credentials and password tokens)', async () => {
    await f.app.inject({
      method: 'POST',
      url: '/__test/principals/deactivate',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ kind: 'client', clientId: 'app-pw' }),
    });
    await f.app.inject({
      method: 'POST',
      url: '/__test/principals/deactivate',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ kind: 'client', clientId: 'reader-cc' }),
    });
    try {
      expectGatewayError(await get('/v1/people/er/E1001', auth('alice')), '000-5002');
      expectGatewayError(await get('/v1/people/er/E1001', auth('reader')), '000-5002');
    } finally {
      for (const clientId of ['app-pw', 'reader-cc']) {
        await f.app.inject({
          method: 'POST',
          url: '/__test/principals/activate',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ kind: 'client', clientId }),
        });
      }
    }
  });
  void test('000-5002 a principal missing from the store', async () => {
    const ghost = await f.tokens.issue({ client_id: 'app-pw', sub: 'acme\\ghost', grant: 'password' });
    issuedTokens.push(ghost);
    expectGatewayError(await get('/v1/people/er/E1001', { authorization: `Bearer ${ghost}` }), '000-5002');
  });
});

void describe('rate limits (2000, 2001), per client, from the injected clock', () => {
  let limited: GatewayFixture;
  before(async () => {
    limited = await createGatewayFixture({ rateLimits: { spikePerSecond: 3, quotaPerWindow: 5, windowSeconds: 60 } });
  });
  after(() => limited.close());
  const call = async (authorization?: string) =>
    fromInject(
      await limited.app.inject({
        method: 'GET',
        url: '/v1/people/er/E1001',
        headers: authorization === undefined ? {} : { authorization },
      }),
    );

  void test('000-2001 spike, then 000-2000 quota, each with Retry-After; both reset when the clock moves on', async () => {
    const reader = `Bearer ${await limited.tokens.issue({ client_id: 'reader-cc' })}`;
    const writer = `Bearer ${await limited.tokens.issue({ client_id: 'writer-cc' })}`;
    limited.clock.set(Date.UTC(2030, 0, 1, 12, 0, 0, 200));
    for (let i = 0; i < 3; i += 1)
      assert.equal((await call(reader)).status, 200, `setup: call ${i + 1} within the spike limit`);
    for (let i = 0; i < 3; i += 1) expectGatewayError(await call(), '000-1201'); // unauthenticated calls do not count
    const spike = await call(reader);
    expectGatewayError(spike, '000-2001');
    assert.equal(spike.headers['retry-after'], '1');
    assert.equal((await call(writer)).status, 200, 'another client has its own limits');

    limited.clock.advance(1000);
    assert.equal((await call(reader)).status, 200, 'a new second: call 4 of the quota');
    assert.equal((await call(reader)).status, 200, 'call 5 of the quota');
    const quota = await call(reader);
    expectGatewayError(quota, '000-2000');
    assert.equal(quota.headers['retry-after'], '59'); // the window ends at 12:01:00.000, now is 12:00:01.200
    limited.clock.advance(58_000);
    expectGatewayError(await call(reader), '000-2000');
    limited.clock.advance(800);
    assert.equal((await call(reader)).status, 200, 'a new quota window');
  });
});

void describe('secrets', () => {
  void test('no response body, header or log line carries a token or an Authorization value', () => {
    const logText = f.logs.join('\n');
    assert.ok(
      f.logs.some((line) => line.includes('000-1202')),
      'setup: gateway decisions were logged',
    );
    for (const issued of issuedTokens) {
      assert.ok(!logText.includes(issued), 'a token reached the log');
      assert.ok(!logText.includes(issued.split('.')[2] ?? issued), 'a token signature reached the log');
    }
  });
  void test('a rejected token is not echoed in the body or the challenge', async () => {
    const reader = t('reader');
    for (const authorization of [`Bearer ${reader}x`, `Bearer ${reader}`.replace('.', '!'), `Token ${reader}`]) {
      const response = await get('/v1/people/er/E1001', { authorization });
      assert.ok(
        !response.body.includes(reader.slice(0, 20)) &&
          !String(response.headers['www-authenticate']).includes(reader.slice(0, 20)),
      );
    }
  });
});

void test('the catalogue: every code but 000-1200 is produced by a test above', () => {
  const missing = gatewayErrorCodes.filter((code) => code !== '000-1200' && !producedCodes.has(code));
  assert.deepEqual(missing, [], `codes no test produced: ${missing.join(', ')}`);
  assert.ok(!producedCodes.has('000-1200'), '000-1200 is documented as never produced');
  assert.match(gatewayErrors['000-1200'].trigger, /never produces/);
});
