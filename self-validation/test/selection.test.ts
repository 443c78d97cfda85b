// What a fault runs: the checks of its IDs and collateral (by `@<ID>` tag) and one sentinel check per path, never a
// property check unless the fault asks (judgement.test.ts); one pass unless a selected check is @clock/@serial; only the spec files needed.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseRunArgs } from '../../harness/commands/run.command.ts';
import type { Fault } from '../fault.ts';
import { faults } from '../faults/index.ts';
import { passGrep } from '../batch-plan.ts';
import { main } from '../run-self-validation.ts';
import {
  grepFor,
  planFor,
  selectedIds,
  sentinelProblems,
  sentinels,
  sentinelsOf,
  type CleanCheck,
} from '../run/fault-selection.ts';

const fault = (over: Partial<Fault>): Fault => ({
  id: 'f',
  title: 'f',
  breaks: ['TOKEN-REQ-002'],
  create: () => ({}),
  ...over,
});
const check = (title: string, file: string, project: string, ids: string[]): CleanCheck => ({
  title: `${file} › ${title}`,
  file,
  project,
  requirementIds: ids,
});

const clean: CleanCheck[] = [
  check('TOKEN-REQ-002 at US', 'specs/token-requests/media-type.spec.ts', 'conformance', ['TOKEN-REQ-002']),
  check('TOKEN-REQ-002x at US', 'specs/token-requests/other.spec.ts', 'conformance', ['TOKEN-REQ-0021']),
  check('STATE-AT-EXP-001 with the clock', 'specs/lifecycle/access-token.spec.ts', 'time-travel', ['STATE-AT-EXP-001']),
  check('property: token endpoint input', 'specs/properties/token-endpoint-input.spec.ts', 'time-travel', [
    'TOKEN-REQ-002',
    'ERR-TOK-004',
  ]),
  check('ERR-GW-2000 quota', 'specs/gateway/rate-limits.spec.ts', 'time-travel', ['ERR-GW-2000']),
  ...sentinels.map((s) => check(`${s.title} (the sentinel)`, `specs/sentinel/${s.id}.spec.ts`, 'conformance', [s.id])),
  ...sentinels.map((s) =>
    check(`${s.id} a sibling of the sentinel`, `specs/sentinel/${s.id}.spec.ts`, 'conformance', [s.id]),
  ),
];

void describe('self-validation: the selection of a fault', () => {
  void test('breaks, collateral, alsoRun and the sentinels; onlyChecksOf replaces them all', () => {
    const ids = selectedIds(fault({ collateral: { ids: ['ERR-TOK-001'], reason: 'r' }, alsoRun: ['VER-001'] }));
    for (const id of ['TOKEN-REQ-002', 'ERR-TOK-001', 'VER-001']) assert.ok(ids.includes(id), id);
    assert.equal(sentinelsOf(fault({})).length, 4);
    assert.deepEqual(selectedIds(fault({ onlyChecksOf: ['SEC-TLS-002'] })), ['SEC-TLS-002']);
    assert.deepEqual(sentinelsOf(fault({ onlyChecksOf: ['SEC-TLS-002'] })), []);
  });

  void test("a sentinel runs its one check, not its requirement's siblings; a fault citing that requirement runs them all", () => {
    const plan = planFor(fault({}), clean);
    for (const s of sentinels) {
      assert.ok(new RegExp(plan.grep).test(`sentinel › ${s.title} (the sentinel) @${s.id}`), s.id);
      assert.ok(!new RegExp(plan.grep).test(`sentinel › ${s.id} a sibling of the sentinel @${s.id}`), s.id);
      assert.ok(!new RegExp(plan.grep).test(`other › ${s.title} @OTHER-001`), `${s.id}: the title without its tag`);
    }
    assert.ok(
      new RegExp(grepFor(fault({ breaks: ['BEARER-001'] }))).test(
        'sentinel › BEARER-001 a sibling of the sentinel @BEARER-001',
      ),
    );
  });

  void test('each sentinel names exactly one check of the clean run', () => {
    assert.deepEqual(sentinelProblems(clean), []);
    assert.match(
      sentinelProblems(clean.filter((c) => !c.title.includes(sentinels[0]!.title))).join(),
      new RegExp(`${sentinels[0]!.id}.*names 0 checks`),
    );
  });

  void test('the grep matches whole @<ID> tags only, and never a @property- check or the quota check', () => {
    const re = new RegExp(grepFor(fault({})));
    assert.ok(re.test('media-type › TOKEN-REQ-002 at US @must @token-requests @TOKEN-REQ-002'));
    assert.ok(!re.test('other › x @must @TOKEN-REQ-0021'));
    assert.ok(!re.test('property: input @TOKEN-REQ-002 @property-token-endpoint-input @serial'));
    assert.ok(!re.test('quota @ERR-GW-2000 @TOKEN-REQ-002'));
    assert.ok(new RegExp(grepFor(fault({ breaks: ['ERR-GW-2000'] }))).test('quota @ERR-GW-2000'));
  });

  void test('plans one pass and only the spec files of the selected checks', () => {
    const plan = planFor(fault({}), clean);
    assert.deepEqual(plan.passes, ['conformance']);
    assert.equal(plan.checks, 1 + sentinels.length);
    assert.ok(plan.specs?.includes('specs/token-requests/media-type.spec.ts'));
    assert.ok(!plan.specs?.includes('specs/token-requests/other.spec.ts'));
    assert.ok(!plan.specs?.some((f) => f.startsWith('specs/properties/')));
  });

  void test('adds the time-travel pass only for a selected @clock/@serial check; without a clean run, everything', () => {
    assert.deepEqual(planFor(fault({ breaks: ['STATE-AT-EXP-001'] }), clean).passes, ['conformance', 'time-travel']);
    assert.deepEqual(planFor(fault({ onlyChecksOf: ['STATE-AT-EXP-001'] }), clean).passes, ['time-travel']);
    const blind = planFor(fault({}), undefined);
    assert.deepEqual(blind.passes, ['conformance', 'time-travel']);
    assert.equal(blind.specs, undefined);
    assert.equal(blind.checks, null);
  });

  void test('every fault of the catalogue has a unique id and selects its breaks', () => {
    assert.equal(new Set(faults.map((f) => f.id)).size, faults.length);
    for (const f of faults) for (const id of f.breaks) assert.ok(selectedIds(f).includes(id), `${f.id} selects ${id}`);
  });
});

void describe('run: --passes and --spec', () => {
  void test('parses the passes in run order and the spec files', () => {
    const o = parseRunArgs([
      '--target',
      't.json',
      '--passes',
      'time-travel,conformance',
      '--spec',
      'specs/a.spec.ts',
      '--spec',
      'specs/b.spec.ts',
    ]);
    assert.ok(o !== 'help');
    assert.deepEqual(o.passes, ['conformance', 'time-travel']);
    assert.deepEqual(o.specs, ['specs/a.spec.ts', 'specs/b.spec.ts']);
    const d = parseRunArgs(['--target', 't.json']);
    assert.ok(d !== 'help' && d.passes === undefined && d.specs === undefined);
    assert.throws(() => parseRunArgs(['--target', 't.json', '--passes', 'clock']), /--passes/);
  });

  void test('a batch project runs its selection, split at the @clock/@serial line by pass', () => {
    const selection = grepFor(fault({}));
    const conformance = passGrep('conformance', selection);
    const timeTravel = passGrep('time-travel', selection);
    const plain = 'media-type › TOKEN-REQ-002 at US @must @token-requests @TOKEN-REQ-002';
    const clocked = 'lifecycle › TOKEN-REQ-002 after an hour @must @TOKEN-REQ-002 @clock';
    assert.ok(conformance.test(plain) && !conformance.test(clocked));
    assert.ok(timeTravel.test(clocked) && !timeTravel.test(plain));
    const all = passGrep('all', selection);
    assert.ok(all.test(plain) && all.test(clocked), 'one batch for both sides: the selection alone');
    for (const re of [conformance, timeTravel, all]) {
      assert.ok(!re.test('other › x @must @TOKEN-REQ-0021 @serial'), 'outside the selection in either pass');
      assert.ok(
        !re.test('property: input @TOKEN-REQ-002 @property-token-endpoint-input @serial'),
        'never a property check',
      );
    }
  });

  void test('a usage mistake is refused before anything of the previous run is removed', async () => {
    const out = mkdtempSync(join(tmpdir(), 'tc-sv-usage-'));
    try {
      mkdirSync(join(out, 'runs', 'previous'), { recursive: true });
      await assert.rejects(main(['--only', 'no-such-fault', '--out', out]), /--only: no fault 'no-such-fault'/);
      await assert.rejects(main(['--workers', '0', '--out', out]), /--workers must be a positive integer/);
      assert.ok(existsSync(join(out, 'runs', 'previous')), 'the previous run is still there');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
