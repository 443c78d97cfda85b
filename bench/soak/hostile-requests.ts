// Hostile HTTP/1.1 requests for the reference server, generated with fast-check along the gateway's
// decision order (reference-server/src/gateway/README.md) and the token endpoint's form
// (schemas/): framing, Host, request-target, URI, version and path, header syntax, credentials,
// request syntax and bodies, each step with values that pass it and values that break it; plus the
// token endpoints' forms (grant types, client ids of every length and charset, Basic headers) and
// what Node handles before any route (Expect, CONNECT, odd methods, oversized fields). Each request
// is whole and ends with `Connection: close`, so that the server's answer is the only thing to wait
// for: no answer is a hang. `judge` says what is wrong with an answer.
import { connect } from 'node:net';
import fc from 'fast-check';

export const US_TOKEN = '/api/v1/auth/oauth2/token';
export const EU_TOKEN = '/oauth2/default/v1/token';

export interface HostileRequest {
  /** The bytes to send. */
  bytes: Buffer;
  /** For the report: method and target. */
  label: string;
  method: string;
}

export interface Credentials {
  /** A valid access token, so that some requests get past authentication to the request syntax. */
  bearer: string;
  clientId: string;
  clientSecret: string;
}

const junkChar = fc.constantFrom(
  '%',
  '%zz',
  '%00',
  '%FF',
  '%2e%2e',
  '..',
  '.',
  '//',
  ';',
  '"',
  '<',
  '{',
  ' ',
  '\t',
  'é',
  '\u0001',
  '~',
  '#',
  '?',
  '&',
  '=',
  '+',
  '\\',
);
const junk = (max: number) =>
  fc.array(fc.oneof(fc.string({ maxLength: 6 }), junkChar), { maxLength: max }).map((parts) => parts.join(''));
const pathSafe = (s: string) => s.replace(/[\s\r\n]/g, '');
const headerSafe = (s: string) => s.replace(/[\r\n]/g, '');

const method = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS') },
  { weight: 1, arbitrary: fc.constantFrom('PROPFIND', 'TRACE', 'CONNECT', 'FOO', 'get', 'M-SEARCH') },
);

const identifier = fc.oneof(
  fc.constantFrom('E-1001', 'E-1002', 'E-9999'),
  junk(4).map(pathSafe),
  fc.string({ minLength: 100, maxLength: 3000 }).map((s) => encodeURIComponent(s)),
);
const query = fc.oneof(
  fc.constant(''),
  fc
    .record({
      lastName: fc.oneof(fc.constantFrom('Lovelace', 'Hopper', ''), junk(3)),
      limit: fc.oneof(fc.constantFrom('1', '20', '100', '0', '101', '-1', '1e2', 'x'), junk(2)),
    })
    .map(({ lastName, limit }) => `?lastName=${encodeURIComponent(lastName)}&limit=${encodeURIComponent(limit)}`),
  junk(5).map((s) => `?${pathSafe(s)}`),
);
const target = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(identifier, fc.constantFrom('', '/notes', '/history', '/notes/', '/x'))
      .map(([id, tail]) => `/v1/people/er/${id}${tail}`),
  },
  { weight: 2, arbitrary: query.map((q) => `/v1/people/search${q}`) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(US_TOKEN, EU_TOKEN, `${US_TOKEN}?client_secret=x`, '/.well-known/jwks.json'),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom(
          '/v0/',
          '/v2/',
          '/V1/',
          '/',
          '//v1/',
          '/v1',
          '/v1/people',
          '/api/',
          '/__test/clock',
          '/__test/faults',
        ),
        junk(4),
      )
      .map(([p, j]) => `${p}${pathSafe(j)}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '*',
      '127.0.0.1:443',
      'http://127.0.0.1/v1/people/er/E-1001',
      'http://evil.example/v1/people/er/E-1001',
      'ftp://127.0.0.1/v1/x',
      'https://localhost/v1/people/search?lastName=Hopper',
    ),
  },
);

const host = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(['127.0.0.1'], ['localhost'], ['[::1]']) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      [],
      ['evil.example'],
      ['127.0.0.1', '127.0.0.1'],
      [''],
      ['127.0.0.1:99999'],
      ['[::1'],
      ['a b'],
    ),
  },
);

const jwtLike = fc
  .tuple(fc.base64String({ maxLength: 40 }), fc.base64String({ maxLength: 80 }), fc.base64String({ maxLength: 40 }))
  .map((parts) => parts.map((p) => p.replace(/=/g, '').replace(/\+/g, '-').replace(/\//g, '_')).join('.'));
const authorization = (c: Credentials): fc.Arbitrary<readonly string[]> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant<readonly string[]>([]) },
    { weight: 4, arbitrary: fc.constant<readonly string[]>([`Bearer ${c.bearer}`]) },
    { weight: 2, arbitrary: fc.oneof(jwtLike, junk(4).map(headerSafe)).map((t): readonly string[] => [`Bearer ${t}`]) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.oneof(
            fc.constant(c.clientId),
            fc.string({ maxLength: 200 }),
            fc.string({ minLength: 1000, maxLength: 8000 }),
          ),
          fc.oneof(fc.constant(c.clientSecret), fc.string({ maxLength: 40 })),
        )
        .map(([id, secret]): readonly string[] => [
          `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
        ]),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<readonly string[]>(
        ['Basic !!!'],
        ['Basic'],
        ['Digest x'],
        ['bearer'],
        [`Bearer ${c.bearer}`, `Bearer ${c.bearer}`],
        ['Bearer a.b.c d'],
      ),
    },
  );

const contentType = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'application/json',
      'application/x-www-form-urlencoded',
      'application/json; charset=utf-8',
      'application/x-www-form-urlencoded; charset=UTF-8',
    ),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/',
      ';',
      '/',
      '/json',
      '',
      'a, b',
      'word',
      'text/plain',
      'application/json; charset=latin1',
      'multipart/form-data; boundary=x',
      'application/json;;',
      'APPLICATION/JSON',
    ),
  },
  { weight: 1, arbitrary: junk(4).map(headerSafe) },
);

const formBody = (c: Credentials) =>
  fc
    .record(
      {
        grant_type: fc.oneof(
          fc.constantFrom('client_credentials', 'password', 'refresh_token', 'authorization_code', ''),
          fc.string({ maxLength: 20 }),
        ),
        client_id: fc.oneof(
          fc.constant(c.clientId),
          fc.string({ maxLength: 40 }),
          fc.string({ minLength: 129, maxLength: 60_000 }),
          fc.constantFrom('ghost-client', 'a b', 'ü'),
        ),
        client_secret: fc.oneof(fc.constant(c.clientSecret), fc.string({ maxLength: 40 })),
        username: fc.oneof(fc.constantFrom('acme\\alice', 'acme\\nobody', 'alice', ''), fc.string({ maxLength: 300 })),
        password: fc.string({ maxLength: 40 }),
        refresh_token: fc.base64String({ maxLength: 60 }),
        scope: fc.oneof(fc.constantFrom('people.read', 'x y', ''), fc.string({ maxLength: 20 })),
      },
      { requiredKeys: [] },
    )
    .map((params) => new URLSearchParams(params as Record<string, string>).toString());

const body = (c: Credentials) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant<Buffer | undefined>(undefined) },
    { weight: 4, arbitrary: formBody(c).map((s) => Buffer.from(s)) },
    {
      weight: 3,
      arbitrary: fc
        .oneof(
          fc.json({ maxDepth: 3 }),
          fc
            .record({ text: fc.oneof(fc.string({ maxLength: 30 }), fc.string({ minLength: 1990, maxLength: 2010 })) })
            .map((o) => JSON.stringify(o)),
        )
        .map((s) => Buffer.from(s)),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 2000 }).map((a) => Buffer.from(a)) },
    { weight: 1, arbitrary: fc.integer({ min: 60 * 1024, max: 200 * 1024 }).map((n) => Buffer.alloc(n, 0x61)) },
  );

const framing = fc.oneof(
  { weight: 12, arbitrary: fc.constant('length') },
  { weight: 2, arbitrary: fc.constant('chunked') },
  { weight: 1, arbitrary: fc.constantFrom('double-length', 'length-and-chunked', 'bad-chunk') },
);
const extraHeaders = fc.array(
  fc.oneof(
    fc.constantFrom(
      'Expect: 100-continue',
      'Expect: something-else',
      'Accept: application/json',
      'Accept: text/html',
      'Accept: application/json;q=0',
      'Accept: ,,,',
      'X-Forwarded-For: 203.0.113.9',
      'Transfer-Encoding: gzip',
    ),
    fc.string({ minLength: 1, maxLength: 2000 }).map((v) => `X-Junk: ${headerSafe(v)}`),
  ),
  { maxLength: 3 },
);

export function hostileRequest(c: Credentials): fc.Arbitrary<HostileRequest> {
  return fc
    .record({
      method,
      target,
      host,
      auth: authorization(c),
      type: fc.option(contentType),
      body: body(c),
      framing,
      extra: extraHeaders,
    })
    .map(({ method: m, target: t, host: h, auth, type, body: bodyBytes, framing: f, extra }) => {
      // Mostly no body where the method takes none: a body there is refused at step 1 (000-1000),
      // which would hide every later step.
      const b =
        (m === 'GET' || m === 'HEAD') && bodyBytes !== undefined && bodyBytes.length % 8 !== 0 ? undefined : bodyBytes;
      const lines = [`${m} ${t} HTTP/1.1`, ...h.map((v) => `Host: ${v}`), ...auth.map((v) => `Authorization: ${v}`)];
      if (type !== null) lines.push(`Content-Type: ${type}`);
      lines.push(...extra, 'Connection: close');
      let payload: Buffer = Buffer.alloc(0);
      if (b !== undefined) {
        if (f === 'chunked') {
          lines.push('Transfer-Encoding: chunked');
          payload = Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n0\r\n\r\n')]);
        } else if (f === 'double-length') {
          lines.push(`Content-Length: ${b.length}`, `Content-Length: ${b.length + 1}`);
          payload = b;
        } else if (f === 'length-and-chunked') {
          lines.push(`Content-Length: ${b.length}`, 'Transfer-Encoding: chunked');
          payload = b;
        } else if (f === 'bad-chunk') {
          lines.push('Transfer-Encoding: chunked');
          payload = Buffer.concat([Buffer.from('zz\r\n'), b]);
        } else {
          lines.push(`Content-Length: ${b.length}`);
          payload = b;
        }
      }
      return {
        bytes: Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload]),
        label: `${m} ${t.slice(0, 80)}`,
        method: m,
      };
    });
}

export interface Answer {
  status: number | undefined;
  headers: Map<string, string>;
  body: Buffer;
  /** No answer (or no close) within the wait. */
  hung: boolean;
}

export type Verdict = 'hang' | '5xx' | 'non-JSON' | 'documented-5xx' | undefined;

/**
 * What is wrong with an answer: a 5xx, a body that is not JSON (or not declared JSON), a hang;
 * undefined when it is fine. The one documented 5xx a valid token can reach without test controls
 * is `000-5004` for `/history` (the backend does not implement it): counted apart.
 */
export function judge(request: HostileRequest, answer: Answer): Verdict {
  if (answer.hung || answer.status === undefined) return 'hang';
  if (answer.status >= 500) {
    const documented = answer.status === 501 || answer.status === 502 || answer.status === 503 || answer.status === 504;
    return documented && request.label.includes('/history') && answer.body.toString('utf8').includes('"000-5004"')
      ? 'documented-5xx'
      : '5xx';
  }
  if (request.method === 'HEAD' || answer.status === 204 || answer.status === 304) return undefined;
  if (!/^application\/json/i.test(answer.headers.get('content-type') ?? '')) return 'non-JSON';
  try {
    JSON.parse(answer.body.toString('utf8'));
  } catch {
    return 'non-JSON';
  }
  return undefined;
}

/** Sends one request on its own connection and reads the answer until the server closes it. */
export function exchange(port: number, request: HostileRequest, waitMs: number): Promise<Answer> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (hung: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parseAnswer(Buffer.concat(chunks)), hung });
    };
    const timer = setTimeout(() => finish(true), waitMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => finish(false));
    // A reset after the answer (the server stopped reading a refused body) is an ordinary end.
    socket.on('error', () => finish(false));
    socket.on('connect', () => socket.end(request.bytes));
  });
}

function parseAnswer(raw: Buffer): Omit<Answer, 'hung'> {
  let text = raw.toString('latin1');
  // Skip interim answers (100 Continue).
  while (/^HTTP\/1\.1 1\d\d /.test(text) && text.includes('\r\n\r\n')) text = text.slice(text.indexOf('\r\n\r\n') + 4);
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return { status: undefined, headers: new Map(), body: Buffer.alloc(0) };
  const head = text.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head[0] ?? '')?.[1] ?? Number.NaN);
  const headers = new Map(
    head
      .slice(1)
      .map(
        (line) =>
          [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()] as [
            string,
            string,
          ],
      ),
  );
  let body: Buffer = Buffer.from(text.slice(end + 4), 'latin1');
  const length = headers.get('content-length');
  if (length !== undefined) body = body.subarray(0, Number(length));
  else if (headers.get('transfer-encoding')?.toLowerCase() === 'chunked') body = dechunk(body);
  return { status: Number.isNaN(status) ? undefined : status, headers, body };
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!(size > 0)) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

export interface FuzzSummary {
  requests: number;
  byVerdict: Record<'hang' | '5xx' | 'non-JSON' | 'documented-5xx' | 'ok', number>;
  byStatus: Record<string, number>;
  /** Answers by the gateway's `code` or the token endpoint's `error` (what the decision order reached). */
  byCode: Record<string, number>;
  /** Up to 10 failing requests, for the report. */
  examples: string[];
}

/** Runs `count` generated requests (seeded, so a run can be repeated) with `concurrency` connections. */
export async function fuzz(
  port: number,
  credentials: Credentials,
  options: { count: number; concurrency: number; seed: number; waitMs: number },
): Promise<FuzzSummary> {
  const requests = fc.sample(hostileRequest(credentials), { numRuns: options.count, seed: options.seed });
  const summary: FuzzSummary = {
    requests: 0,
    byVerdict: { hang: 0, '5xx': 0, 'non-JSON': 0, 'documented-5xx': 0, ok: 0 },
    byStatus: {},
    byCode: {},
    examples: [],
  };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < requests.length) {
      const request = requests[next++]!;
      const answer = await exchange(port, request, options.waitMs);
      const verdict = judge(request, answer);
      summary.requests += 1;
      summary.byVerdict[verdict ?? 'ok'] += 1;
      summary.byStatus[String(answer.status ?? 'none')] = (summary.byStatus[String(answer.status ?? 'none')] ?? 0) + 1;
      const code = codeOf(answer.body);
      summary.byCode[code] = (summary.byCode[code] ?? 0) + 1;
      if (verdict !== undefined && verdict !== 'documented-5xx' && summary.examples.length < 10) {
        summary.examples.push(
          `${verdict}: ${request.label} → ${answer.status ?? 'no answer'} ${answer.body.toString('utf8').slice(0, 120)}`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, () => worker()));
  return summary;
}

/** The failures of a summary: every hang, undocumented 5xx and non-JSON answer. */
export const failures = (s: FuzzSummary): number => s.byVerdict.hang + s.byVerdict['5xx'] + s.byVerdict['non-JSON'];

function codeOf(body: Buffer): string {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { code?: unknown; error?: unknown };
    const code = parsed.code ?? parsed.error;
    return typeof code === 'string' ? code : 'other';
  } catch {
    return 'none';
  }
}
