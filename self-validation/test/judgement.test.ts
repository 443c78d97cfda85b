// How a fault run is judged and how coverage is counted: property checks detect the breaks they
// cite and are false alarms when they cite none; coverage asks FAIL of MUST/INTERPRETATION and
// WARN of SHOULD/ADVISORY; --full selects every check and the CI grep takes property checks only
// for the faults aimed at them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ConformanceReport } from '../../harness/reporter/report.schema.ts';
import type { CheckOutcome } from '../../harness/reporter/verdict.ts';
import type { Fault } from '../fault.ts';
import { faults } from '../faults/index.ts';
import { brokenVerdict } from '../../requirements/levels.ts';
import { grepFor, planFor, sentinels, type CleanCheck } from '../run/fault-selection.ts';
import { judge } from '../run/judge.phase.ts';
import { coverageOf } from '../run/matrix.phase.ts';

const fault = (over: Partial<Fault>): Fault => ({
  id: 'f',
  title: 'f',
  breaks: ['TOKEN-REQ-003'],
  create: () => ({}),
  ...over,
});
const report = (verdicts: Record<string, string>): ConformanceReport =>
  ({
    requirements: Object.entries(verdicts).map(([id, verdict]) => ({ id, verdict, checks: [] })),
  }) as unknown as ConformanceReport;
const outcome = (
  title: string,
  ids: string[],
  status: CheckOutcome['status'],
  file = 'specs/x.spec.ts',
): CheckOutcome => ({ title, file, requirementIds: ids, status, durationMs: 1 });
const property = (ids: string[], status: CheckOutcome['status']) =>
  outcome('specs/properties/p.spec.ts › property', ids, status, 'specs/properties/p.spec.ts');

void describe('self-validation: judging a fault run', () => {
  void test('a failed property check citing a break detects it, even where the scripted check passes', () => {
    const j = judge(
      fault({}),
      report({ 'TOKEN-REQ-003': 'PASS' }),
      [],
      [property(['TOKEN-REQ-003', 'ERR-TOK-001'], 'failed')],
    );
    assert.equal(j.detected, true);
    assert.deepEqual(j.falseAlarms, []);
    assert.equal(j.caughtBy.length, 1);
    assert.equal(j.caughtBy[0]!.property, true);
  });

  void test('under an assumption fault a property check detects only what it reads WARN; a FAIL on the undeclared choice is a false alarm', () => {
    const assumption = fault({ breaks: ['TOKEN-REQ-001'], undeclare: ['nonPostTokenRequest'], breaksAs: 'WARN' });
    const withLevels = (verdict: string): ConformanceReport =>
      ({
        target: { name: 't', local: true, interpretations: {} },
        requirements: [{ id: 'TOKEN-REQ-001', level: 'MUST', interpretation: 'OI-12', verdict, checks: [] }],
      }) as unknown as ConformanceReport;
    const broke = [{ id: 'TOKEN-REQ-001', message: 'GET answered 404, expected 405' }];
    const warned = {
      ...property(['TOKEN-REQ-001'], 'failed'),
      broke,
      assumed: [
        {
          choice: 'nonPostTokenRequest=405',
          declare: 'interpretations.nonPostTokenRequest',
          requirements: ['TOKEN-REQ-001'],
        },
      ],
    };
    const ok = judge(assumption, withLevels('PASS'), [], [warned]);
    assert.equal(ok.detected, true);
    assert.deepEqual(ok.falseAlarms, []);
    const failed = judge(assumption, withLevels('PASS'), [], [{ ...property(['TOKEN-REQ-001'], 'failed'), broke }]);
    assert.equal(failed.detected, false);
    assert.deepEqual(
      failed.falseAlarms.map((f) => f.id),
      ['property FAILs TOKEN-REQ-001 on an undeclared choice: specs/properties/p.spec.ts › property'],
    );
    // An INTERPRETATION on an undeclared choice reads WARN as in the report, without an annotation.
    const interpretation = fault({
      breaks: ['STATE-AT-AFTER-REFRESH-001'],
      undeclare: ['accessTokenAfterRefresh'],
      breaksAs: 'WARN',
    });
    const lifecycle = {
      target: { name: 't', local: true, interpretations: {} },
      requirements: [
        {
          id: 'STATE-AT-AFTER-REFRESH-001',
          level: 'INTERPRETATION',
          interpretation: 'OI-15',
          verdict: 'WARN',
          checks: [],
        },
      ],
    } as unknown as ConformanceReport;
    const model = {
      ...property(['STATE-AT-AFTER-REFRESH-001'], 'failed'),
      broke: [{ id: 'STATE-AT-AFTER-REFRESH-001', message: 'the earlier access token was refused' }],
    };
    const j = judge(interpretation, lifecycle, [], [model]);
    assert.equal(j.detected, true);
    assert.deepEqual(j.falseAlarms, []);
  });

  void test('a passing property check detects nothing; the break is missed', () => {
    const j = judge(fault({}), report({ 'TOKEN-REQ-003': 'PASS' }), [], [property(['TOKEN-REQ-003'], 'passed')]);
    assert.equal(j.detected, false);
    assert.deepEqual(j.missed, [{ id: 'TOKEN-REQ-003', verdict: 'PASS' }]);
  });

  void test('a BLOCKED whose blocker FAILs nowhere in the run is a false alarm; one whose blocker FAILs, or a property check found broken, is not', () => {
    const blockedBy = (by: string): ConformanceReport => {
      const r = report({ 'TOKEN-REQ-003': 'FAIL', 'GRANT-RT-001': 'PASS', 'STATE-RT-USED-002': 'BLOCKED' });
      r.requirements
        .find((x) => x.id === 'STATE-RT-USED-002')!
        .checks.push({ title: 'chain', verdict: 'BLOCKED', durationMs: 1, blockedBy: [by] });
      return r;
    };
    const j = judge(fault({}), blockedBy('GRANT-RT-001'));
    assert.deepEqual(
      j.falseAlarms.map((f) => f.id),
      ['unjudged BLOCKED: STATE-RT-USED-002'],
    );
    assert.match(j.falseAlarms[0]!.reason ?? '', /BLOCKED by GRANT-RT-001 \(PASS\)/);
    assert.deepEqual(judge(fault({}), blockedBy('TOKEN-REQ-003')).falseAlarms, []);
    assert.deepEqual(
      judge(fault({}), blockedBy('GRANT-RT-001'), [], [property(['GRANT-RT-001'], 'failed')]).falseAlarms.filter((f) =>
        f.id.startsWith('unjudged'),
      ),
      [],
    );
  });

  void test('a failed property check citing none of the breaks and collateral is a false alarm', () => {
    const j = judge(
      fault({}),
      report({ 'TOKEN-REQ-003': 'FAIL' }),
      [outcome('TOKEN-REQ-003 x', ['TOKEN-REQ-003'], 'failed')],
      [property(['BEARER-002'], 'failed')],
    );
    assert.equal(j.detected, true);
    assert.equal(j.falseAlarms.length, 1);
    assert.match(j.falseAlarms[0]!.id, /^property: /);
  });

  void test('moved lists every FAIL/WARN requirement; caughtBy the failed checks citing one of them', () => {
    const j = judge(fault({}), report({ 'TOKEN-REQ-003': 'FAIL', 'BEARER-001': 'WARN', 'VER-001': 'PASS' }), [
      outcome('a', ['TOKEN-REQ-003'], 'failed'),
      outcome('b', ['VER-001'], 'passed'),
      outcome('c', ['BEARER-001'], 'failed'),
    ]);
    assert.deepEqual(j.moved, ['TOKEN-REQ-003', 'BEARER-001']);
    assert.deepEqual(
      j.caughtBy.map((c) => c.title),
      ['a', 'c'],
    );
    assert.deepEqual(
      j.falseAlarms.map((a) => a.id),
      ['BEARER-001'],
    );
  });
});

void describe('self-validation: coverage of every requirement', () => {
  const requirements = [
    { id: 'M', level: 'MUST' },
    { id: 'I', level: 'INTERPRETATION' },
    { id: 'S', level: 'SHOULD' },
    { id: 'A', level: 'ADVISORY' },
    { id: 'T', level: 'MUST' },
  ];
  void test('FAIL turns MUST and INTERPRETATION, WARN turns SHOULD and ADVISORY; the wrong verdict does not count', () => {
    assert.equal(brokenVerdict('INTERPRETATION'), 'FAIL');
    assert.equal(brokenVerdict('ADVISORY'), 'WARN');
    const results = [
      {
        detected: true,
        breaks: ['M', 'I', 'S', 'A'],
        verdicts: { M: 'FAIL', I: 'FAIL', S: 'WARN', A: 'FAIL' },
        caughtBy: [],
      },
    ];
    const c = coverageOf(requirements, results, { T: 'no fault can reach it' });
    assert.deepEqual(c.reached, ['M', 'I', 'S']);
    assert.deepEqual(c.unreachedWithReason, [{ id: 'T', reason: 'no fault can reach it' }]);
    assert.deepEqual(c.unreachedWithoutReason, ['A']);
    assert.deepEqual(c.byLevel.MUST, { total: 2, reached: 1 });
  });

  void test('an undetected fault turns nothing; a property catch turns the breaks it cites', () => {
    const missed = coverageOf(
      requirements,
      [{ detected: false, breaks: ['M'], verdicts: { M: 'FAIL' }, caughtBy: [] }],
      {},
    );
    assert.deepEqual(missed.reached, []);
    const byProperty = coverageOf(
      requirements,
      [
        {
          detected: true,
          breaks: ['M'],
          verdicts: { M: 'PASS' },
          caughtBy: [{ title: 'p', requirementIds: ['M'], property: true }],
        },
      ],
      {},
    );
    assert.deepEqual(byProperty.reached, ['M']);
  });

  void test('every fault of the catalogue names at least one break, and a declaration fault declares something', () => {
    for (const f of faults) {
      assert.ok(f.breaks.length > 0, f.id);
      if (f.declare) assert.ok(Object.keys(f.declare).length > 0, f.id);
    }
  });
});

void describe('self-validation: selection by mode', () => {
  const propertyTitle = 'property: input @TOKEN-REQ-003 @ERR-TOK-001 @property-token-endpoint-input @serial';
  void test('CI mode takes a property check only for a fault aimed at it, and only one citing its breaks or alsoRun', () => {
    assert.ok(!new RegExp(grepFor(fault({}))).test(propertyTitle));
    assert.ok(new RegExp(grepFor(fault({ withProperties: true }))).test(propertyTitle));
    assert.ok(!new RegExp(grepFor(fault({ breaks: ['BEARER-002'], withProperties: true }))).test(propertyTitle));
    // …or one citing an ID of its alsoRun.
    assert.ok(
      new RegExp(grepFor(fault({ breaks: ['BEARER-002'], alsoRun: ['TOKEN-REQ-003'], withProperties: true }))).test(
        propertyTitle,
      ),
    );
    // Its scripted selection is unchanged, sentinels included.
    assert.ok(
      new RegExp(grepFor(fault({ withProperties: true }))).test(
        `x › ${sentinels.find((s) => s.id === 'BEARER-001')!.title} y @BEARER-001`,
      ),
    );
    assert.ok(!new RegExp(grepFor(fault({ withProperties: true }))).test('quota @ERR-GW-2000 @TOKEN-REQ-003'));
  });

  void test('full mode selects every check, property and quota checks included, and plans both passes', () => {
    const re = new RegExp(grepFor(fault({}), 'full'));
    for (const t of [propertyTitle, 'quota @ERR-GW-2000', 'anything @VER-001']) assert.ok(re.test(t), t);
    const clean: CleanCheck[] = [
      { title: 'a', file: 'specs/a.spec.ts', project: 'conformance', requirementIds: ['VER-001'] },
      { title: 'b', file: 'specs/properties/b.spec.ts', project: 'time-travel', requirementIds: ['TOKEN-REQ-003'] },
    ];
    const plan = planFor(fault({}), clean, 'full');
    assert.equal(plan.checks, 2);
    assert.deepEqual(plan.passes, ['conformance', 'time-travel']);
  });
});
