// The fault-injecting proxy: transparent without a fault, and each kind of rewrite does what it says.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Agent, request } from 'undici';
import { requestKind, startProxy, type ProxyFault, type RunningProxy } from '../proxy.ts';
import { tokenResponseFaults } from '../faults/token-responses.ts';
import { tokenRequestFaults } from '../faults/token-requests.ts';
import { lifecycleFaults } from '../faults/lifecycle.ts';
import { faults } from '../faults/index.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['rawHeaders'];
  body: string;
}

/** A plain-HTTP upstream that echoes what it received and answers token-like JSON. */
let upstream: Server;
let upstreamUrl: string;
const seen: Seen[] = [];
let tokenCounter = 0;

function answer(req: IncomingMessage, res: ServerResponse, body: string) {
  seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.rawHeaders, body });
  if (req.url?.startsWith('/api/v1/auth/oauth2/token')) {
    if (!body.includes('grant_type=')) {
      res.writeHead(400, { 'content-type': 'application/json', 'cache-control': 'no-store', pragma: 'no-cache' });
      res.end(JSON.stringify({ error: 'invalid_request', error_description: 'grant_type missing' }));
      return;
    }
    tokenCounter += 1;
    res.writeHead(200, {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      pragma: 'no-cache',
      'x-multi': ['a', 'b'],
    });
    res.end(JSON.stringify({ access_token: `at-${tokenCounter}`, token_type: 'Bearer', expires_in: 3600 }));
    return;
  }
  if (req.url === '/__test/clock') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ epochMs: 1000, now: new Date(1000).toISOString() }));
    return;
  }
  res.writeHead(418, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' });
  res.end(`echo ${req.method} ${req.url} ${body}`);
}

void before(async () => {
  upstream = createServer({ requireHostHeader: false }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => answer(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
void after(() => new Promise<void>((r) => upstream.close(() => r())));

async function withProxy<T>(
  fault: ProxyFault | undefined,
  fn: (p: RunningProxy, agent: Agent) => Promise<T>,
): Promise<T> {
  const proxy = await startProxy({ upstream: upstreamUrl, ...(fault ? { fault } : {}) });
  const agent = new Agent({ connect: { ca: proxy.caPem } });
  try {
    return await fn(proxy, agent);
  } finally {
    await agent.close();
    await proxy.close();
  }
}

const form = { 'content-type': 'application/x-www-form-urlencoded' };
const tokenPath = '/api/v1/auth/oauth2/token';

void describe('self-validation proxy', () => {
  void test('classifies requests by path', () => {
    assert.equal(requestKind('/api/v1/auth/oauth2/token'), 'token-us');
    assert.equal(requestKind('/oauth2/default/v1/token'), 'token-eu');
    assert.equal(requestKind('/api/v2/auth/oauth2/token'), 'token-other-version');
    assert.equal(requestKind('/__test/clock'), 'clock');
    assert.equal(requestKind('/v1/people/er/E-1'), 'gateway');
  });

  void test('without a fault it is transparent: method, path, query, body, status, headers (repeated ones too) and TLS with its own CA', async () => {
    await withProxy(undefined, async (proxy, agent) => {
      seen.length = 0;
      const res = await request(`${proxy.url}/v1/people/er/E-1?x=%zz&y=1`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'x-a': 'b' },
        body: 'hello',
        dispatcher: agent,
      });
      assert.equal(res.statusCode, 418);
      assert.equal(res.headers['www-authenticate'], 'Bearer');
      assert.equal(await res.body.text(), 'echo POST /v1/people/er/E-1?x=%zz&y=1 hello');
      assert.equal(seen[0]?.url, '/v1/people/er/E-1?x=%zz&y=1');
      assert.ok(seen[0]?.headers.includes('x-a'));
      const tok = await request(`${proxy.url}${tokenPath}`, {
        method: 'POST',
        headers: form,
        body: 'grant_type=client_credentials',
        dispatcher: agent,
      });
      assert.deepEqual(tok.headers['x-multi'], ['a', 'b']);
      assert.equal(tok.headers['cache-control'], 'no-store');
      assert.equal(((await tok.body.json()) as { token_type: string }).token_type, 'Bearer');
    });
  });

  void test('keeps two Authorization headers as sent', async () => {
    await withProxy(undefined, async (proxy, agent) => {
      seen.length = 0;
      const res = await request(`${proxy.url}/v1/x`, {
        headers: ['authorization', 'Bearer a', 'authorization', 'Bearer b'],
        dispatcher: agent,
      });
      await res.body.dump();
      const auth = seen[0]!.headers.filter((_, i, a) => i % 2 === 0 && a[i]!.toLowerCase() === 'authorization');
      assert.equal(auth.length, 2);
    });
  });

  void test('a response rewrite (token_type "bearer") changes only successful token responses', async () => {
    const fault = tokenResponseFaults.find((f) => f.id === 'token-type-lowercase')!.create({ clients: {}, users: {} });
    await withProxy(fault, async (proxy, agent) => {
      const ok = await request(`${proxy.url}${tokenPath}`, {
        method: 'POST',
        headers: form,
        body: 'grant_type=client_credentials',
        dispatcher: agent,
      });
      assert.equal(((await ok.body.json()) as { token_type: string }).token_type, 'bearer');
      const other = await request(`${proxy.url}/v1/x`, { dispatcher: agent });
      assert.equal(other.statusCode, 418);
      await other.body.dump();
    });
  });

  void test('a header rewrite (no Cache-Control) removes the header', async () => {
    const fault = tokenResponseFaults.find((f) => f.id === 'no-cache-control')!.create({ clients: {}, users: {} });
    await withProxy(fault, async (proxy, agent) => {
      const ok = await request(`${proxy.url}${tokenPath}`, {
        method: 'POST',
        headers: form,
        body: 'grant_type=client_credentials',
        dispatcher: agent,
      });
      await ok.body.dump();
      assert.equal(ok.headers['cache-control'], undefined);
      assert.equal(ok.headers.pragma, 'no-cache');
    });
  });

  void test('a request rewrite (missing grant_type accepted) adds grant_type before forwarding', async () => {
    const fault = tokenRequestFaults
      .find((f) => f.id === 'missing-grant-type-accepted')!
      .create({ clients: {}, users: {} });
    await withProxy(fault, async (proxy, agent) => {
      const res = await request(`${proxy.url}${tokenPath}`, {
        method: 'POST',
        headers: form,
        body: 'client_id=c&client_secret=s',
        dispatcher: agent,
      });
      assert.equal(res.statusCode, 200);
      await res.body.dump();
    });
  });

  void test('a request rewrite (duplicates de-duplicated) keeps the first of each parameter', async () => {
    const fault = tokenRequestFaults.find((f) => f.id === 'duplicates-accepted')!.create({ clients: {}, users: {} });
    await withProxy(fault, async (proxy, agent) => {
      seen.length = 0;
      const res = await request(`${proxy.url}${tokenPath}`, {
        method: 'POST',
        headers: form,
        body: 'grant_type=client_credentials&grant_type=client_credentials&client_id=a',
        dispatcher: agent,
      });
      await res.body.dump();
      assert.equal(seen[0]?.body, 'grant_type=client_credentials&client_id=a');
    });
  });

  void test('the clock fault swallows an advance and answers the current time', async () => {
    const fault = lifecycleFaults.find((f) => f.id === 'clock-control-ignored')!.create({ clients: {}, users: {} });
    await withProxy(fault, async (proxy, agent) => {
      seen.length = 0;
      const res = await request(`${proxy.url}/__test/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"advanceSeconds":3600}',
        dispatcher: agent,
      });
      assert.equal(((await res.body.json()) as { epochMs: number }).epochMs, 1000);
      assert.equal(seen[0]?.method, 'GET');
    });
  });

  void test('the plain-HTTP fault listens on plain HTTP too and forwards there', async () => {
    const fault = faults.find((f) => f.id === 'plain-http-accepted')!.create({ clients: {}, users: {} });
    await withProxy(fault, async (proxy) => {
      assert.ok(proxy.plainUrl?.startsWith('http://'));
      const res = await request(`${proxy.plainUrl}${tokenPath}`, {
        method: 'POST',
        headers: form,
        body: 'grant_type=client_credentials',
      });
      assert.equal(res.statusCode, 200);
      await res.body.dump();
    });
  });

  void test('every fault of the catalogue names at least one known requirement and has a unique id', async () => {
    const { hasRequirement } = await import('../../requirements/index.ts');
    const ids = new Set<string>();
    for (const f of faults) {
      assert.ok(!ids.has(f.id), `duplicate fault id ${f.id}`);
      ids.add(f.id);
      assert.ok(f.breaks.length > 0, f.id);
      for (const id of [...f.breaks, ...(f.collateral?.ids ?? [])])
        assert.ok(hasRequirement(id), `${f.id}: unknown requirement ${id}`);
    }
  });
});
