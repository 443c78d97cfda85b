// The knobs the reliability tests rely on: slow-client timeouts and the header size limit are
// options (small values in tests, 10 s / 30 s / 16 KiB by default), Node checks for expired
// requests often enough for them to matter, and the store's durability settings are WAL with
// synchronous NORMAL (process-crash safe) or FULL on request.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseServeArgs, UsageError } from '../../src/config.ts';
import { DEFAULT_MAX_HEADER_SIZE, DEFAULT_TIMEOUTS, httpServerOptions } from '../../src/http/app.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';

const parse = (args: string[], env: NodeJS.ProcessEnv = {}) => parseServeArgs(args, env, process.cwd());

void describe('slow clients and large headers: options', () => {
  void test('defaults: headers 10 s, whole request 30 s, 16 KiB of headers', () => {
    const c = parse([]);
    assert.deepEqual(c.timeouts, { headersMs: 10_000, requestMs: 30_000 });
    assert.deepEqual(DEFAULT_TIMEOUTS, c.timeouts);
    assert.equal(c.maxHeaderSize, 16_384);
    assert.equal(DEFAULT_MAX_HEADER_SIZE, 16_384);
  });

  void test('flags and variables, decimals allowed; the request timeout may not be shorter than the header timeout', () => {
    assert.deepEqual(parse(['--headers-timeout', '0.3', '--request-timeout=0.6']).timeouts, {
      headersMs: 300,
      requestMs: 600,
    });
    assert.deepEqual(
      parse([], { TC_HEADERS_TIMEOUT: '2', TC_REQUEST_TIMEOUT: '5', TC_MAX_HEADER_SIZE: '8192' }).timeouts,
      { headersMs: 2000, requestMs: 5000 },
    );
    assert.equal(parse(['--max-header-size', '8192']).maxHeaderSize, 8192);
    assert.throws(
      () => parse(['--headers-timeout', '5', '--request-timeout', '1']),
      (e: unknown) =>
        e instanceof UsageError && /--request-timeout: must be at least --headers-timeout/.test(e.message),
    );
    for (const bad of [
      ['--headers-timeout', '0'],
      ['--headers-timeout', 'soon'],
      ['--request-timeout', '-1'],
      ['--max-header-size', '10'],
    ]) {
      assert.throws(
        () => parse(bad),
        (e: unknown) => e instanceof UsageError && e.message.includes(bad[0]!),
        bad.join(' '),
      );
    }
  });

  void test('Node checks for expired requests at a quarter of the shorter timeout (50 ms to 1 s), not every 30 s', () => {
    assert.deepEqual(httpServerOptions({ headersMs: 10_000, requestMs: 30_000 }, 16_384), {
      handshakeTimeout: 10_000,
      headersTimeout: 10_000,
      requestTimeout: 30_000,
      connectionsCheckingInterval: 1000,
      maxHeaderSize: 16_384,
    });
    assert.equal(httpServerOptions({ headersMs: 300, requestMs: 600 }, 16_384).connectionsCheckingInterval, 75);
    assert.equal(httpServerOptions({ headersMs: 50, requestMs: 50 }, 16_384).connectionsCheckingInterval, 50);
  });
});

void describe('store durability', () => {
  void test('a store file: WAL with synchronous NORMAL by default, FULL with --synchronous full', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-durability-'));
    try {
      const normal = new SqliteStore(join(dir, 'a.sqlite'));
      assert.deepEqual(normal.durability, { journalMode: 'wal', synchronous: 1 });
      await normal.close();
      const full = new SqliteStore(join(dir, 'b.sqlite'), { synchronous: 'FULL' });
      assert.deepEqual(full.durability, { journalMode: 'wal', synchronous: 2 });
      await full.close();
      assert.equal(parse(['--synchronous', 'full']).synchronous, 'FULL');
      assert.equal(parse([]).synchronous, 'NORMAL');
      assert.throws(() => parse(['--synchronous', 'off']), /--synchronous: must be normal or full/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
