// The shared secure context trusts what a per-connection `ca` option would trust (the system CAs plus
// the profile's CA), verifies certificates, honours a check's protocol settings, and is built once.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { generate } from 'selfsigned';
import { Agent, request } from 'undici';
import { trustingConnectOptions, trustingSecureContext } from '../tls/trust.ts';

let server: Server;
let cert: string;
let url: string;

before(async () => {
  const now = Date.now();
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - 60_000),
    notAfterDate: new Date(now + 86_400_000),
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  cert = pems.cert;
  server = createServer({ key: pems.private, cert, minVersion: 'TLSv1.3' }, (_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

after(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function get(agent: Agent): Promise<string> {
  try {
    const res = await request(url, { dispatcher: agent });
    return `${res.statusCode} ${await res.body.text()}`;
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
    return `refused ${e.code ?? e.cause?.code ?? e.name}`;
  } finally {
    await agent.close();
  }
}

void test('the profile CA is trusted, and nothing else is relaxed', async () => {
  assert.equal(await get(new Agent({ connect: trustingConnectOptions(cert, 3000) })), '200 ok');
  assert.match(
    await get(new Agent({ connect: trustingConnectOptions(undefined, 3000) })),
    /^refused .*SELF_SIGNED|^refused .*CERT/,
  );
  assert.equal(trustingConnectOptions(cert, 3000).rejectUnauthorized, true);
});

void test("a check's protocol settings reach the connection", async () => {
  assert.match(
    await get(new Agent({ connect: trustingConnectOptions(cert, 3000, { maxVersion: 'TLSv1.2' }) })),
    /^refused /,
  );
  assert.equal(
    await get(new Agent({ connect: trustingConnectOptions(cert, 3000, { minVersion: 'TLSv1.3' }) })),
    '200 ok',
  );
});

void test('one context per CA and settings, shared by every agent and connection', async () => {
  assert.equal(trustingSecureContext(cert), trustingSecureContext(cert));
  assert.notEqual(trustingSecureContext(cert), trustingSecureContext(cert, { maxVersion: 'TLSv1.2' }));
  assert.notEqual(trustingSecureContext(cert), trustingSecureContext(undefined));
  // Many connections at once (one per concurrent request) all verify against the shared context.
  const agent = new Agent({ connect: trustingConnectOptions(cert, 3000) });
  try {
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => (await request(url, { dispatcher: agent })).body.text()),
    );
    assert.deepEqual(new Set(answers), new Set(['ok']));
  } finally {
    await agent.close();
  }
});
