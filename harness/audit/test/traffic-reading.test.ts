// Reading traffic: the streaming HAR scanner (entries split across chunks, strings holding braces,
// quotes and escapes, other members around log.entries), HAR entries as exchanges, the recording
// format (a line cut short by a killed recorder is skipped, not fatal), and clear errors.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { harEntries, TrafficError } from '../har-entries.ts';
import { harEntry } from '../har-writer.ts';
import { exchangesOf, exchangeFromHar } from '../read-traffic.ts';
import { Digester } from '../secret-digest.ts';

const dir = mkdtempSync(join(tmpdir(), 'token-conformance-traffic-'));
void after(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
};
const collect = async <T>(it: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

const entry = (i: number, extra = '') => ({
  startedDateTime: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  time: 5,
  request: {
    method: 'post',
    url: 'https://auth.example/api/v1/auth/oauth2/token',
    headers: [
      { name: ':authority', value: 'x' },
      { name: 'Content-Type', value: 'application/x-www-form-urlencoded' },
    ],
    postData: {
      mimeType: 'application/x-www-form-urlencoded',
      text: `grant_type=client_credentials&client_id=c${i}&client_secret=s3cret-value-${i}${extra}`,
    },
  },
  response: {
    status: 200,
    headers: [{ name: 'Content-Type', value: 'application/json' }],
    content: {
      size: 40,
      mimeType: 'application/json',
      text: JSON.stringify({
        access_token: `tok-{"]}[\\-${i}-abcdefghijklmnopqrstuvwxyz`,
        token_type: 'Bearer',
        expires_in: 3600,
      }),
    },
  },
});

void describe('harEntries', () => {
  const har = JSON.stringify({
    log: {
      version: '1.2',
      creator: { name: 'x "entries": [1]', version: '1' },
      pages: [{ id: 'p', title: '{"entries":[]}' }],
      entries: [entry(0), entry(1, '%7B%5D'), entry(2)],
    },
    comment: 'after',
  });

  void test('yields every entry, whatever the chunk size (down to one character)', async () => {
    const f = file('a.har', har);
    for (const size of [1, 3, 7, 64, 1 << 16]) {
      const got = await collect(harEntries(f, size));
      assert.deepEqual(got, [entry(0), entry(1, '%7B%5D'), entry(2)], `chunk size ${size}`);
    }
  });

  void test('entries of nested "entries" keys elsewhere are not taken', async () => {
    const f = file('b.har', JSON.stringify({ other: { log: { entries: [{ x: 1 }] } }, log: { entries: [entry(3)] } }));
    assert.deepEqual(await collect(harEntries(f, 5)), [entry(3)]);
  });

  void test('a file that is not a HAR, or is cut short, is a clear error', async () => {
    await assert.rejects(
      collect(harEntries(file('c.har', '{"log":{"version":"1.2"}}'))),
      (e: Error) => e instanceof TrafficError && /no log\.entries/.test(e.message),
    );
    await assert.rejects(
      collect(harEntries(file('d.har', har.slice(0, har.length / 2)))),
      (e: Error) => e instanceof TrafficError && /ends early/.test(e.message),
    );
    await assert.rejects(
      collect(harEntries(file('e.har', '{"log":{"entries":[1,2]}}'))),
      (e: Error) => e instanceof TrafficError && /other than objects/.test(e.message),
    );
  });
});

void describe('exchanges', () => {
  void test('a HAR entry: method upper-cased, pseudo-headers dropped, a base64 body decoded, status 0 read as no answer', () => {
    const e = exchangeFromHar(entry(0), 'f.har', 0);
    assert.ok(typeof e !== 'string');
    assert.equal(e.request.method, 'POST');
    assert.ok(!e.request.headers.some(([n]) => n.startsWith(':')));
    const b64 = exchangeFromHar(
      {
        ...entry(1),
        response: {
          status: 200,
          headers: [],
          content: {
            size: 2,
            mimeType: 'application/json',
            text: Buffer.from('{}').toString('base64'),
            encoding: 'base64',
          },
        },
      },
      'f.har',
      1,
    );
    assert.ok(typeof b64 !== 'string');
    assert.equal(b64.response?.body.text, '{}');
    const none = exchangeFromHar(
      { ...entry(2), response: { status: 0, headers: [], content: { size: 0 } } },
      'f.har',
      2,
    );
    assert.ok(typeof none !== 'string' && none.response === undefined);
    assert.match(exchangeFromHar({ request: {} }, 'f.har', 3) as string, /no request/);
  });

  void test("a digested JWT's iat and exp, written beside its digest into a HAR, read back as they were; malformed ones dropped", () => {
    const recorded = exchangeFromHar(
      {
        ...entry(4),
        response: {
          status: 200,
          headers: [],
          content: { size: 2, mimeType: 'application/json', text: '{}' },
        },
      },
      'f.har',
      4,
    );
    assert.ok(typeof recorded !== 'string');
    const withClaims = { ...recorded, response: { ...recorded.response!, accessTokenClaims: { iat: 100, exp: 3700 } } };
    const back = exchangeFromHar(harEntry(withClaims), 'f.har', 4);
    assert.ok(typeof back !== 'string');
    assert.deepEqual(back.response?.accessTokenClaims, { iat: 100, exp: 3700 });
    const entryOf = harEntry(withClaims) as { response: Record<string, unknown> };
    for (const bad of ['3700', { iat: 'x', exp: 3700 }, { iat: 1 }, null]) {
      const read = exchangeFromHar(
        { ...entryOf, response: { ...entryOf.response, _accessTokenClaims: bad } },
        'f.har',
        5,
      );
      assert.ok(typeof read !== 'string');
      assert.equal(read.response?.accessTokenClaims, undefined, JSON.stringify(bad));
    }
  });

  void test('HAR secrets are digested on reading: no client_secret or token in clear, the same value gives the same digest', async () => {
    const f = file('s.har', JSON.stringify({ log: { entries: [entry(0), entry(0)] } }));
    const got = await collect(exchangesOf(f, { digester: new Digester(Buffer.from('k'), 'test') }));
    const text = JSON.stringify(got);
    assert.ok(!text.includes('s3cret-value-0') && !text.includes('abcdefghijklmnopqrstuvwxyz'), text);
    assert.equal(got[0]!.request.body.text, got[1]!.request.body.text);
    assert.deepEqual(
      got.map((e) => e.index),
      [0, 1],
    );
  });

  void test('a recording: the header line is skipped, a line cut short is reported and skipped', async () => {
    const line = JSON.stringify({
      index: 7,
      startedAt: '2026-01-01T00:00:00.000Z',
      request: { method: 'GET', url: 'https://api.example/v1/x', headers: [], body: { size: 0 } },
    });
    const f = file(
      'r.jsonl',
      `{"format":"token-conformance-recording/1","startedAt":"2026-01-01T00:00:00.000Z","key":"env:K"}\n${line}\n${line.slice(0, 30)}`,
    );
    const skipped: string[] = [];
    const got = await collect(
      exchangesOf(f, { digester: Digester.ephemeral(), onSkip: (_f, i, why) => skipped.push(`${i}: ${why}`) }),
    );
    assert.equal(got.length, 1);
    assert.equal(got[0]!.index, 0);
    assert.deepEqual(skipped, ['1: not a whole JSON line (cut short?)']);
  });

  void test('a file that is neither is a clear error', async () => {
    await assert.rejects(
      collect(exchangesOf(file('x.txt', 'hello'), { digester: Digester.ephemeral() })),
      /neither a HAR file .* nor a recording/,
    );
    await assert.rejects(
      collect(exchangesOf(join(dir, 'missing.har'), { digester: Digester.ephemeral() })),
      /no such file/,
    );
  });
});
