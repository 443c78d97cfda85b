// The portal stage's counts from a Playwright JSON report: an empty run and errors outside tests fail.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { countMatrix, countPlaywrightReport } from './test-stages.ts';

void describe('countPlaywrightReport', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tc-stages-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const report = (stats: Record<string, number>, errors: unknown[] = []): string => {
    const file = join(dir, `${Object.values(stats).join('-')}-${errors.length}.json`);
    writeFileSync(
      file,
      JSON.stringify({ stats: { expected: 0, unexpected: 0, flaky: 0, skipped: 0, ...stats }, errors }),
    );
    return file;
  };

  void test('passed, failed (flaky included) and skipped', () => {
    assert.deepEqual(countPlaywrightReport(report({ expected: 8, unexpected: 1, flaky: 1, skipped: 2 })), {
      passed: 8,
      failed: 2,
      skipped: 2,
    });
  });
  void test('a run with no test, or with errors outside the tests, fails', () => {
    assert.deepEqual(countPlaywrightReport(report({})), { passed: 0, failed: 1, skipped: 0 });
    assert.deepEqual(countPlaywrightReport(report({ expected: 3 }, [{ message: 'worker fixture failed' }])), {
      passed: 3,
      failed: 1,
      skipped: 0,
    });
  });
  void test('no report at all is undefined (the stage counts it as a failure)', () => {
    assert.equal(countPlaywrightReport(join(dir, 'missing.json')), undefined);
  });
});

void describe('countMatrix', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tc-matrix-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const matrix = (m: unknown): string => {
    const file = join(dir, `${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(m));
    return file;
  };
  const base = {
    faults: [
      { detected: true, falseAlarms: [] },
      { detected: true, falseAlarms: [{}] },
    ],
    clean: { clean: true },
    coverage: { unreachedWithoutReason: [] },
  };

  void test('one per fault (detected, no false alarm), the clean run and the coverage check', () => {
    assert.deepEqual(countMatrix(matrix(base)), { passed: 3, failed: 1, skipped: 0 });
  });
  void test('one per property check: a property check that caught no fault fails', () => {
    assert.deepEqual(countMatrix(matrix({ ...base, properties: [{ caught: ['f'] }, { caught: [] }] })), {
      passed: 4,
      failed: 2,
      skipped: 0,
    });
  });
});
