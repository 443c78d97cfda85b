// An attachment whose file shrinks while the reporter reads it: the read ends, and so does the
// allure reporter's write of it. A copy that trusts the size it first saw never ends there (the
// runner of a suite run sat at 100 % CPU inside one), so the reporter reads once, bounded.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs, { mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, test } from 'node:test';
import type { Suite } from '@playwright/test/reporter';
import AllureResultsReporter from '../reporter/allure.reporter.ts';
import { readOnce } from '../reporter/read-once.ts';

const dir = mkdtempSync(join(tmpdir(), 'tc-read-once-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The allure reporter's writer, as allure-playwright drives it at the end of a check. */
function allureWriter(resultsDir: string): { writeAttachmentFromPath(name: string, from: string): void } {
  const reporter = new AllureResultsReporter({ resultsDir, detail: true, suiteTitle: true });
  reporter.onBegin({} as Suite);
  return (reporter as unknown as { allureRuntime: { writer: ReturnType<typeof allureWriter> } }).allureRuntime.writer;
}

/** Runs `body` with every fs.readSync followed, once, by `afterFirstRead`. */
function onFirstRead<T>(afterFirstRead: () => void, body: () => T): T {
  const original = fs.readSync;
  let reads = 0;
  fs.readSync = ((...args: Parameters<typeof original>) => {
    const n = original(...args);
    if ((reads += 1) === 1) afterFirstRead();
    return n;
  }) as typeof original;
  try {
    return body();
  } finally {
    fs.readSync = original;
  }
}

void test('a file truncated between two reads: the read ends with the bytes that were there', () => {
  const file = join(dir, 'shrinking.md');
  const full = Buffer.alloc(600 * 1024, 'a');
  writeFileSync(file, full);
  const read = onFirstRead(
    () => truncateSync(file, 300 * 1024 - 13),
    () => readOnce(file),
  );
  assert.equal(read.length, 300 * 1024 - 13);
  assert.ok(read.equals(full.subarray(0, read.length)));
});

void test('a file that grows while read: the read stops at its bound', () => {
  const file = join(dir, 'growing.md');
  writeFileSync(file, Buffer.alloc(1024, 'b'));
  const read = onFirstRead(
    () => fs.appendFileSync(file, Buffer.alloc(4096, 'c')),
    () => readOnce(file, 2048),
  );
  assert.equal(read.length, 2048);
});

void test("the allure reporter's attachment from a file that shrinks while it is read: written, and the write ends", () => {
  const resultsDir = join(dir, 'allure-shrink');
  const file = join(dir, 'error-context.md');
  const long = Buffer.from('# Error context\n'.padEnd(400 * 1024, 'x'));
  writeFileSync(file, long);
  const writer = allureWriter(resultsDir);
  onFirstRead(
    () => truncateSync(file, 3061),
    () => writer.writeAttachmentFromPath('e1-attachment.md', file),
  );
  const written = readFileSync(join(resultsDir, 'e1-attachment.md'));
  assert.ok(written.length >= 3061 && long.subarray(0, written.length).equals(written), `${written.length} bytes`);
  assert.deepEqual(
    readdirSync(resultsDir).filter((f) => f.endsWith('.tmp')),
    [],
    'no temporary file left',
  );
});

void test('another process rewriting the attachment shorter and longer, over and over: every write of it ends', async () => {
  const resultsDir = join(dir, 'allure-race');
  const file = join(dir, 'rewritten.md');
  const long = 'y'.repeat(512 * 1024);
  writeFileSync(file, long);
  // Rewrites the file in place (truncate, then write) with the long text and one 13 bytes shorter.
  const rewriter = spawn(
    process.execPath,
    [
      '-e',
      `const fs = require('node:fs');
       const long = 'y'.repeat(${long.length});
       const short = long.slice(13);
       console.log('rewriting');
       for (let i = 0; ; i++) fs.writeFileSync(${JSON.stringify(file)}, i % 2 ? short : long);`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const [line] = (await once(createInterface({ input: rewriter.stdout }), 'line')) as [string];
    assert.equal(line, 'rewriting');
    const writer = allureWriter(resultsDir);
    for (let i = 0; i < 300; i++) writer.writeAttachmentFromPath(`r${i}-attachment.md`, file);
  } finally {
    rewriter.kill('SIGKILL');
  }
  const written = readdirSync(resultsDir).filter((f) => f.endsWith('-attachment.md'));
  assert.equal(written.length, 300);
  for (const f of written) {
    const text = readFileSync(join(resultsDir, f), 'utf8');
    assert.ok(long.startsWith(text), `${f}: a prefix of what the file held (${text.length} bytes)`);
  }
});
