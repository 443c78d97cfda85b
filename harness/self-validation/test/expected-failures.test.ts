// The self-validation marks the checks of a fault's expected IDs `testInfo.fail()` so that
// Playwright keeps its worker after them (fixtures/expected-failures.fixture.ts). That marking must
// never change a verdict: a marked check that passes is PASS (so an undetected fault is still
// missed), and a marked check that fails is FAIL (so a detected fault is still detected).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runMain } from '../../commands/run.command.ts';
import { expectBrokenEnvVar, expectedBroken } from '../../playwright/expect-broken.ts';
import type { ConformanceReport } from '../../reporter/report.schema.ts';
import { main as selfValidate, type Matrix } from '../run-self-validation.ts';

const root = join(import.meta.dirname, '..', '..', '..');
const quiet = { out: () => undefined, err: () => undefined };

void describe('self-validation: expected failures are scheduling only', () => {
  void test('the variable is a comma list of IDs; unset means none', () => {
    assert.deepEqual([...expectedBroken({ [expectBrokenEnvVar]: 'A-1, B-2,,' })], ['A-1', 'B-2']);
    assert.equal(expectedBroken({}).size, 0);
  });

  void test('a marked check that passes against a correct target reads PASS', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'tc-expect-'));
    try {
      const code = await runMain(['--target', join(root, 'profiles', 'reference.json'), '--start-reference', '--reports', reports,
        '--passes', 'conformance', '--grep', '@TOKEN-RESP-001(?![\\w-])|@ERR-TOK-004(?![\\w-])'], quiet, { [expectBrokenEnvVar]: 'TOKEN-RESP-001' });
      const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as ConformanceReport;
      const verdict = (id: string) => report.requirements.find((r) => r.id === id)?.verdict;
      assert.equal(verdict('TOKEN-RESP-001'), 'PASS', 'marked, passed: PASS');
      assert.equal(verdict('ERR-TOK-004'), 'PASS', 'not marked, passed: PASS');
      assert.equal(code, 0);
    } finally {
      rmSync(reports, { recursive: true, force: true });
    }
  });

  void test('a marked check that fails under its fault reads FAIL, and the fault is detected', async () => {
    const out = mkdtempSync(join(tmpdir(), 'tc-expect-sv-'));
    try {
      // The clean report is not under test here: an absent one only makes the exit code 1.
      await selfValidate(['--only', 'success-status-201', '--out', out, '--clean-report', join(out, 'none.json')]);
      const matrix = JSON.parse(readFileSync(join(out, 'matrix.json'), 'utf8')) as Matrix;
      const [fault] = matrix.faults;
      assert.equal(fault?.id, 'success-status-201');
      assert.equal(fault.verdicts['TOKEN-RESP-001'], 'FAIL');
      assert.equal(fault.detected, true);
      assert.deepEqual(fault.falseAlarms, []);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
