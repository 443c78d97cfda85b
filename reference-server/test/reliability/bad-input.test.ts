// Bad input against a real process (loopback): oversized bodies and headers, slow clients (the
// header and request timeouts), invalid UTF-8, thousands of parameters, deep and binary bodies.
// Each gets a clear error in the documented format (the token endpoint's OAuth JSON, the gateway's
// {"code","message"}), quickly; no answer holds a stack trace or an internal detail; and the server
// keeps serving others.
//
// Two servers: the timeouts are tested on one whose --headers-timeout/--request-timeout are small;
// every other kind of bad input goes to one whose timeouts are far beyond any test, so that a busy
// machine, slow to send or read a large request, never turns the answer under test into a
// timeout's 000-1000 (it did at a load of ~8, with a 0.6 s request timeout).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, before, describe, test } from 'node:test';
import type { Agent } from 'undici';
import { clientFields, seed } from '../demo-credentials.ts';
import { rawExchange, type RawAnswer } from './support/raw-socket.ts';
import {
  agent,
  form,
  seededStoreFile,
  send,
  startServer,
  US_TOKEN,
  type Answer,
  type ServerProcess,
} from './support/server-process.ts';

const HEADERS_TIMEOUT_S = 0.3;
const REQUEST_TIMEOUT_S = 0.6;
/** The other server's timeouts: never reached by a test (its safety nets end far sooner). */
const CALM_TIMEOUT_S = 600;
/** How long a raw exchange that holds half a request waits for its answer: a safety net only. */
const HOLD_NET_MS = 60_000;
/**
 * The cost bound of input that is costly to parse (thousands of parameters, deep nesting): the
 * server's CPU time for the request (not the wall-clock time, which grows with the machine's load).
 * Refusals that must not wait (for a body, for a timeout) are shown by events instead: on a server
 * whose timeouts no test reaches, an answer at all is an answer at once.
 */
const CPU_BUDGET_MS = 1500;
/** The server's default timeouts: a slow client must be cut well before these (the configured ones applied). */
const DEFAULT_HEADERS_TIMEOUT_S = 10;
const DEFAULT_REQUEST_TIMEOUT_S = 30;
/** The slow-client tests' wait for the cut: a safety net, half the default headers timeout. */
const CUT_NET_MS = (DEFAULT_HEADERS_TIMEOUT_S * 1000) / 2;
const cc = { grant_type: 'client_credentials', ...clientFields(seed.usCc) };
const TOKEN_ERRORS = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
]);

/** Stack frames, file paths, exception names, framework or parser codes: none may reach a client. */
const internals = [
  /\n\s*at /,
  /\bat \S+ \(/,
  /node:internal/,
  /node_modules/,
  /\/(?:work|home|tmp|usr)\//,
  /[\w-]+\.(?:ts|js|mjs|cjs):\d+/,
  /\b\w*Error:/,
  /\bFST_\w+/,
  /\bERR_\w+/,
  /\bHPE_\w+/,
  /SQLITE/i,
  /\bstack\b/i,
];

function assertClean(body: string, what: string): void {
  for (const pattern of internals) assert.doesNotMatch(body, pattern, `${what}: the answer leaks an internal detail`);
}
function assertTokenError(r: Answer | RawAnswer, what: string, status = 400): Record<string, unknown> {
  assert.equal(r.status, status, `${what}: ${r.body}`);
  const body = JSON.parse(r.body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description'], what);
  assert.ok(TOKEN_ERRORS.has(String(body.error)), `${what}: ${String(body.error)}`);
  assertClean(r.body, what);
  return body;
}
function assertGatewayError(r: Answer | RawAnswer, what: string, codes: string[]): void {
  const body = JSON.parse(r.body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message'], `${what}: ${r.body}`);
  assert.ok(codes.includes(String(body.code)), `${what}: got ${String(body.code)}, expected one of ${codes.join(' ')}`);
  assertClean(r.body, what);
}

void describe('bad input (real process, loopback)', () => {
  let store: Awaited<ReturnType<typeof seededStoreFile>>;
  let timeoutStore: Awaited<ReturnType<typeof seededStoreFile>>;
  /** Timeouts far beyond the tests: every kind of bad input but slowness. */
  let server: ServerProcess;
  /** Small timeouts: the slow-client tests alone. */
  let timeoutServer: ServerProcess;
  let port: number;
  let timeoutPort: number;
  let http: Agent;
  let writerToken: string;
  let timeoutWriterToken: string;
  const writer = async (on: ServerProcess) => {
    const r = await send(http, `${on.baseUrl}${US_TOKEN}`, form(cc));
    assert.equal(r.status, 200, r.body);
    return String(r.json?.access_token);
  };
  before(async () => {
    [store, timeoutStore] = await Promise.all([seededStoreFile(), seededStoreFile()]);
    [server, timeoutServer] = await Promise.all([
      startServer([
        '--data',
        store.file,
        '--headers-timeout',
        String(CALM_TIMEOUT_S),
        '--request-timeout',
        String(CALM_TIMEOUT_S),
      ]),
      startServer([
        '--data',
        timeoutStore.file,
        '--headers-timeout',
        String(HEADERS_TIMEOUT_S),
        '--request-timeout',
        String(REQUEST_TIMEOUT_S),
      ]),
    ]);
    port = Number(new URL(server.baseUrl).port);
    timeoutPort = Number(new URL(timeoutServer.baseUrl).port);
    http = agent(16);
    [writerToken, timeoutWriterToken] = await Promise.all([writer(server), writer(timeoutServer)]);
  });
  after(async () => {
    await http.close();
    for (const s of [server, timeoutServer]) {
      await s.stop();
      assert.equal((await s.exit).code, 0, 'a clean shutdown after all of it');
      assert.doesNotMatch(s.stderr(), /"level":(50|60)/, 'no error or fatal log line');
    }
    store.remove();
    timeoutStore.remove();
  });
  // After every kind of bad input: both processes are up and a normal request succeeds.
  afterEach(async () => {
    for (const s of [server, timeoutServer]) {
      assert.ok(s.alive(), 'the server is still running');
      const r = await send(http, `${s.baseUrl}${US_TOKEN}`, form(cc));
      assert.equal(r.status, 200, `a normal request afterwards: ${r.body}`);
    }
  });

  /** A request and the server's CPU time for it (wall-clock time where /proc is not available). */
  const costed = async (request: () => Promise<Answer>): Promise<Answer & { cost: string; costMs: number }> => {
    const before = server.cpuMs();
    const r = await request();
    const after = server.cpuMs();
    const costMs = before === undefined || after === undefined ? r.ms : after - before;
    return { ...r, costMs, cost: `${costMs} ms ${before === undefined ? 'of wall-clock time' : 'of server CPU'}` };
  };
  const tokenRequest = (body: string | Buffer, headers: Record<string, string> = {}) =>
    send(http, `${server.baseUrl}${US_TOKEN}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body,
    });
  const notes = (body: string | Buffer, contentType = 'application/json') =>
    send(http, `${server.baseUrl}/v1/people/er/E-1001/notes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writerToken}`, accept: 'application/json', 'content-type': contentType },
      body,
    });

  void test('bodies over the 64 KiB limit: token endpoint invalid_request (with and without Content-Length), gateway 000-2120', async () => {
    const big = `grant_type=client_credentials&pad=${'a'.repeat(70 * 1024)}`;
    const r1 = await tokenRequest(big);
    assert.equal(assertTokenError(r1, 'Content-Length body').error_description, 'The request body is too large.');
    const chunked = await rawExchange(port, [
      `POST ${US_TOKEN} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n`,
      ...Array.from({ length: 9 }, () => `2000\r\n${'a'.repeat(0x2000)}\r\n`),
      '0\r\n\r\n',
    ]);
    assertTokenError(chunked, 'chunked body');
    const claimed = await rawExchange(port, [
      `POST ${US_TOKEN} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1073741824\r\n\r\ngrant_type=`,
    ]);
    // The body never comes and this server's timeouts are far away: the answer is the refusal itself.
    assertTokenError(claimed, 'a Content-Length of 1 GiB (refused before the body)');
    const r2 = await notes(JSON.stringify({ text: 'x'.repeat(70 * 1024) }));
    assert.equal(r2.status, 400);
    assertGatewayError(r2, 'note body', ['000-2120']);
  });

  void test('a header block over the size limit (16 KiB): 400 000-1000 in JSON, connection closed', async () => {
    for (const [what, head] of [
      ['one large header', `X-Big: ${'a'.repeat(20_000)}\r\n`],
      ['thousands of headers', Array.from({ length: 3000 }, (_, i) => `X-H${i}: v\r\n`).join('')],
      ['a huge request line', ''],
    ] as const) {
      const target =
        what === 'a huge request line' ? `/v1/people/search?lastName=${'a'.repeat(20_000)}` : '/v1/people/er/E-1001';
      const r = await rawExchange(port, [`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${head}\r\n`]);
      assert.equal(r.status, 400, `${what}: ${r.raw.slice(0, 200)}`);
      assert.match(r.raw, /\r\ncontent-type: application\/json; charset=utf-8\r\n/i, what);
      assertGatewayError(r, what, ['000-1000']);
      assert.ok(r.closed, `${what}: closed (by the refusal: this server's timeouts are far away)`);
    }
  });

  void test(`slow headers (slowloris): cut at --headers-timeout (${HEADERS_TIMEOUT_S} s) with 400 000-1000`, async () => {
    const stalled = await rawExchange(timeoutPort, [`POST ${US_TOKEN} HTTP/1.1\r\nHost: 127.0.0.1\r\n`], CUT_NET_MS);
    const dribbled = await rawExchange(
      timeoutPort,
      [
        `POST ${US_TOKEN} HTTP/1.1\r\nHost: 127.0.0.1\r\n`,
        ...Array.from({ length: 30 }, () => [{ pauseMs: 50 }, 'X']).flat(),
      ],
      CUT_NET_MS,
    );
    for (const [what, r] of [
      ['stalled', stalled],
      ['one byte every 50 ms', dribbled],
    ] as const) {
      assert.equal(r.status, 400, `${what}: ${r.raw}`);
      assertGatewayError(r, what, ['000-1000']);
      assert.ok(r.closed, `${what}: the connection is closed`);
      // Not before the timeout; and well before the default one (a busy machine may cut it late).
      assert.ok(r.ms >= HEADERS_TIMEOUT_S * 1000 - 50 && r.ms < CUT_NET_MS, `${what}: after ${r.ms} ms`);
    }
  });

  void test(`a slow body: cut at --request-timeout (${REQUEST_TIMEOUT_S} s) with 400 000-1000`, async () => {
    for (const path of [US_TOKEN, '/v1/people/er/E-1001/notes']) {
      const r = await rawExchange(
        timeoutPort,
        [
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${timeoutWriterToken}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"text":`,
        ],
        CUT_NET_MS,
      );
      assert.equal(r.status, 400, `${path}: ${r.raw}`);
      assertGatewayError(r, path, ['000-1000']);
      assert.ok(r.closed, `${path}: closed`);
      assert.ok(
        r.ms >= REQUEST_TIMEOUT_S * 1000 - 50 && r.ms < CUT_NET_MS,
        `${path}: after ${r.ms} ms (default ${DEFAULT_REQUEST_TIMEOUT_S} s)`,
      );
    }
  });

  void test('invalid UTF-8: in a form value (escaped and raw), in the path, in a note, in a bearer token', async () => {
    const escaped = await tokenRequest('grant_type=client_credentials&client_id=%FF%FEus-cc-client&client_secret=x');
    assert.equal(assertTokenError(escaped, 'escaped').error, 'invalid_request');
    const raw = await tokenRequest(
      Buffer.concat([Buffer.from('grant_type=client_credentials&client_id='), Buffer.from([0xc3, 0x28, 0xa0, 0xa1])]),
    );
    assert.equal(assertTokenError(raw, 'raw bytes').error, 'invalid_request');
    const path = await rawExchange(port, [
      Buffer.concat([
        Buffer.from('GET /v1/people/er/E-'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from(' HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'),
      ]),
    ]);
    assert.ok(path.status === 400, path.raw);
    assertGatewayError(path, 'raw bytes in the path', ['000-1000', '000-1010']);
    const escapedPath = await send(http, `${server.baseUrl}/v1/people/er/%FF%FE`, {
      headers: { authorization: `Bearer ${writerToken}` },
    });
    assertGatewayError(escapedPath, 'escaped invalid UTF-8 in the path', ['000-1010']);
    const note = await notes(Buffer.from([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
    assertGatewayError(note, 'a note that is not UTF-8', ['000-2120']);
    const bearer = await rawExchange(port, [
      Buffer.concat([
        Buffer.from('GET /v1/people/er/E-1001 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer '),
        Buffer.from([0xff, 0xfe, 0x80]),
        Buffer.from('\r\n\r\n'),
      ]),
    ]);
    assertGatewayError(bearer, 'a bearer credential of bytes', ['000-1205', '000-1202', '000-1000']);
  });

  void test('thousands of parameters: form (distinct and repeated), query', async () => {
    const many = `${new URLSearchParams(cc).toString()}&${Array.from({ length: 5000 }, (_, i) => `p${i}=${i}`).join('&')}`;
    const r1 = await costed(() => tokenRequest(many));
    assert.ok(r1.costMs < CPU_BUDGET_MS, `5000 form parameters: ${r1.cost}`);
    assert.equal(r1.status, 200, `unknown parameters are ignored (RFC 6749 §3.2): ${r1.body.slice(0, 200)}`);
    const repeated = await tokenRequest(`${new URLSearchParams(cc).toString()}${'&scope=x'.repeat(5000)}`);
    assert.equal(assertTokenError(repeated, 'a repeated parameter').error, 'invalid_request');
    const query = await costed(() =>
      send(
        http,
        `${server.baseUrl}/v1/people/search?lastName=Lovelace&${Array.from({ length: 1500 }, (_, i) => `q${i}=${i}`).join('&')}`,
        { headers: { authorization: `Bearer ${writerToken}`, accept: 'application/json' } },
      ),
    );
    assert.ok(query.costMs < CPU_BUDGET_MS, `1500 query parameters: ${query.cost}`);
    assertClean(query.body, 'query');
    assert.ok(
      query.status === 200 || /^000-21\d\d$/.test(String(query.json?.code)),
      `query: ${query.status} ${query.body.slice(0, 200)}`,
    );
  });

  void test('deep bodies: nested JSON arrays and objects (60 KB), nested form names', async () => {
    const depth = 30_000;
    for (const [what, body] of [
      ['nested arrays', `${'['.repeat(depth)}${']'.repeat(depth)}`],
      ['nested objects', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`],
      ['nested objects inside a note', `{"text":"x","extra":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`],
    ] as const) {
      const r = await costed(() => notes(body));
      assert.ok(r.costMs < CPU_BUDGET_MS, `${what}: ${r.cost}`);
      assert.ok(r.status === 400 || r.status === 201, `${what}: ${r.status} ${r.body.slice(0, 200)}`);
      if (r.status === 400) assertGatewayError(r, what, ['000-2120', '000-2121', '000-2122']);
    }
    const r = await tokenRequest(`${new URLSearchParams(cc).toString()}&${'a['.repeat(5000)}${']'.repeat(5000)}=1`);
    assert.equal(r.status, 200, 'a deeply bracketed name is just an unknown parameter');
  });

  void test('binary bodies: random bytes as a form, as octet-stream, as a note; NUL in a header', async () => {
    const bytes = randomBytes(8192);
    assertTokenError(await tokenRequest(bytes), 'random bytes as a form');
    assertTokenError(await tokenRequest(bytes, { 'content-type': 'application/octet-stream' }), 'octet-stream');
    const note = await notes(bytes);
    assertGatewayError(note, 'random bytes as a note', ['000-2120']);
    const octet = await notes(bytes, 'application/octet-stream');
    assertGatewayError(octet, 'an octet-stream note', ['000-1005']);
    const nul = await rawExchange(port, [
      Buffer.concat([
        Buffer.from('GET /v1/people/er/E-1001 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a'),
        Buffer.from([0]),
        Buffer.from('b\r\n\r\n'),
      ]),
    ]);
    assert.equal(nul.status, 400, nul.raw);
    assertGatewayError(nul, 'NUL in a header value', ['000-1000']);
  });

  void test('under all of that at once, other clients are served', async () => {
    // Twenty clients hold half a request (headers not finished) until the others are answered,
    // twenty send bodies over the limit, twenty are normal: the normal ones are answered while
    // the half requests are still held (an order of events, not a time), then the held ones finish
    // their requests and are served too.
    let releaseHeld!: () => void;
    const held = new Promise<void>((resolve) => {
      releaseHeld = resolve;
    });
    let heldAnswered = 0;
    const body = new URLSearchParams(cc).toString();
    const slow = Array.from({ length: 20 }, () =>
      rawExchange(
        port,
        [
          `POST ${US_TOKEN} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\n`,
          { until: held },
          `Content-Length: ${body.length}\r\n\r\n${body}`,
        ],
        HOLD_NET_MS,
      ).finally(() => {
        heldAnswered += 1;
      }),
    );
    const big = Array.from({ length: 20 }, () => tokenRequest(`grant_type=x&pad=${'a'.repeat(70 * 1024)}`));
    const normal = await Promise.all(
      Array.from({ length: 20 }, () => send(http, `${server.baseUrl}${US_TOKEN}`, form(cc))),
    );
    for (const r of normal) assert.equal(r.status, 200);
    for (const r of await Promise.all(big))
      assert.equal(assertTokenError(r, 'big').error_description, 'The request body is too large.');
    assert.equal(heldAnswered, 0, 'the others were answered while the half requests were held');
    releaseHeld();
    for (const r of await Promise.all(slow)) {
      assert.equal(r.status, 200, `a held request, finished: ${r.raw.slice(0, 300)}`);
      assertClean(r.body, 'held');
    }
  });
});
