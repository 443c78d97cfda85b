// The recorder: forwards untouched (status, headers, bodies byte for byte, large ones streamed),
// keeps at most the body limit of each body in the record (with the full size), writes each
// exchange as it completes — so that a recorder killed with SIGKILL leaves every completed
// exchange whole — and never writes a secret in clear.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { request } from 'undici';
import { repoRoot } from '../../../core/catalogue/catalogue.ts';
import { recordedBodyLimit, type RecordedExchange } from '../recording-format.ts';
import { startRecorder } from '../recorder.ts';
import { Digester } from '../secret-digest.ts';

const dir = mkdtempSync(join(tmpdir(), 'token-conformance-recorder-'));
const big = Buffer.alloc(8 * 1024 * 1024, 'abcdefghij');
let upstream: Server;
let origin: string;
void before(async () => {
  upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.url === '/v1/big') {
        res.writeHead(200, { 'content-type': 'application/json', 'x-twice': ['a', 'b'] });
        res.end(big);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(
        JSON.stringify({
          access_token: 'upstream-access-token-0123456789abcdef',
          token_type: 'Bearer',
          expires_in: 3600,
          echo: body,
        }),
      );
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
void after(async () => {
  await new Promise<void>((r) => upstream.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

void describe('record', () => {
  void test('forwards untouched and records a bounded, digested copy', async () => {
    const out = join(dir, 'a.jsonl');
    const rec = await startRecorder({
      upstreams: { authUrlUs: origin, authUrlEu: origin, baseUrl: origin },
      out,
      digester: new Digester(Buffer.from('k'), 'env:K'),
    });
    try {
      const token = await request(`${rec.urls.authUrlUs}/api/v1/auth/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=password&client_id=c&client_secret=client-secret-value&username=t%5Cu&password=user-password-value',
      });
      const tokenText = await token.body.text();
      assert.equal(token.statusCode, 200);
      assert.match(tokenText, /client-secret-value/, 'the client gets the answer untouched');
      const res = await request(`${rec.urls.baseUrl}/v1/big`, {
        headers: { authorization: 'Bearer upstream-access-token-0123456789abcdef' },
      });
      const got = Buffer.from(await res.body.arrayBuffer());
      assert.equal(createHash('sha256').update(got).digest('hex'), createHash('sha256').update(big).digest('hex'));
      assert.deepEqual(res.headers['x-twice'], ['a', 'b']);
    } finally {
      await rec.close();
    }
    const [header, ...exchanges] = lines(out).map((l) => JSON.parse(l) as Record<string, unknown>);
    const [first, second] = exchanges as unknown as RecordedExchange[];
    assert.equal(header!.format, 'token-conformance-recording/1');
    assert.equal(second!.response!.body.size, big.length);
    assert.equal(second!.response!.body.truncated, true);
    assert.ok(second!.response!.body.text!.length <= recordedBodyLimit);
    const text = readFileSync(out, 'utf8');
    for (const secret of ['client-secret-value', 'user-password-value', 'upstream-access-token-0123456789abcdef'])
      assert.ok(!text.includes(secret), `${secret} in clear`);
    assert.match(first!.request.body.text ?? '', /client_secret=hmac-sha256/);
    assert.equal(first!.request.url, `${origin}/api/v1/auth/oauth2/token`, "the target's address is recorded");
  });

  void test('a recorder killed with SIGKILL leaves every completed exchange whole', async () => {
    const profile = join(dir, 'p.json');
    writeFileSync(
      profile,
      JSON.stringify({ name: 'plain', local: true, authUrlUs: origin, authUrlEu: origin, baseUrl: origin }),
    );
    const out = join(dir, 'killed.jsonl');
    const child = spawn(
      process.execPath,
      [join(repoRoot, 'bin', 'token-conformance.js'), 'record', '--target', profile, '--out', out],
      { env: { ...process.env, CONFORMANCE_RECORD_KEY: 'k-0123456789' }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const ready = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (c) => reject(new Error(`record exited ${c}`)));
    });
    const urls = JSON.parse(ready) as { authUrlUs: string };
    for (let i = 0; i < 5; i++) {
      const r = await request(`${urls.authUrlUs}/api/v1/auth/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `grant_type=client_credentials&client_id=c&client_secret=secret-${i}-value`,
      });
      await r.body.text();
    }
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    const written = lines(out);
    assert.equal(written.length, 6, 'the header and five exchanges');
    for (const l of written) JSON.parse(l);
  });
});
