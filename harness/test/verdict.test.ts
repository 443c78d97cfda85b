// Verdict computation, table-driven: per check, per requirement, per run, and the exit code.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Requirement } from '../../requirements/types.ts';
import { combinedGrep } from '../commands/run.command.ts';
import { conformanceReportJsonSchema } from '../reporter/emit-schema.ts';
import type { Verdict } from '../reporter/report.schema.ts';
import {
  assumedInterpretation,
  buildReport,
  checkVerdict,
  countVerdicts,
  exitCodeFor,
  overallVerdict,
  parseBroke,
  requirementVerdict,
  type CheckOutcome,
} from '../reporter/verdict.ts';
import type { TestCase } from '@playwright/test/reporter';
import { join } from 'node:path';
import { repoRoot } from '../../core/catalogue/catalogue.ts';
import {
  checkOutcome,
  isBlockedCheck,
  junitSkipMessage,
  obligationAnnotations,
  verdictShaping,
} from '../reporter/conformance.reporter.ts';
import { renderJunit, type JunitCase } from '../reporter/junit-report.ts';
import { renderSummary } from '../reporter/terminal-summary.ts';
import { renderTraceability } from '../reporter/traceability-html.ts';
import { Redactor } from '../../core/redaction/redact.ts';

const outcome = (o: Partial<CheckOutcome>): CheckOutcome => ({
  title: 't',
  requirementIds: [],
  status: 'passed',
  durationMs: 1,
  ...o,
});

void describe('verdict of one check', () => {
  const table: [string, Partial<CheckOutcome>, Requirement['level'], Verdict][] = [
    ['passed MUST', { status: 'passed' }, 'MUST', 'PASS'],
    ['failed MUST', { status: 'failed' }, 'MUST', 'FAIL'],
    ['timed-out MUST, no finding of its own: unverified', { status: 'timedOut' }, 'MUST', 'UNCHECKED'],
    [
      'failed INTERPRETATION (judged like MUST against the declared choice)',
      { status: 'failed' },
      'INTERPRETATION',
      'FAIL',
    ],
    ['failed SHOULD', { status: 'failed' }, 'SHOULD', 'WARN'],
    ['failed ADVISORY', { status: 'failed' }, 'ADVISORY', 'WARN'],
    ['passed ADVISORY', { status: 'passed' }, 'ADVISORY', 'PASS'],
    ['skipped (no clock control)', { status: 'skipped', skipReason: 'target has no clock control' }, 'MUST', 'SKIP'],
    [
      'skipped as not applicable',
      { status: 'skipped', skipReason: 'no EU', notApplicableReason: 'target has no EU token server' },
      'MUST',
      'NOT_APPLICABLE',
    ],
    ['not run (dependency failed)', { status: 'notRun', skipReason: 'not run' }, 'MUST', 'SKIP'],
    [
      'failed setup (a setup: assertion) MUST → BLOCKED, never FAIL',
      { status: 'failed', blocked: { reason: 'setup: a token is issued — got HTTP 429' } },
      'MUST',
      'BLOCKED',
    ],
    [
      'failed setup of a SHOULD → BLOCKED, never WARN',
      { status: 'failed', blocked: { reason: 'setup: x' } },
      'SHOULD',
      'BLOCKED',
    ],
    [
      'markBlocked (ends skipped) → BLOCKED, not SKIP',
      { status: 'skipped', skipReason: 'BLOCKED: r', blocked: { reason: 'r' } },
      'MUST',
      'BLOCKED',
    ],
    ['a timed-out blocked check → BLOCKED', { status: 'timedOut', blocked: { reason: 'setup: x' } }, 'MUST', 'BLOCKED'],
    [
      'a passed check with a stray blocked mark → PASS (it verified)',
      { status: 'passed', blocked: { reason: 'r' } },
      'MUST',
      'PASS',
    ],
    [
      'not applicable wins over blocked',
      { status: 'skipped', notApplicableReason: 'no EU', blocked: { reason: 'r' } },
      'MUST',
      'NOT_APPLICABLE',
    ],
  ];
  for (const [name, o, level, expected] of table) {
    void test(name, () => assert.equal(checkVerdict(outcome(o), level).verdict, expected));
  }
  void test('a check out of its time keeps what it found before: that requirement FAILs, its others are unverified by the timeout', () => {
    const o = outcome({
      status: 'timedOut',
      error: 'Test timeout of 30000ms exceeded.',
      requirementIds: ['TOKEN-REQ-001', 'TOKEN-REQ-003'],
      broke: [{ id: 'TOKEN-REQ-001', message: 'a GET issued a token' }],
    });
    assert.deepEqual(checkVerdict(o, 'MUST', 'TOKEN-REQ-001'), { verdict: 'FAIL', reason: 'a GET issued a token' });
    assert.deepEqual(checkVerdict({ ...o, broke: undefined }, 'MUST', 'TOKEN-REQ-003'), {
      verdict: 'UNCHECKED',
      reason:
        "not finished within the check's time limit (Test timeout of 30000ms exceeded.): unverified, not a finding of the target",
    });
  });
  void test('BLOCKED keeps its reason and the blocking requirement', () => {
    const j = checkVerdict(
      outcome({
        status: 'skipped',
        requirementIds: ['STATE-RT-USED-001'],
        blocked: { reason: 'setup: a password token is issued — got HTTP 500', by: ['GRANT-PW-001'] },
      }),
      'MUST',
      'STATE-RT-USED-001',
    );
    assert.deepEqual(j, {
      verdict: 'BLOCKED',
      reason: 'setup: a password token is issued — got HTTP 500',
      blockedBy: ['GRANT-PW-001'],
    });
  });

  void test('a check citing the blocking requirement itself FAILs it (WARN for a SHOULD), and is BLOCKED for its other IDs', () => {
    const o = outcome({
      status: 'skipped',
      requirementIds: ['GRANT-CC-001', 'VER-001'],
      blocked: { reason: 'setup: no token', by: ['GRANT-CC-001'] },
    });
    assert.deepEqual(checkVerdict(o, 'MUST', 'GRANT-CC-001'), { verdict: 'FAIL', reason: 'setup: no token' });
    assert.deepEqual(checkVerdict(o, 'SHOULD', 'GRANT-CC-001'), { verdict: 'WARN', reason: 'setup: no token' });
    assert.equal(checkVerdict(o, 'MUST', 'VER-001').verdict, 'BLOCKED');
    assert.equal(isBlockedCheck(o), false, 'in JUnit it stays a failure');
    assert.equal(isBlockedCheck({ ...o, blocked: { reason: 'x', by: ['GRANT-PW-001'] } }), true);
  });

  void test('broke annotations: only the named IDs FAIL/WARN, each with its own message; the other cited IDs PASS', () => {
    const o = outcome({
      status: 'failed',
      requirementIds: ['TOKEN-REQ-001', 'TOKEN-REQ-003', 'GRANT-PW-004'],
      error: 'property failed: counterexample …',
      broke: [
        { id: 'TOKEN-REQ-003', message: 'expected 400 invalid_request, got 200' },
        { id: 'GRANT-PW-004', message: 'expected 400, got 500' },
      ],
    });
    assert.deepEqual(checkVerdict(o, 'MUST', 'TOKEN-REQ-003'), {
      verdict: 'FAIL',
      reason: 'expected 400 invalid_request, got 200',
    });
    assert.deepEqual(checkVerdict(o, 'SHOULD', 'GRANT-PW-004'), { verdict: 'WARN', reason: 'expected 400, got 500' });
    assert.deepEqual(checkVerdict(o, 'MUST', 'TOKEN-REQ-001'), { verdict: 'PASS' });
    const twice = outcome({
      status: 'failed',
      requirementIds: ['A-1'],
      broke: [
        { id: 'A-1', message: 'one' },
        { id: 'A-1', message: 'two' },
      ],
    });
    assert.equal(checkVerdict(twice, 'MUST', 'A-1').reason, 'one; two');
    assert.equal(
      checkVerdict(outcome({ status: 'failed', requirementIds: ['A-1'], error: 'e' }), 'MUST', 'A-1').verdict,
      'FAIL',
      'no broke annotation: every cited ID fails, as before',
    );
    assert.equal(
      checkVerdict(
        outcome({ status: 'failed', blocked: { reason: 'setup: x' }, broke: [{ id: 'A-1', message: 'm' }] }),
        'MUST',
        'B-2',
      ).verdict,
      'PASS',
      'broke outranks a setup message',
    );
  });

  void test('a skip keeps its reason; a skip without one is called out', () => {
    assert.equal(
      checkVerdict(outcome({ status: 'skipped', skipReason: 'target has no clock control' }), 'MUST').reason,
      'target has no clock control',
    );
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
    [
      'a pass and a blocked check → BLOCKED (not fully verified: never PASS)',
      [c('PASS'), c('BLOCKED', 'setup: x')],
      false,
      'BLOCKED',
    ],
    ['all blocked → BLOCKED', [c('BLOCKED', 'a'), c('BLOCKED', 'b')], false, 'BLOCKED'],
    ['FAIL outranks BLOCKED', [c('BLOCKED', 'a'), c('FAIL', 'x')], false, 'FAIL'],
    ['WARN outranks BLOCKED', [c('BLOCKED', 'a'), c('WARN', 'x')], false, 'WARN'],
    [
      'BLOCKED outranks SKIP (a target problem said before a missing capability)',
      [c('SKIP', 'no clock'), c('BLOCKED', 'a')],
      false,
      'BLOCKED',
    ],
    ['blocked beside not applicable → BLOCKED', [c('NOT_APPLICABLE'), c('BLOCKED', 'a')], false, 'BLOCKED'],
  ];
  for (const [name, checks, filtered, expected] of table) {
    void test(name, () => assert.equal(requirementVerdict(checks, filtered).verdict, expected));
  }
  void test('a BLOCKED requirement carries the first blocked reason and every blocker', () => {
    const r = requirementVerdict([
      { verdict: 'PASS' },
      { verdict: 'BLOCKED', reason: 'setup: one', blockedBy: ['GRANT-PW-001'] },
      { verdict: 'BLOCKED', reason: 'setup: two', blockedBy: ['GRANT-CC-001', 'GRANT-PW-001'] },
    ]);
    assert.deepEqual(r, { verdict: 'BLOCKED', reason: 'setup: one', blockedBy: ['GRANT-CC-001', 'GRANT-PW-001'] });
    assert.deepEqual(requirementVerdict([{ verdict: 'BLOCKED', reason: 'client locked' }]), {
      verdict: 'BLOCKED',
      reason: 'client locked',
    });
  });

  void test('the verdict carries the deciding reason', () => {
    assert.equal(
      requirementVerdict([c('PASS'), c('FAIL', 'status 401, expected 400')]).reason,
      'status 401, expected 400',
    );
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
    [
      'BLOCKED alone does not fail the run (its blocker fails through its own check)',
      { PASS: 3, BLOCKED: 2 },
      'PASS',
      0,
      0,
    ],
    ['BLOCKED beside a FAIL: the FAIL decides', { PASS: 3, BLOCKED: 2, FAIL: 1 }, 'FAIL', 1, 1],
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
    {
      id: 'GRANT-CC-001',
      level: 'MUST',
      area: 'grants',
      source: '§4',
      statement: 'A client_credentials request succeeds.',
    },
    { id: 'GRANT-CC-007', level: 'SHOULD', area: 'grants', source: '§4', statement: 'An unknown scope is refused.' },
    {
      id: 'STATE-AT-001',
      level: 'MUST',
      area: 'lifecycle',
      source: '§3',
      statement: 'An expired token is refused.',
      needs: ['clock-control'],
    },
    { id: 'SEC-BCP-001', level: 'ADVISORY', area: 'transport', source: 'RFC 9700', statement: 'Advice is followed.' },
  ];
  const outcomes: CheckOutcome[] = [
    outcome({ title: 'cc ok', requirementIds: ['GRANT-CC-001'], status: 'passed' }),
    outcome({ title: 'scope', requirementIds: ['GRANT-CC-007'], status: 'failed', error: 'expected invalid_scope' }),
    outcome({
      title: 'expiry',
      requirementIds: ['STATE-AT-001'],
      status: 'skipped',
      skipReason: 'target has no clock control',
    }),
    outcome({ title: 'typo', requirementIds: ['NOPE-001'], status: 'passed' }),
    outcome({ title: 'orphan', requirementIds: [], status: 'passed' }),
  ];
  const options = {
    level: 'all' as const,
    filtered: false,
    strict: false,
    suiteVersion: '1.0.0',
    startedAt: new Date('2026-01-01T00:00:00Z'),
    durationMs: 10,
    target: { name: 't', local: true, interpretations: {} },
  };

  void test('maps checks to requirements and judges each', () => {
    const report = buildReport(catalogue, outcomes, options);
    const byId = Object.fromEntries(report.requirements.map((r) => [r.id, r.verdict]));
    assert.deepEqual(byId, {
      'GRANT-CC-001': 'PASS',
      'GRANT-CC-007': 'WARN',
      'STATE-AT-001': 'SKIP',
      'SEC-BCP-001': 'UNCHECKED',
    });
    assert.equal(report.verdict, 'FAIL', 'the unchecked advisory requirement is a hole in the suite');
    assert.deepEqual(report.unknownRequirementIds, ['NOPE-001']);
    assert.deepEqual(report.checksWithoutRequirement, ['orphan']);
    assert.deepEqual(report.checks, { passed: 3, failed: 1, skipped: 1, total: 5 });
    assert.equal(report.summary.total, 4);
  });

  void test('the requests the checks sent are summed (what a run costs a shared target); absent when no check counted them', () => {
    const counted = buildReport(
      catalogue,
      [
        outcome({ title: 'a', requirementIds: ['GRANT-CC-001'], status: 'passed', requests: 3 }),
        outcome({ title: 'b', requirementIds: ['GRANT-CC-007'], status: 'failed', error: 'x', requests: 40 }),
        outcome({
          title: 'c',
          requirementIds: ['STATE-AT-001'],
          status: 'skipped',
          skipReason: 'no clock',
          requests: 0,
        }),
      ],
      options,
    );
    assert.equal(counted.checks.requests, 43);
    assert.equal(buildReport(catalogue, outcomes, options).checks.requests, undefined);
  });

  void test('requests sent again (no answer within their deadline): counted per check, summed with 0 included, on the closing line', () => {
    const fake = (annotations: { type: string; description?: string }[]) =>
      ({
        annotations: [{ type: 'requirement', description: 'GRANT-CC-001' }],
        results: [{ status: 'passed', duration: 5, errors: [], annotations, attachments: [], retry: 0 }],
        location: { file: join(repoRoot, 'specs', 'properties', 'token-endpoint-input.spec.ts') },
        parent: { project: () => ({ name: 'conformance' }) },
        titlePath: () => ['', 'conformance', 'specs/properties/token-endpoint-input.spec.ts', 'inputs'],
      }) as unknown as TestCase;
    const again = {
      type: 'sent-again',
      description: 'no answer within 5000 ms, answered in 80 ms when sent again: POST /t',
    };
    const slow = checkOutcome(fake([{ type: 'requests', description: '150' }, again, { ...again }]), new Redactor());
    assert.equal(slow.sentAgain, 2);
    const quiet = checkOutcome(fake([{ type: 'requests', description: '150' }]), new Redactor());
    assert.equal(quiet.sentAgain, undefined);

    const withResends = buildReport(catalogue, [slow, { ...quiet, title: 'b' }], options);
    assert.deepEqual([withResends.checks.requests, withResends.checks.sentAgain], [300, 2]);
    const summary = renderSummary(withResends);
    assert.match(
      summary,
      /SENT AGAIN: 2 requests had no answer within the deadline, or lost a reused keep-alive connection before any answer, and were sent again/,
    );
    assert.match(summary, /\(2 checks, 300 requests, 2 sent again\)/);

    const without = buildReport(catalogue, [quiet], options);
    assert.equal(without.checks.sentAgain, 0, 'a run that sent nothing again says 0');
    assert.match(renderSummary(without), /\(1 checks, 150 requests, 0 sent again\)/);
    assert.doesNotMatch(renderSummary(without), /SENT AGAIN/);
  });

  void test('a blocked check: BLOCKED requirement with its blocker, counted, never PASS; the blocker FAILs through its own check', () => {
    const report = buildReport(
      catalogue,
      [
        outcome({
          title: 'cc shape',
          requirementIds: ['GRANT-CC-001'],
          status: 'failed',
          error: 'Error: expected a token: schema: /scope must be absent',
        }),
        outcome({ title: 'expiry', requirementIds: ['STATE-AT-001'], status: 'passed' }),
        outcome({
          title: 'expiry 2',
          requirementIds: ['STATE-AT-001'],
          status: 'skipped',
          skipReason: 'BLOCKED: …',
          blocked: { reason: 'setup: a client_credentials token is issued at US — got HTTP 500', by: ['GRANT-CC-001'] },
        }),
        outcome({
          title: 'scope',
          requirementIds: ['GRANT-CC-007'],
          status: 'failed',
          error: 'Error: setup: the EU client authenticates',
          blocked: { reason: 'setup: the EU client authenticates' },
        }),
      ],
      options,
    );
    const byId = Object.fromEntries(report.requirements.map((r) => [r.id, r]));
    assert.equal(byId['GRANT-CC-001']!.verdict, 'FAIL');
    assert.equal(byId['STATE-AT-001']!.verdict, 'BLOCKED');
    assert.deepEqual(byId['STATE-AT-001']!.blockedBy, ['GRANT-CC-001']);
    assert.equal(byId['STATE-AT-001']!.checks[1]!.verdict, 'BLOCKED');
    assert.deepEqual(byId['STATE-AT-001']!.checks[1]!.blockedBy, ['GRANT-CC-001']);
    assert.equal(byId['GRANT-CC-007']!.verdict, 'BLOCKED');
    assert.equal(report.summary.BLOCKED, 2);
    assert.equal(report.checks.blocked, 2);
  });

  void test('--level must keeps MUST and INTERPRETATION requirements only', () => {
    const report = buildReport(catalogue, outcomes, { ...options, level: 'must' });
    assert.deepEqual(
      report.requirements.map((r) => r.id),
      ['GRANT-CC-001', 'STATE-AT-001'],
    );
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

void describe('what the reporter reads from a check: precondition, markBlocked, broke annotations', () => {
  const redactor = new Redactor();
  const precondition = (kind: string) => ({ type: 'precondition', description: kind });
  void test('a failed check with a `precondition: setup` annotation is BLOCKED with its error line; the error text alone decides nothing', () => {
    assert.deepEqual(verdictShaping([precondition('setup')], 'failed', 'Error: setup: the token is issued', redactor), {
      blocked: { reason: 'setup: the token is issued' },
    });
    assert.deepEqual(verdictShaping([precondition('setup')], 'failed', 'any words at all', redactor), {
      blocked: { reason: 'any words at all' },
    });
    assert.deepEqual(verdictShaping([precondition('setup')], 'passed', undefined, redactor), {});
    assert.deepEqual(
      verdictShaping([], 'failed', 'Error: setup: the token is issued', redactor),
      {},
      'a message that merely starts with setup: is not a precondition',
    );
    assert.deepEqual(verdictShaping([], 'failed', 'Error: expected 400', redactor), {});
  });

  void test('markBlocked annotations give the reason and the blockers', () => {
    const annotations = [
      { type: 'requirement', description: 'STATE-RT-USED-001' },
      { type: 'skip', description: 'BLOCKED: r' },
      { type: 'blocked', description: 'setup: a password token is issued — got HTTP 500' },
      { type: 'blocked-by', description: 'GRANT-PW-001' },
    ];
    assert.deepEqual(verdictShaping(annotations, 'skipped', undefined, redactor), {
      blocked: { reason: 'setup: a password token is issued — got HTTP 500', by: ['GRANT-PW-001'] },
    });
  });

  void test('a blocked mark whose skip was caught (a property runner): BLOCKED only when the failure is that skip', () => {
    const annotations = [
      { type: 'blocked', description: 'setup: no token' },
      { type: 'blocked-by', description: 'GRANT-CC-001' },
    ];
    assert.deepEqual(
      verdictShaping([...annotations, precondition('blocked')], 'failed', 'Error: property failed', redactor),
      { blocked: { reason: 'setup: no token', by: ['GRANT-CC-001'] } },
    );
    assert.deepEqual(
      verdictShaping(
        annotations,
        'failed',
        'Error: property failed … Got error: Test is skipped: BLOCKED: setup: no token',
        redactor,
      ),
      {},
      'a real failure found after a blocked attempt still FAILs, whatever its text',
    );
  });

  void test('a check blocked by the profile (a credential the preflight found refused) is BLOCKED naming the field, also when a property runner caught the skip', () => {
    const reason =
      'blocked by the profile, not the target: the target refused credentials.clients.usClient.clientSecret in the preflight (HTTP 400 invalid_client): fix it in the profile; no request sent with it';
    const annotations = [
      { type: 'blocked', description: reason },
      { type: 'blocked-by-profile', description: 'credentials.clients.usClient.clientSecret' },
    ];
    const expected = { blocked: { reason, profile: 'credentials.clients.usClient.clientSecret' } };
    assert.deepEqual(verdictShaping(annotations, 'skipped', undefined, redactor), expected);
    assert.deepEqual(
      verdictShaping(
        [...annotations, precondition('blocked')],
        'failed',
        'Error: property token-input-us failed',
        redactor,
      ),
      expected,
    );
  });

  void test('broke annotations parse "<ID> — <message>" and are read only from a failed check', () => {
    assert.deepEqual(parseBroke('TOKEN-REQ-003 — expected 400 invalid_request, got 200'), {
      id: 'TOKEN-REQ-003',
      message: 'expected 400 invalid_request, got 200',
    });
    assert.deepEqual(parseBroke('ERR-GW-1202 - got 000-1205'), { id: 'ERR-GW-1202', message: 'got 000-1205' });
    assert.equal(parseBroke('no id here'), undefined);
    const annotations = [
      { type: 'broke', description: 'TOKEN-REQ-003 — expected 400, got 200' },
      { type: 'broke', description: 'malformed' },
    ];
    assert.deepEqual(verdictShaping(annotations, 'failed', 'Error: property failed', redactor), {
      broke: [{ id: 'TOKEN-REQ-003', message: 'expected 400, got 200' }],
    });
    assert.deepEqual(verdictShaping(annotations, 'passed', undefined, redactor), {});
  });
});

void describe('JUnit, written from the verdicts: a BLOCKED check is skipped with its reason', () => {
  const junitCaseOf = (name: string, outcome: JunitCase['outcome']): JunitCase => ({
    name,
    classname: 'grants/a.spec.ts',
    timeSeconds: 0.1,
    properties: [{ name: 'requirement', value: 'GRANT-CC-001' }],
    outcome,
  });
  const xml = renderJunit(
    [
      {
        name: 'grants/a.spec.ts',
        project: 'conformance',
        cases: [
          junitCaseOf('GRANT-CC-001 ok', { kind: 'passed' }),
          junitCaseOf('STATE "x" › blocked', {
            kind: 'skipped',
            message: 'BLOCKED: by GRANT-CC-001: setup: no <token>',
          }),
          junitCaseOf('real failure', {
            kind: 'failure',
            message: 'a.spec.ts:2:1 real',
            text: 'Error: expected 400 ]]> end',
          }),
        ],
      },
    ],
    new Date('2026-11-24T00:00:00Z'),
    1000,
  );
  void test("Playwright's shape: suites per project and file, testcases with properties; skipped with its message; the counts follow", () => {
    assert.match(
      xml,
      /^<testsuites id="" name="" tests="3" failures="1" skipped="1" errors="0" time="1">\n<testsuite name="grants\/a.spec.ts" timestamp="2026-11-24T00:00:00.000Z" hostname="conformance" tests="3" failures="1" skipped="1" time="0.3" errors="0">/,
    );
    assert.match(
      xml,
      /<testcase name="STATE &quot;x&quot; › blocked" classname="grants\/a.spec.ts" time="0.1">\n<properties>\n<property name="requirement" value="GRANT-CC-001">\n<\/property>\n<\/properties>\n<skipped message="BLOCKED: by GRANT-CC-001: setup: no &lt;token&gt;">\n<\/skipped>\n<\/testcase>/,
    );
    assert.match(
      xml,
      /real failure[\s\S]*<failure message="a.spec.ts:2:1 real" type="FAILURE">\n<!\[CDATA\[Error: expected 400 \]\]\]\]><!\[CDATA\[> end\]\]>\n<\/failure>/,
      'a real failure stays; CDATA cannot be closed by the text',
    );
    assert.ok(xml.endsWith('</testsuite>\n</testsuites>'));
  });
});

void describe('--level and --grep combine into one Playwright --grep', () => {
  const matches = (pattern: string | undefined, title: string) =>
    pattern === undefined || new RegExp(pattern).test(title);
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

void describe('an interpretation the profile did not declare', () => {
  const gatewayCode = { level: 'INTERPRETATION' as const, interpretation: 'OI-14' };
  void test('a mismatch is WARN with the reason naming the key to declare; declared, it stays FAIL', () => {
    const failed = { verdict: 'FAIL' as const, reason: 'expected gateway error 000-1205' };
    const assumed = assumedInterpretation(failed, gatewayCode, new Set());
    assert.equal(assumed.verdict, 'WARN');
    assert.match(
      assumed.reason!,
      /declares no interpretations\.gatewayCodes \(OI-14\).*expected gateway error 000-1205/,
    );
    assert.deepEqual(assumedInterpretation(failed, gatewayCode, new Set(['gatewayCodes'])), failed);
  });
  void test('a MUST that cites an interpretation, a PASS and a BLOCKED are left alone', () => {
    const failed = { verdict: 'FAIL' as const, reason: 'x' };
    assert.deepEqual(assumedInterpretation(failed, { level: 'MUST', interpretation: 'OI-2' }, new Set()), failed);
    assert.deepEqual(assumedInterpretation({ verdict: 'PASS' }, gatewayCode, new Set()), { verdict: 'PASS' });
    assert.deepEqual(assumedInterpretation({ verdict: 'BLOCKED', reason: 'setup: y' }, gatewayCode, new Set()), {
      verdict: 'BLOCKED',
      reason: 'setup: y',
    });
  });
});

void describe('profiles/reference.json', () => {
  void test('declares every open interpretation at its reference default (so its verdicts are binding FAILs)', async () => {
    const { readFileSync } = await import('node:fs');
    const { interpretations } = await import('../../requirements/index.ts');
    const profile = JSON.parse(readFileSync(new URL('../../profiles/reference.json', import.meta.url), 'utf8')) as {
      interpretations: Record<string, unknown>;
    };
    assert.deepEqual(profile.interpretations, Object.fromEntries(interpretations.map((i) => [i.key, i.default])));
  });
});

void describe('PENDING: obligations recorded for a later run, and their settlements', () => {
  const due = '2026-11-24T03:00:00.000Z';
  const later = '2026-11-24T09:00:00.000Z';
  const pending = (obligation: string, at = due) => ({
    obligation,
    due: at,
    what: 'the access token is refused with 401 once expires_in + skew has passed',
  });
  const settled = (
    outcome: 'PASS' | 'FAIL' | 'VOID',
    obligation = 'ob-1',
    reason = outcome === 'VOID' ? 'the password changed: the target revoked the tokens' : 'refused with 401',
  ) => ({
    obligation,
    recordedRun: 'run-1',
    recordedAt: '2026-11-24T01:00:00.000Z',
    settledAt: '2026-11-24T02:01:00.000Z',
    outcome,
    reason,
  });

  void describe('one check', () => {
    const table: [string, Partial<CheckOutcome>, Verdict][] = [
      ['passed with a pending annotation → PENDING', { status: 'passed', pending: [pending('ob-2')] }, 'PENDING'],
      [
        'skipped with a pending annotation → PENDING, not SKIP',
        { status: 'skipped', skipReason: 'recorded', pending: [pending('ob-2')] },
        'PENDING',
      ],
      [
        'failed with a pending annotation → FAIL (the failure stands)',
        { status: 'failed', error: 'expected 200', pending: [pending('ob-2')] },
        'FAIL',
      ],
      [
        'not applicable wins over pending',
        { status: 'skipped', notApplicableReason: 'no EU', pending: [pending('ob-2')] },
        'NOT_APPLICABLE',
      ],
      [
        'blocked wins over pending',
        { status: 'skipped', blocked: { reason: 'setup: no token' }, pending: [pending('ob-2')] },
        'BLOCKED',
      ],
      ['passed with a PASS settlement → PASS', { status: 'passed', settled: [settled('PASS')] }, 'PASS'],
      [
        'a PASS settlement beside an obligation recorded anew → PASS (its own settlement decides)',
        { status: 'passed', settled: [settled('PASS')], pending: [pending('ob-2')] },
        'PASS',
      ],
      ['failed with a FAIL settlement → FAIL', { status: 'failed', error: 'e', settled: [settled('FAIL')] }, 'FAIL'],
      [
        'a FAIL settlement on a check that forgot to fail → FAIL, never PASS',
        { status: 'passed', settled: [settled('FAIL')] },
        'FAIL',
      ],
      ['passed with a VOID settlement → SKIP', { status: 'passed', settled: [settled('VOID')] }, 'SKIP'],
      [
        'a VOID settlement beside an obligation recorded anew → PENDING',
        { status: 'passed', settled: [settled('VOID')], pending: [pending('ob-2')] },
        'PENDING',
      ],
      [
        'an unreadable annotation on a passed check → SKIP (not taken as verified)',
        { status: 'passed', malformed: [{ type: 'pending', problem: 'due: Invalid ISO datetime' }] },
        'SKIP',
      ],
      [
        'an unreadable annotation on a failed check → FAIL (the failure stands)',
        { status: 'failed', error: 'e', malformed: [{ type: 'pending', problem: 'x' }] },
        'FAIL',
      ],
    ];
    for (const [name, o, expected] of table)
      void test(name, () =>
        assert.equal(
          checkVerdict(outcome({ requirementIds: ['STATE-AT-EXP-001'], ...o }), 'MUST', 'STATE-AT-EXP-001').verdict,
          expected,
        ),
      );

    void test('PENDING carries the earliest due time and what must hold; a SHOULD reads PENDING too', () => {
      const j = checkVerdict(outcome({ pending: [pending('ob-3', later), pending('ob-2', due)] }), 'SHOULD');
      assert.deepEqual(j, {
        verdict: 'PENDING',
        due,
        reason: `due ${due}: the access token is refused with 401 once expires_in + skew has passed (+1 more obligation)`,
      });
    });

    void test('settlements carry "recorded in run R at T, settled at T′"; a FAIL through broke annotations too; VOID says why', () => {
      const detail =
        'obligation ob-1 recorded in run run-1 at 2026-11-24T01:00:00.000Z, settled at 2026-11-24T02:01:00.000Z';
      assert.equal(
        checkVerdict(outcome({ settled: [settled('PASS')] }), 'MUST').reason,
        `settled: refused with 401 (${detail})`,
      );
      assert.equal(
        checkVerdict(outcome({ settled: [settled('PASS')], pending: [pending('ob-2')] }), 'MUST').reason,
        `settled: refused with 401 (${detail}); next obligation due ${due}`,
      );
      // The settling fixture's reasons say when already: not twice.
      const said =
        'refused: holds; recorded in run run-1 at 2026-11-24T01:00:00.000Z, settled at 2026-11-24T02:01:00.000Z';
      assert.equal(
        checkVerdict(outcome({ settled: [{ ...settled('PASS'), reason: said }] }), 'MUST').reason,
        `settled: ${said}`,
      );
      assert.equal(
        checkVerdict(
          outcome({
            status: 'failed',
            requirementIds: ['A-1'],
            broke: [{ id: 'A-1', message: `accepted (obligation ${said})` }],
            settled: [settled('FAIL')],
          }),
          'MUST',
          'A-1',
        ).reason,
        `accepted (obligation ${said})`,
      );
      const failed = outcome({
        status: 'failed',
        requirementIds: ['STATE-AT-EXP-001'],
        error: 'e',
        broke: [{ id: 'STATE-AT-EXP-001', message: 'accepted with 200 an hour after expiry' }],
        settled: [settled('FAIL')],
      });
      assert.equal(
        checkVerdict(failed, 'MUST', 'STATE-AT-EXP-001').reason,
        `accepted with 200 an hour after expiry (${detail})`,
      );
      assert.equal(
        checkVerdict(outcome({ status: 'failed', error: 'expected 401, got 200', settled: [settled('FAIL')] }), 'MUST')
          .reason,
        `expected 401, got 200 (${detail})`,
      );
      assert.equal(
        checkVerdict(outcome({ settled: [settled('VOID')] }), 'MUST').reason,
        `not settled: the password changed: the target revoked the tokens (${detail})`,
      );
    });
  });

  void describe('one requirement from its checks (the precedence rule, verdict.ts requirementVerdict)', () => {
    type C = Parameters<typeof requirementVerdict>[0][number];
    const c = (verdict: Verdict, extra: Partial<C> = {}): C => ({ verdict, ...extra });
    const p = (at: string) => c('PENDING', { due: at, reason: `due ${at}: x` });
    const sp = c('PASS', { reason: 'settled: …', settled: [settled('PASS')] });
    const table: [string, C[], Verdict][] = [
      ['PENDING alone → PENDING', [p(due)], 'PENDING'],
      ['a FAIL from any check wins over PENDING', [p(due), c('FAIL', { reason: 'x' })], 'FAIL'],
      ['a WARN wins over PENDING', [p(due), c('WARN', { reason: 'x' })], 'WARN'],
      ['BLOCKED wins over PENDING', [p(due), c('BLOCKED', { reason: 'x' })], 'BLOCKED'],
      [
        'PENDING beside a plain PASS of another check → PENDING (the pending part is not verified)',
        [c('PASS'), p(due)],
        'PENDING',
      ],
      [
        'PENDING beside a SKIP (the clock-based twin, or a settling check with nothing due) → PENDING',
        [c('SKIP', { reason: 'target has no clock control' }), p(due)],
        'PENDING',
      ],
      ['PENDING beside NOT_APPLICABLE → PENDING', [c('NOT_APPLICABLE'), p(due)], 'PENDING'],
      ['a PASS settlement beside an obligation recorded anew by another check → PASS', [sp, p(due)], 'PASS'],
      ["a PASS settlement beside the clock-based twin's SKIP → PASS", [sp, c('SKIP', { reason: 'no clock' })], 'PASS'],
      [
        'a FAIL (a FAIL settlement) wins over a PASS settlement',
        [sp, c('FAIL', { reason: 'accepted after expiry' })],
        'FAIL',
      ],
      [
        'a VOID settlement (SKIP) beside an obligation recorded anew → PENDING',
        [c('SKIP', { reason: 'not settled: revoked', settled: [settled('VOID')] }), p(due)],
        'PENDING',
      ],
      [
        'a VOID settlement alone → SKIP with its reason',
        [c('SKIP', { reason: 'not settled: revoked', settled: [settled('VOID')] })],
        'SKIP',
      ],
    ];
    for (const [name, checks, expected] of table)
      void test(name, () => assert.equal(requirementVerdict(checks).verdict, expected));

    void test('PENDING gives the earliest due time and its reason; a PASS settlement gives its detail and the next due time', () => {
      assert.deepEqual(requirementVerdict([p(later), p(due)]), { verdict: 'PENDING', due, reason: `due ${due}: x` });
      assert.deepEqual(requirementVerdict([sp, p(later)]), {
        verdict: 'PASS',
        reason: `settled: …; next obligation due ${later}`,
      });
    });
  });

  void describe('the report', () => {
    const catalogue: Requirement[] = [
      {
        id: 'STATE-AT-EXP-001',
        level: 'MUST',
        area: 'lifecycle',
        source: '§3',
        statement: 'An expired token is refused.',
        needs: ['clock-control'],
      },
      {
        id: 'STATE-RT-EXP-001',
        level: 'MUST',
        area: 'lifecycle',
        source: '§3',
        statement: 'An expired refresh token is refused.',
        needs: ['clock-control'],
      },
      {
        id: 'GRANT-CC-001',
        level: 'MUST',
        area: 'grants',
        source: '§4',
        statement: 'A client_credentials request succeeds.',
      },
    ];
    const options = {
      level: 'all' as const,
      filtered: false,
      strict: false,
      suiteVersion: '1.0.0',
      startedAt: new Date('2026-11-24T01:00:00Z'),
      durationMs: 10,
      target: { name: 't', local: true, interpretations: {} },
    };

    void test('PENDING requirements are counted with their due time; the run passes (PENDING does not decide it); the report is schema-valid', () => {
      const report = buildReport(
        catalogue,
        [
          outcome({ title: 'cc', requirementIds: ['GRANT-CC-001'] }),
          outcome({ title: 'expiry', requirementIds: ['STATE-AT-EXP-001'], pending: [pending('ob-1')] }),
          outcome({
            title: 'rt expiry',
            requirementIds: ['STATE-RT-EXP-001'],
            status: 'skipped',
            pending: [pending('ob-2', later)],
          }),
        ],
        options,
      );
      const byId = Object.fromEntries(report.requirements.map((r) => [r.id, r]));
      assert.equal(byId['STATE-AT-EXP-001']!.verdict, 'PENDING');
      assert.equal(byId['STATE-AT-EXP-001']!.due, due);
      assert.deepEqual(byId['STATE-AT-EXP-001']!.checks[0]!.pending, [pending('ob-1')]);
      assert.equal(report.summary.PENDING, 2);
      assert.equal(report.verdict, 'PASS');
      const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
      const ajv = new Ajv2020({ strict: true, allErrors: true });
      addFormats(ajv);
      const validate = ajv.compile(conformanceReportJsonSchema());
      assert.ok(validate(report), JSON.stringify(validate.errors));
    });

    void test('settlements reach the requirement: PASS/FAIL with the recorded/settled times, VOID as SKIP with the reason', () => {
      const report = buildReport(
        catalogue,
        [
          outcome({ title: 'settle expiry', requirementIds: ['STATE-AT-EXP-001'], settled: [settled('PASS')] }),
          outcome({ title: 'expiry', requirementIds: ['STATE-AT-EXP-001'], pending: [pending('ob-3', later)] }),
          outcome({
            title: 'settle rt',
            requirementIds: ['STATE-RT-EXP-001'],
            status: 'failed',
            error: 'e',
            broke: [{ id: 'STATE-RT-EXP-001', message: 'refreshed after 7 days' }],
            settled: [settled('FAIL', 'ob-2')],
          }),
          outcome({ title: 'settle cc', requirementIds: ['GRANT-CC-001'], settled: [settled('VOID', 'ob-4')] }),
        ],
        options,
      );
      const byId = Object.fromEntries(report.requirements.map((r) => [r.id, r]));
      assert.equal(byId['STATE-AT-EXP-001']!.verdict, 'PASS');
      assert.match(
        byId['STATE-AT-EXP-001']!.reason ?? '',
        /^settled: refused with 401 \(obligation ob-1 recorded in run run-1 at 2026-11-24T01:00:00.000Z, settled at 2026-11-24T02:01:00.000Z\); next obligation due 2026-11-24T09:00:00.000Z$/,
      );
      assert.equal(byId['STATE-AT-EXP-001']!.settled?.[0]?.outcome, 'PASS');
      assert.equal(byId['STATE-RT-EXP-001']!.verdict, 'FAIL');
      assert.match(
        byId['STATE-RT-EXP-001']!.reason ?? '',
        /^refreshed after 7 days \(obligation ob-2 recorded in run run-1/,
      );
      assert.equal(byId['GRANT-CC-001']!.verdict, 'SKIP');
      assert.match(byId['GRANT-CC-001']!.reason ?? '', /^not settled: the password changed/);
      assert.equal(report.verdict, 'FAIL');
    });

    void test('an obligation settled anywhere in the run (a shard, a pass) is no longer pending anywhere in it', () => {
      const report = buildReport(
        catalogue,
        [
          outcome({
            title: 'settle',
            requirementIds: ['STATE-AT-EXP-001'],
            settled: [settled('FAIL', 'ob-1')],
            status: 'failed',
            error: 'accepted',
          }),
          outcome({ title: 'expiry', requirementIds: ['STATE-AT-EXP-001'], pending: [pending('ob-1')] }),
          outcome({
            title: 'rt',
            requirementIds: ['STATE-RT-EXP-001'],
            pending: [pending('ob-1'), pending('ob-5', later)],
          }),
        ],
        options,
      );
      const byId = Object.fromEntries(report.requirements.map((r) => [r.id, r]));
      assert.equal(byId['STATE-AT-EXP-001']!.verdict, 'FAIL');
      assert.equal(
        byId['STATE-AT-EXP-001']!.checks.find((x) => x.title === 'expiry')!.verdict,
        'PASS',
        'its obligation is settled: nothing left pending',
      );
      assert.equal(byId['STATE-RT-EXP-001']!.verdict, 'PENDING');
      assert.equal(byId['STATE-RT-EXP-001']!.due, later);
    });

    void test('an unreadable annotation is listed in the report as a defect, and its check is not verified', () => {
      const report = buildReport(
        catalogue,
        [
          outcome({
            title: 'expiry',
            requirementIds: ['STATE-AT-EXP-001'],
            malformed: [{ type: 'pending', problem: 'due: Invalid ISO datetime' }],
          }),
        ],
        options,
      );
      assert.deepEqual(report.malformedAnnotations, [
        { check: 'expiry', type: 'pending', problem: 'due: Invalid ISO datetime' },
      ]);
      assert.equal(report.requirements.find((r) => r.id === 'STATE-AT-EXP-001')!.verdict, 'SKIP');
      assert.match(
        renderSummary(report),
        /reporter error: unreadable 'pending' annotation \(due: Invalid ISO datetime\) on expiry/,
      );
    });
  });

  void describe('what the reporter reads: pending and settled annotations, validated', () => {
    const redactor = new Redactor();
    void test('valid annotations are read; an annotation twice counts once', () => {
      const annotations = [
        { type: 'pending', description: JSON.stringify(pending('ob-2')) },
        { type: 'pending', description: JSON.stringify(pending('ob-2')) },
        { type: 'settled', description: JSON.stringify(settled('PASS')) },
      ];
      assert.deepEqual(obligationAnnotations(annotations, redactor), {
        pending: [pending('ob-2')],
        settled: [settled('PASS')],
        malformed: [],
      });
      const more = obligationAnnotations(
        [{ type: 'pending', description: JSON.stringify({ ...pending('ob-2'), recordedRun: 'run-2' }) }],
        redactor,
      );
      assert.deepEqual(
        more,
        { pending: [pending('ob-2')], settled: [], malformed: [] },
        'a field the reporter does not know is dropped, not an error',
      );
    });
    void test('a malformed one is kept as a reporter error with what is wrong, never dropped', () => {
      const r = obligationAnnotations(
        [
          { type: 'pending', description: 'not json' },
          { type: 'pending', description: JSON.stringify({ obligation: 'ob', due: 'tomorrow', what: 'x' }) },
          { type: 'settled', description: JSON.stringify({ ...settled('PASS'), outcome: 'MAYBE' }) },
          { type: 'pending' },
        ],
        redactor,
      );
      assert.deepEqual(r.pending, []);
      assert.deepEqual(r.settled, []);
      assert.equal(r.malformed.length, 4);
      assert.match(r.malformed[0]!.problem, /^not JSON/);
      assert.match(r.malformed[1]!.problem, /^due: /);
      assert.match(r.malformed[2]!.problem, /^not JSON/, 'a pending annotation without a description');
      assert.equal(r.malformed[3]!.type, 'settled');
      assert.match(r.malformed[3]!.problem, /^outcome: /);
    });
    void test('checkOutcome carries them from a Playwright result (annotations pushed during the test)', () => {
      const fake = (annotations: { type: string; description?: string }[], status: 'passed' | 'skipped' = 'passed') =>
        ({
          annotations: [{ type: 'requirement', description: 'STATE-AT-EXP-001' }],
          results: [{ status, duration: 5, errors: [], annotations, attachments: [], retry: 0 }],
          location: { file: join(repoRoot, 'specs', 'lifecycle', 'access-token.spec.ts') },
          parent: { project: () => ({ name: 'time-travel' }) },
          titlePath: () => ['', 'time-travel', 'specs/lifecycle/access-token.spec.ts', 'expiry'],
        }) as unknown as TestCase;
      const recorded = checkOutcome(
        fake([{ type: 'pending', description: JSON.stringify(pending('ob-2')) }]),
        redactor,
      );
      assert.deepEqual(recorded.pending, [pending('ob-2')]);
      assert.equal(checkVerdict(recorded, 'MUST', 'STATE-AT-EXP-001').verdict, 'PENDING');
      const broken = checkOutcome(fake([{ type: 'settled', description: '{"obligation":"ob-1"}' }]), redactor);
      assert.equal(broken.settled, undefined);
      assert.equal(broken.malformed?.length, 1);
      const twice = {
        ...fake([{ type: 'pending', description: '{"obligation":"x"}' }]),
        annotations: [
          { type: 'requirement', description: 'STATE-AT-EXP-001' },
          { type: 'pending', description: '{"obligation":"x"}' },
        ],
      } as unknown as TestCase;
      assert.equal(
        checkOutcome(twice, redactor).malformed?.length,
        1,
        'listed on the test and on its result (as Playwright does): reported once',
      );
      assert.match(broken.malformed?.[0]?.problem ?? '', /recordedRun/);
      assert.equal(checkVerdict(broken, 'MUST', 'STATE-AT-EXP-001').verdict, 'SKIP', 'not taken as verified');
      assert.equal(checkOutcome(fake([]), redactor).pending, undefined);
      // Playwright 1.65 gives the test and its result the same annotation objects.
      const counted = [
        { type: 'requirement', description: 'STATE-AT-EXP-001' },
        { type: 'requests', description: '7' },
      ];
      const shared = { ...fake(counted), annotations: counted } as unknown as TestCase;
      assert.equal(
        checkOutcome(shared, redactor).requests,
        7,
        'the requests annotation on the test and its result: counted once',
      );
    });

    void test('free text is redacted as a value', () => {
      const withSecret = new Redactor();
      withSecret.add('s3cr3t-value-123456');
      const r = obligationAnnotations(
        [
          {
            type: 'settled',
            description: JSON.stringify({ ...settled('FAIL'), reason: 'accepted s3cr3t-value-123456' }),
          },
        ],
        withSecret,
      );
      assert.doesNotMatch(r.settled[0]!.reason!, /s3cr3t-value-123456/);
    });
  });

  void describe('JUnit and the terminal', () => {
    void test('a PENDING check (passed in Playwright) is skipped in JUnit with a message naming the due time', () => {
      const message = junitSkipMessage(outcome({ pending: [pending('ob-2')] }));
      assert.equal(
        message,
        `PENDING: due ${due}: the access token is refused with 401 once expires_in + skew has passed`,
      );
      const out = renderJunit(
        [
          {
            name: 'lifecycle/a.spec.ts',
            project: 'time-travel',
            cases: [
              {
                name: 'expiry',
                classname: 'lifecycle/a.spec.ts',
                timeSeconds: 0.1,
                properties: [],
                outcome: { kind: 'skipped', message: message },
              },
              {
                name: 'other',
                classname: 'lifecycle/a.spec.ts',
                timeSeconds: 0.1,
                properties: [],
                outcome: { kind: 'passed' },
              },
            ],
          },
        ],
        new Date(),
        1000,
      );
      assert.match(
        out,
        /<testcase name="expiry"[^>]*>\n<skipped message="PENDING: due 2026-11-24T03:00:00.000Z: [^"]*">/,
      );
      assert.match(out, /<testsuites [^>]*failures="0" skipped="1"/);
      assert.match(
        junitSkipMessage(outcome({ settled: [settled('VOID')] })) ?? '',
        /^SKIP: not settled: the password changed/,
      );
      assert.equal(
        junitSkipMessage(outcome({ settled: [settled('PASS')] })),
        undefined,
        'a PASS settlement stays a pass',
      );
      assert.equal(junitSkipMessage(outcome({})), undefined);
      assert.equal(
        junitSkipMessage(outcome({ status: 'failed', pending: [pending('ob-2')] })),
        undefined,
        'a failure stays a failure',
      );
    });

    void test('the closing line counts PENDING with the earliest due time; the pending and settled lines name them', () => {
      const report = buildReport(
        [
          { id: 'STATE-AT-EXP-001', level: 'MUST', area: 'lifecycle', source: '§3', statement: 's' },
          { id: 'STATE-RT-EXP-001', level: 'MUST', area: 'lifecycle', source: '§3', statement: 's' },
          { id: 'STATE-AT-EXP-002', level: 'MUST', area: 'lifecycle', source: '§3', statement: 's' },
        ],
        [
          outcome({ title: 'a', requirementIds: ['STATE-AT-EXP-001'], pending: [pending('ob-2', later)] }),
          outcome({ title: 'b', requirementIds: ['STATE-RT-EXP-001'], pending: [pending('ob-3', due)] }),
          outcome({ title: 'c', requirementIds: ['STATE-AT-EXP-002'], settled: [settled('PASS')] }),
        ],
        {
          level: 'all',
          filtered: false,
          strict: false,
          suiteVersion: '1',
          startedAt: new Date(),
          durationMs: 1,
          target: { name: 't', local: true, interpretations: {} },
        },
      );
      const text = renderSummary(report);
      assert.match(
        text,
        /CONFORMANCE PASS: 1 PASS, 0 FAIL, 0 WARN, 0 BLOCKED, 2 PENDING \(earliest due 2026-11-24T03:00:00.000Z\), 0 SKIP/,
      );
      assert.match(
        text,
        /Pending \(obligations recorded in the state file[^\n]*\n +1 × due 2026-11-24T03:00:00.000Z: STATE-RT-EXP-001\n +1 × due 2026-11-24T09:00:00.000Z: STATE-AT-EXP-001/,
      );
      assert.match(
        text,
        /Settled[^\n]*\n +PASS STATE-AT-EXP-002 +recorded in run run-1 at 2026-11-24T01:00:00.000Z, settled at 2026-11-24T02:01:00.000Z/,
      );
      const html = renderTraceability(report);
      assert.match(html, /<h2 id="pending">Pending \(2, earliest due 2026-11-24T03:00:00.000Z\)<\/h2>/);
      assert.match(
        html,
        /settled PASS: obligation ob-1 recorded in run run-1 at 2026-11-24T01:00:00.000Z, settled at 2026-11-24T02:01:00.000Z/,
      );
      assert.doesNotMatch(
        html.slice(html.indexOf('id="attention"'), html.indexOf('id="pending"')),
        /STATE-RT-EXP-001/,
        'PENDING is not "needs attention"',
      );
    });
  });
});
