// The suite's allure reporter writes the files allure-playwright writes, with the same content,
// without an fsync per file.
import assert from 'node:assert/strict';
import fs, { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Suite } from '@playwright/test/reporter';
import { AllureReporter } from 'allure-playwright';
import AllureResultsReporter from '../reporter/allure.reporter.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Writer {
  writeResult(result: { uuid: string }): void;
  writeGroup(result: { uuid: string }): void;
  writeAttachment(name: string, content: Buffer): void;
  writeAttachmentFromPath(name: string, from: string): void;
}

/** Writes one of each per-check file through a reporter's writer; returns the files and the fsync count. */
function writeThrough(make: (resultsDir: string) => AllureReporter): { files: Record<string, string>; fsyncs: number } {
  const dir = mkdtempSync(join(tmpdir(), 'allure-writer-'));
  dirs.push(dir);
  const resultsDir = join(dir, 'allure-results');
  const source = join(dir, 'source.txt');
  writeFileSync(source, 'copied attachment');
  const reporter = make(resultsDir);
  reporter.onBegin({} as Suite);
  const writer = (reporter as unknown as { allureRuntime: { writer: Writer } }).allureRuntime.writer;
  const originalFsync = fs.fsyncSync;
  let fsyncs = 0;
  fs.fsyncSync = (fd) => {
    fsyncs++;
    originalFsync(fd);
  };
  try {
    writer.writeResult({ uuid: 'u1', name: 'a check', steps: [] } as { uuid: string });
    writer.writeGroup({ uuid: 'g1', children: ['u1'] } as { uuid: string });
    writer.writeAttachment('a1-attachment.txt', Buffer.from('transcript text'));
    writer.writeAttachmentFromPath('a2-attachment.txt', source);
  } finally {
    fs.fsyncSync = originalFsync;
  }
  const files = Object.fromEntries(
    readdirSync(resultsDir)
      .sort()
      .map((f) => [f, readFileSync(join(resultsDir, f), 'utf8')]),
  );
  return { files, fsyncs };
}

void test('same files and content as allure-playwright, and no fsync', () => {
  const options = (resultsDir: string) => ({ resultsDir, detail: true, suiteTitle: true });
  const theirs = writeThrough((d) => new AllureReporter(options(d)));
  const ours = writeThrough((d) => new AllureResultsReporter(options(d)));
  assert.ok(theirs.fsyncs >= 4, `allure-playwright's writer fsyncs each file (${theirs.fsyncs})`);
  assert.equal(ours.fsyncs, 0);
  assert.deepEqual(Object.keys(ours.files), [
    'a1-attachment.txt',
    'a2-attachment.txt',
    'g1-container.json',
    'u1-result.json',
  ]);
  assert.deepEqual(ours.files, theirs.files);
});
