// Verdict computation, table-driven: per check, per requirement, per run, and the exit code.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Requirement } from '../../requirements/types.ts';
import { combinedGrep } from '../commands/run.command.ts';
import { conformanceReportJsonSchema } from '../profile/emit-schema.ts';
import type { Verdict } from '../reporter/report.schema.ts';
import { buildReport, checkVerdict, countVerdicts, exitCodeFor, overallVerdict, requirementVerdict, type CheckOutcome } from '../reporter/verdict.ts';

const outcome = (o: Partial<CheckOutcome>): CheckOutcome => ({ title: 't', requirementIds: [], status: 'passed', durationMs: 1, ...o });

void describe('verdict of one check', () => {
  const table: [string, Partial<CheckOutcome>, Requirement['level'], Verdict][] = [
    ['passed MUST', { status: 'passed' }, 'MUST', 'PASS'],
    ['failed MUST', { status: 'failed' }, 'MUST', 'FAIL'],
    ['timed-out MUST', { status: 'timedOut' }, 'MUST', 'FAIL'],
    ['failed INTERPRETATION (judged like MUST against the declared choice)', { status: 'failed' }, 'INTERPRETATION', 'FAIL'],
    ['failed SHOULD', { status: 'failed' }, 'SHOULD', 'WARN'],
    ['failed ADVISORY', { status: 'failed' }, 'ADVISORY', 'WARN'],
    ['passed ADVISORY', { status: 'passed' }, 'ADVISORY', 'PASS'],
    ['skipped (no clock control)', { status: 'skipped', skipReason: 'target has no clock control' }, 'MUST', 'SKIP'],
    ['skipped as not applicable', { status: 'skipped', skipReason: 'no EU', notApplicableReason: 'target has no EU token server' }, 'MUST', 'NOT_APPLICABLE'],
    ['not run (dependency failed)', { status: 'notRun', skipReason: 'not run' }, 'MUST', 'SKIP'],
  ];
  for (const [name, o, level, expected] of table) {
    void test(name, () => assert.equal(checkVerdict(outcome(o), level).verdict, expected));
  }
  void test('a skip keeps its reason; a skip without one is called out', () => {
    assert.equal(checkVerdict(outcome({ status: 'skipped', skipReason: 'target has no clock control' }), 'MUST').reason, 'target has no clock control');
    assert.match(checkVerdict(outcome({ status: 'skipped' }), 'MUST').reason ?? '', /without a reason/);
  });
});

void describe('verdict of one requirement from its checks', () => {
  const c = (verdict: Verdict, reason?: string) => ({ verdict, ...(reason ? { reason } : {}) });
  const table: [string, ReturnType<typeof c>[], boolean, Verdict][] = [
    ['no check → UNCHECKED', [], false, 'UNCHECKED'],
    ['no check selected in a filtered run → SKIP', [], true, 'SKIP'],
    ['all pass → PASS', [c('PASS'), c('PASS')], false, 'PASS'],
    ['one fail among passes → FAIL', [c('PASS'), c('FAIL', 'x')], false, 'FAIL'],
    ['FAIL outranks WARN', [c('WARN'), c('FAIL')], false, 'FAIL'],
    ['a WARN among passes → WARN', [c('PASS'), c('WARN')], false, 'WARN'],
    ['a skip among passes → SKIP (partly verified is not PASS)', [c('PASS'), c('SKIP', 'no clock')], false, 'SKIP'],
    ['all not applicable → NOT_APPLICABLE', [c('NOT_APPLICABLE'), c('NOT_APPLICABLE')], false, 'NOT_APPLICABLE'],
    ['not applicable beside a pass → PASS', [c('NOT_APPLICABLE'), c('PASS')], false, 'PASS'],
    ['a skip beside not applicable → SKIP', [c('NOT_APPLICABLE'), c('SKIP', 'r')], false, 'SKIP'],
  ];
  for (const [name, checks, filtered, expected] of table) {
    void test(name, () => assert.equal(requirementVerdict(checks, filtered).verdict, expected));
  }
  void test('the verdict carries the deciding reason', () => {
    assert.equal(requirementVerdict([c('PASS'), c('FAIL', 'status 401, expected 400')]).reason, 'status 401, expected 400');
    assert.equal(requirementVerdict([c('SKIP', 'target has no clock control')]).reason, 'target has no clock control');
  });
});

void describe('verdict of the run and the exit code', () => {
  const counts = (partial: Partial<Record<Verdict, number>>) => ({ ...countVerdicts([]), ...partial });
  const table: [string, Partial<Record<Verdict, number>>, 'PASS' | 'FAIL' | 'WARN', 0 | 1, 0 | 1][] = [
    ['all pass', { PASS: 3 }, 'PASS', 0, 0],
    ['skips and not-applicables do not fail', { PASS: 3, SKIP: 2, NOT_APPLICABLE: 1 }, 'PASS', 0, 0],
    ['a WARN fails only with --strict', { PASS: 3, WARN: 1 }, 'WARN', 0, 1],
    ['a FAIL fails', { PASS: 3, FAIL: 1 }, 'FAIL', 1, 1],
    ['an UNCHECKED requirement fails the run (a hole in the suite)', { PASS: 3, UNCHECKED: 1 }, 'FAIL', 1, 1],
  ];
  for (const [name, partial, verdict, exitNormal, exitStrict] of table) {
    void test(name, () => {
      const v = overallVerdict(counts(partial));
      assert.equal(v, verdict);
      assert.equal(exitCodeFor(v, false), exitNormal);
      assert.equal(exitCodeFor(v, true), exitStrict);
    });
  }
});

void describe('the report', () => {
  const catalogue: Requirement[] = [
    { id: 'GRANT-CC-001', level: 'MUST', area: 'grants', source: '§4', statement: 'A client_credentials request succeeds.' },
    { id: 'GRANT-CC-007', level: 'SHOULD', area: 'grants', source: '§4', statement: 'An unknown scope is refused.' },
    { id: 'STATE-AT-001', level: 'MUST', area: 'lifecycle', source: '§3', statement: 'An expired token is refused.', needs: ['clock-control'] },
    { id: 'SEC-BCP-001', level: 'ADVISORY', area: 'transport', source: 'RFC 9700', statement: 'Advice is followed.' },
  ];
  const outcomes: CheckOutcome[] = [
    outcome({ title: 'cc ok', requirementIds: ['GRANT-CC-001'], status: 'passed' }),
    outcome({ title: 'scope', requirementIds: ['GRANT-CC-007'], status: 'failed', error: 'expected invalid_scope' }),
    outcome({ title: 'expiry', requirementIds: ['STATE-AT-001'], status: 'skipped', skipReason: 'target has no clock control' }),
    outcome({ title: 'typo', requirementIds: ['NOPE-001'], status: 'passed' }),
    outcome({ title: 'orphan', requirementIds: [], status: 'passed' }),
  ];
  const options = { level: 'all' as const, filtered: false, strict: false, suiteVersion: '1.0.0', startedAt: new Date('2026-01-01T00:00:00Z'), durationMs: 10, target: { name: 't', local: true, interpretations: {} } };

  void test('maps checks to requirements and judges each', () => {
    const report = buildReport(catalogue, outcomes, options);
    const byId = Object.fromEntries(report.requirements.map((r) => [r.id, r.verdict]));
    assert.deepEqual(byId, { 'GRANT-CC-001': 'PASS', 'GRANT-CC-007': 'WARN', 'STATE-AT-001': 'SKIP', 'SEC-BCP-001': 'UNCHECKED' });
    assert.equal(report.verdict, 'FAIL', 'the unchecked advisory requirement is a hole in the suite');
    assert.deepEqual(report.unknownRequirementIds, ['NOPE-001']);
    assert.deepEqual(report.checksWithoutRequirement, ['orphan']);
    assert.deepEqual(report.checks, { passed: 3, failed: 1, skipped: 1, total: 5 });
    assert.equal(report.summary.total, 4);
  });

  void test('--level must keeps MUST and INTERPRETATION requirements only', () => {
    const report = buildReport(catalogue, outcomes, { ...options, level: 'must' });
    assert.deepEqual(report.requirements.map((r) => r.id), ['GRANT-CC-001', 'STATE-AT-001']);
    assert.equal(report.verdict, 'PASS');
  });

  void test('is valid against schemas/conformance-report.schema.json', () => {
    const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(conformanceReportJsonSchema());
    const report = buildReport(catalogue, outcomes, options);
    assert.ok(validate(report), JSON.stringify(validate.errors));
  });
});

void describe('--level and --grep combine into one Playwright --grep', () => {
  const matches = (pattern: string | undefined, title: string) => pattern === undefined || new RegExp(pattern).test(title);
  const table: [string, 'must' | 'should' | 'all', string | undefined, string, boolean][] = [
    ['all, no grep: everything', 'all', undefined, 'x @advisory', true],
    ['must keeps MUST', 'must', undefined, 'x @must @grants', true],
    ['must keeps INTERPRETATION', 'must', undefined, 'x @interpretation', true],
    ['must drops SHOULD', 'must', undefined, 'x @should', false],
    ['should keeps SHOULD', 'should', undefined, 'x @should', true],
    ['should drops ADVISORY', 'should', undefined, 'x @advisory', false],
    ['must + grep: both must match', 'must', '@gateway', 'x @must @gateway', true],
    ['must + grep: level alone is not enough', 'must', '@gateway', 'x @must @grants', false],
    ['must + grep: grep alone is not enough', 'must', '@gateway', 'x @should @gateway', false],
  ];
  for (const [name, level, grep, title, expected] of table) {
    void test(name, () => assert.equal(matches(combinedGrep(level, grep), title), expected));
  }
});
