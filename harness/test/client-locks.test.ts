// Self-diagnosis during the run, against a tiny local token endpoint: the first 429 (or
// invalid_client) a configured client gets in a check's setup locks that client for the rest of
// the run — across workers (two token clients with their own lock stores over one directory stand
// for two Playwright worker processes) — and its later checks are BLOCKED at once, no request sent.
// Also: `obtain` requires only what callers need (an extra `scope` does not block), and a token it
// cannot get BLOCKs the check by the grant's issuance requirement.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { TestInfo } from '@playwright/test';
import { Agent } from 'undici';
import { TokenClient } from '../../fixtures/clients/token-client.ts';
import { Transcript } from '../../fixtures/http/exchange.ts';
import { HttpSender } from '../../fixtures/http/sender.ts';
import type { Target } from '../../fixtures/target.ts';
import { ClientLocks, lockSummary } from '../playwright/client-locks.ts';
import { Redactor } from '../redaction/redact.ts';

/** How the fake endpoint answers each client id (form field client_id). */
const answers: Record<string, { status: number; headers?: Record<string, string>; body: unknown }> = {
  'locked-client': { status: 429, headers: { 'retry-after': '900' }, body: { error: 'too_many_requests' } },
  'wrong-secret-client': { status: 401, body: { error: 'invalid_client' } },
  'scope-client': { status: 200, body: { access_token: 'a'.repeat(40), token_type: 'Bearer', expires_in: 3600, scope: 'read' } },
  'no-token-client': { status: 200, body: { token_type: 'Bearer', expires_in: 3600 } },
  'password-client': { status: 200, body: { access_token: 'b'.repeat(40), token_type: 'Bearer', expires_in: 3600, scope: 'email' } },
};
const received: string[] = [];
let server: Server;
let base: string;

async function form(req: IncomingMessage): Promise<URLSearchParams> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return new URLSearchParams(text);
}

before(async () => {
  server = createServer((req, res) => {
    void form(req).then((f) => {
      const id = f.get('client_id') ?? '';
      received.push(id);
      const a = answers[id] ?? { status: 400, body: { error: 'invalid_request' } };
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

class Skipped extends Error {}
interface FakeTestInfo { annotations: { type: string; description?: string }[]; titlePath: string[]; skip: (condition: boolean, reason: string) => void }
const testInfo = (title: string): FakeTestInfo => ({
  annotations: [], titlePath: ['specs/x.spec.ts', 'area', title],
  skip: (condition, reason) => {
    if (condition) throw new Skipped(reason);
  },
});

/** Profile client names map to the fake endpoint's client ids. */
const clientIds: Record<string, string> = { usClient: 'locked-client', usClient2: 'scope-client', usCcOnlyClient: 'wrong-secret-client', usUnregisteredClient: 'no-token-client', usPasswordClient: 'password-client' };
const target = () => ({
  authUrl: () => base, tokenUrl: () => `${base}/token`, local: true,
  client: (name: string) => (clientIds[name] ? { clientId: clientIds[name], clientSecret: `secret-of-${name}` } : undefined),
  user: () => ({ username: 'tenant\\user', password: 'pw' }),
  profile: { capabilities: { supportsBasic: false } },
}) as unknown as Target;

/** A token client as one Playwright worker has it: its own lock store over the run's directory. */
function worker(locksDir: string, info: FakeTestInfo): TokenClient {
  const redactor = new Redactor();
  return new TokenClient(target(), new HttpSender(new Agent(), new Transcript(redactor), redactor, true), info as unknown as TestInfo, (t) => redactor.redact(t), new ClientLocks(locksDir));
}

const blockedOf = (info: FakeTestInfo) => ({
  reason: info.annotations.find((a) => a.type === 'blocked')?.description,
  by: info.annotations.filter((a) => a.type === 'blocked-by').map((a) => a.description),
});

void describe('a client the target refuses in setup is not used again in the run', () => {
  const locksDir = join(mkdtempSync(join(tmpdir(), 'tc-locks-')), 'client-locks');

  void test('the first 429 locks the client (across workers): later checks BLOCKED at once with the Retry-After, no request sent', async () => {
    const first = testInfo('first check');
    await assert.rejects(worker(locksDir, first).obtain.clientCredentials(), Skipped);
    assert.deepEqual(received.filter((id) => id === 'locked-client'), ['locked-client'], 'one request');
    assert.match(blockedOf(first).reason ?? '', /^setup: client usClient at US is not used again in this run: the target locked it out \(HTTP 429, Retry-After 900 s\) in the setup of "area › first check" — got HTTP 429/);
    assert.deepEqual(blockedOf(first).by, [], 'a refused client blocks no requirement of its own');
    assert.equal(readdirSync(locksDir).filter((n) => n.endsWith('.json')).length, 1, 'one lock file');
    assert.equal(readdirSync(locksDir).some((n) => n.endsWith('.tmp')), false, 'written atomically (no temporary file left)');

    // Another worker process: its own store, the same directory.
    for (const call of [(c: TokenClient) => c.obtain.clientCredentials(), (c: TokenClient) => c.clientCredentials({ client: 'usClient' }), (c: TokenClient) => c.obtain.password({ client: 'usClient' })]) {
      const later = testInfo('later check');
      await assert.rejects(call(worker(locksDir, later)), Skipped);
      assert.match(blockedOf(later).reason ?? '', /Retry-After 900 s/);
    }
    assert.equal(received.filter((id) => id === 'locked-client').length, 1, 'no further request for the locked client');

    // Explicit credentials (a check's own deliberate request) are not a profile client: still sent.
    await worker(locksDir, testInfo('explicit')).clientCredentials({ client: { clientId: 'locked-client', clientSecret: 'x' } });
    assert.equal(received.filter((id) => id === 'locked-client').length, 2);
  });

  void test('invalid_client for a configured client locks it too; other clients go on', async () => {
    const info = testInfo('refused');
    await assert.rejects(worker(locksDir, info).obtain.clientCredentials({ client: 'usCcOnlyClient' }), Skipped);
    assert.match(blockedOf(info).reason ?? '', /the target refused its configured credentials \(invalid_client\)/);
    const again = testInfo('refused again');
    await assert.rejects(worker(locksDir, again).obtain.clientCredentials({ client: 'usCcOnlyClient' }), Skipped);
    assert.equal(received.filter((id) => id === 'wrong-secret-client').length, 1);
    const summary = lockSummary(new ClientLocks(locksDir).all()) ?? '';
    assert.match(summary, /usClient at US \(HTTP 429, Retry-After 900 s\)/);
    assert.match(summary, /usCcOnlyClient at US \(invalid_client\)/);
  });

  void test('without a shared directory (a direct playwright run) nothing is written', () => {
    const locks = new ClientLocks(undefined);
    locks.lock({ key: 'us:usClient', client: 'usClient', region: 'us', kind: '429', response: 'HTTP 429', check: 'c', at: 'now' });
    assert.equal(locks.find(['us:usClient'])?.client, 'usClient');
    assert.equal(existsSync(join(process.cwd(), 'client-locks')), false);
  });
});

void describe('obtain requires only what callers need', () => {
  const locksDir = join(mkdtempSync(join(tmpdir(), 'tc-locks-')), 'client-locks');

  void test('a token response with an extra scope is a token: no block, no fail (the response-format checks judge the shape)', async () => {
    const info = testInfo('extra scope');
    const token = await worker(locksDir, info).obtain.clientCredentials({ client: 'usClient2' });
    assert.equal(token.access_token, 'a'.repeat(40));
    assert.deepEqual(info.annotations, []);
  });

  void test('no access_token: BLOCKED by the grant\'s issuance requirement, the response described', async () => {
    const info = testInfo('no token');
    await assert.rejects(worker(locksDir, info).obtain.clientCredentials({ client: 'usUnregisteredClient' }), Skipped);
    assert.match(blockedOf(info).reason ?? '', /^setup: a client_credentials token is issued at US — got HTTP 200 application\/json/);
    assert.deepEqual(blockedOf(info).by, ['GRANT-CC-001']);
    assert.equal(existsSync(locksDir), false, 'a malformed answer locks nothing');
  });

  void test('a password grant without a refresh_token: BLOCKED by GRANT-PW-001', async () => {
    const info = testInfo('no refresh token');
    await assert.rejects(worker(locksDir, info).obtain.password(), Skipped);
    assert.match(blockedOf(info).reason ?? '', /^setup: a password token is issued at US with no string refresh_token — got HTTP 200/);
    assert.deepEqual(blockedOf(info).by, ['GRANT-PW-001']);
  });
});
