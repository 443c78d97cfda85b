// The load generator counts what it is told to check: a wrong answer is an error (counted,
// sampled, and not in the throughput), never a speed; the bounds hold.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { runLoad } from '../load/load-generator.ts';
import { checkJsonRecord, checkTokenResponse, jsonRecordChecker } from '../load/response-checks.ts';
import { tokenRequestWorker } from '../load/workers.ts';

// header {"alg":"EdDSA"} and {"alg":"HS256"}, any payload and signature
const eddsaJws = `${Buffer.from('{"alg":"EdDSA","typ":"at+jwt"}').toString('base64url')}.e30.c2ln`;
const hs256Jws = `${Buffer.from('{"alg":"HS256"}').toString('base64url')}.e30.c2ln`;
const good = JSON.stringify({ access_token: eddsaJws, token_type: 'Bearer', expires_in: 3600 });

void describe('runLoad', () => {
  let server: Server;
  let origin = '';
  let served = 0;
  before(async () => {
    // Every third answer is wrong in a different way: HS256 instead of EdDSA, or a 500.
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        served += 1;
        const kind = served % 3;
        if (kind === 1) response.writeHead(200, { 'content-type': 'application/json' }).end(good);
        else if (kind === 2)
          response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ access_token: hs256Jws, token_type: 'Bearer', expires_in: 3600 }));
        else response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"server_error"}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  void test('a wrong answer is counted as an error, sampled, and left out of the throughput', async () => {
    served = 0;
    const result = await runLoad({
      origin,
      connections: 1,
      warmupMs: 0,
      bound: { requests: 30 },
      createWorker: () =>
        Promise.resolve(
          tokenRequestWorker('/token', { grant_type: 'client_credentials' }, { alg: 'EdDSA', refreshToken: false }),
        ),
    });
    assert.equal(result.requests, 30);
    assert.equal(result.errors, 20);
    assert.equal(served, 30, 'the request-count bound is exact');
    assert.ok(
      result.errorSamples.some((s) => s.includes('alg HS256')),
      result.errorSamples.join('; '),
    );
    assert.ok(
      result.errorSamples.some((s) => s.includes('HTTP 500')),
      result.errorSamples.join('; '),
    );
    assert.ok(
      result.throughput > 0 && result.throughput <= (10 * 1000) / result.elapsedMs + 1e-9,
      'only the good answers count',
    );
    assert.ok(result.latency.p50 > 0 && result.latency.p99 >= result.latency.p50);
  });

  void test('a request that fails (nothing listening) is an error, not a crash', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadOrigin = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await runLoad({
      origin: deadOrigin,
      connections: 2,
      warmupMs: 0,
      bound: { requests: 4 },
      createWorker: () => Promise.resolve(tokenRequestWorker('/token', {}, { alg: 'EdDSA', refreshToken: false })),
    });
    assert.equal(result.errors, result.requests);
    assert.equal(result.throughput, 0);
    assert.match(result.errorSamples[0] ?? '', /request failed/);
  });
});

void describe('response checks', () => {
  const answer = (status: number, body: unknown, type = 'application/json') => ({
    status,
    headers: { 'content-type': type },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

  void test('a token response: status, media type, JWS and its alg, token_type, expires_in, refresh_token', () => {
    const ok = { access_token: eddsaJws, token_type: 'Bearer', expires_in: 3600 };
    assert.equal(checkTokenResponse(answer(200, ok), { alg: 'EdDSA', refreshToken: false }).ok, true);
    const problem = (status: number, body: unknown, refreshToken = false, type?: string) => {
      const checked = checkTokenResponse(answer(status, body, type), { alg: 'EdDSA', refreshToken });
      return checked.ok ? 'accepted' : checked.problem;
    };
    assert.match(problem(400, ok), /HTTP 400/);
    assert.match(problem(200, ok, false, 'text/plain'), /content-type/);
    assert.match(problem(200, 'not json'), /not JSON/);
    assert.match(problem(200, { ...ok, access_token: 'opaque-token' }), /compact JWS/);
    assert.match(problem(200, { ...ok, access_token: hs256Jws }), /alg HS256/);
    assert.match(problem(200, { ...ok, token_type: 'bearer' }), /token_type/);
    assert.match(problem(200, { ...ok, expires_in: '3600' }), /expires_in/);
    assert.match(problem(200, ok, true), /no refresh_token/);
    assert.match(problem(200, { ...ok, refresh_token: 'r' }, false), /unexpected refresh_token/);
  });

  void test('a JSON record: the field must have the value', () => {
    assert.equal(checkJsonRecord(answer(200, { identifier: 'E-1001' }), 'identifier', 'E-1001'), undefined);
    assert.match(
      checkJsonRecord(answer(200, { identifier: 'E-1002' }), 'identifier', 'E-1001') ?? '',
      /expected E-1001/,
    );
    assert.match(checkJsonRecord(answer(401, { code: '000-1202' }), 'identifier', 'E-1001') ?? '', /HTTP 401/);
  });

  void test('a repeated JSON record: the body accepted before is still refused with another status or media type; any other body is checked in full', () => {
    const check = jsonRecordChecker('identifier', 'E-1001');
    const body = { identifier: 'E-1001', givenName: 'Ada' };
    assert.equal(check(answer(200, body)), undefined);
    assert.equal(check(answer(200, body)), undefined, 'the same answer again');
    assert.match(check(answer(500, body)) ?? '', /HTTP 500/);
    assert.match(check(answer(200, body, 'text/plain')) ?? '', /content-type/);
    assert.match(check(answer(200, { ...body, identifier: 'E-1002' })) ?? '', /expected E-1001/);
    assert.match(check(answer(200, `${JSON.stringify(body)}x`)) ?? '', /not JSON/);
    assert.equal(check(answer(200, { identifier: 'E-1001', givenName: 'Grace' })), undefined, 'another good body');
  });
});
