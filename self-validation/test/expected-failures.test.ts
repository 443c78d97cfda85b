// The self-validation marks a failed check of a fault's expected IDs `testInfo.fail()` so that
// Playwright keeps its worker after it (fixtures/expected-failures.fixture.ts). That marking must
// never change a verdict: a marked check that passes is PASS (so an undetected fault is still
// missed), and a marked check that fails is FAIL (so a detected fault is still detected).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { TestCase, TestResult } from '@playwright/test/reporter';
import { redactorFromEnv } from '../../core/redaction/redact.ts';
import { checkOutcome } from '../../harness/reporter/conformance.reporter.ts';
import type { Matrix } from '../matrix.ts';
import { main as selfValidate } from '../run-self-validation.ts';

const root = join(import.meta.dirname, '..', '..');

/** A finished check as the reporters see it: Playwright's raw status and its expected status. */
function finishedCheck(status: TestResult['status'], expectedStatus: TestCase['expectedStatus']): TestCase {
  return {
    expectedStatus,
    annotations: [{ type: 'requirement', description: 'TOKEN-RESP-001' }],
    results: [{ status, duration: 5, errors: [], annotations: expectedStatus === 'failed' ? [{ type: 'fail' }] : [] }],
    location: { file: join(root, 'specs', 'token-responses', 'success-response-format.spec.ts'), line: 1, column: 1 },
    titlePath: () => ['', 'batch-project', 'specs/token-responses/success-response-format.spec.ts', 'a check'],
    parent: { project: () => ({ name: 'batch-project' }) },
  } as unknown as TestCase;
}

void describe('self-validation: expected failures are scheduling only', () => {
  void test('the outcome is the raw status whatever Playwright expected', () => {
    const redactor = redactorFromEnv({});
    assert.equal(
      checkOutcome(finishedCheck('passed', 'failed'), redactor).status,
      'passed',
      'marked, passed: a pass (an undetected fault stays missed)',
    );
    assert.equal(
      checkOutcome(finishedCheck('failed', 'failed'), redactor).status,
      'failed',
      'marked, failed: a failure',
    );
    assert.equal(checkOutcome(finishedCheck('failed', 'passed'), redactor).status, 'failed');
  });

  void test('a marked check that fails under its fault reads FAIL, and the fault is detected', async () => {
    const out = mkdtempSync(join(tmpdir(), 'tc-expect-sv-'));
    try {
      // The clean report is not under test here: an absent one only makes the exit code 1. Nor is the
      // clean run's checks.json: whatever run last wrote reports/checks.json (a --grep run selects a
      // handful of checks) would decide which spec files this fault loads, so none is read.
      await selfValidate([
        '--only',
        'success-status-201',
        '--out',
        out,
        '--clean-report',
        join(out, 'none.json'),
        '--clean-checks',
        join(out, 'none-checks.json'),
      ]);
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
