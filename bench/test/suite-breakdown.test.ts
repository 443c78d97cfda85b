// Where a suite run's time goes: the phases `run --timings` printed, the checks per project and the
// slowest, the distant run's extra time per check; and RESULTS.md renders them (a run without
// --timings says so, a --suite-only run has no throughput row).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BenchUsageError, parseBenchArgs } from '../bench-options.ts';
import { extraTimes, parsePhases, projectSums, slowestChecks } from '../harness/suite-breakdown.ts';
import type { CheckCost, SuiteRun } from '../harness/suite-runs.ts';
import { closingNote, goalLines, renderResults, type BenchRun } from '../results-markdown.ts';

const check = (project: string, title: string, durationMs: number, requests = 1): CheckCost => ({
  key: `${project} › ${title}`,
  project,
  durationMs,
  requests,
  status: 'passed',
});
const phases = 'phases: profile 0.1 s, reference start 2.0 s, checks 10.5 s, report verification 0.4 s (total 13.2 s)';

void describe('suite breakdown', () => {
  void test('the phase line as figures; anything else is none', () => {
    assert.deepEqual(parsePhases(phases), {
      phases: [
        { phase: 'profile', seconds: 0.1 },
        { phase: 'reference start', seconds: 2 },
        { phase: 'checks', seconds: 10.5 },
        { phase: 'report verification', seconds: 0.4 },
      ],
      totalSeconds: 13.2,
    });
    assert.equal(parsePhases(undefined), undefined);
    assert.equal(parsePhases('phases: profile fast (total 1.0 s)'), undefined);
  });

  void test('checks summed per project, the longest of each; the slowest overall', () => {
    const checks = [
      check('conformance', 'a', 100, 2),
      check('conformance', 'b', 300, 5),
      check('time-travel', 'c', 1000, 40),
    ];
    const sums = projectSums(checks);
    assert.deepEqual(
      sums.map((s) => [s.project, s.checks, s.seconds, s.requests, s.longest?.key]),
      [
        ['time-travel', 1, 1, 40, 'time-travel › c'],
        ['conformance', 2, 0.4, 7, 'conformance › b'],
      ],
    );
    assert.deepEqual(
      slowestChecks(checks, 2).map((c) => c.key),
      ['time-travel › c', 'conformance › b'],
    );
  });

  void test('extra time of the distant run per check, most first, in round trips of 2 × delay', () => {
    const local = [check('conformance', 'a', 100), check('time-travel', 'c', 1000)];
    const distant = [
      check('conformance', 'a', 100 + 40 * 3),
      check('time-travel', 'c', 1000 + 40 * 50),
      check('conformance', 'only-here', 5000),
    ];
    const extra = extraTimes(local, distant, 20);
    assert.deepEqual(
      extra.map((e) => [e.check.key, e.extraMs, e.roundTrips]),
      [
        ['time-travel › c', 2000, 50],
        ['conformance › a', 120, 3],
      ],
    );
  });
});

const start = (over: Partial<SuiteRun> = {}): SuiteRun => ({
  command: 'npm start (token-conformance run --target profiles/reference.json --start-reference)',
  seconds: 14,
  exitCode: 0,
  log: 'x',
  cpuSeconds: 21,
  checks: [
    check('conformance', 'specs/a.spec.ts › a', 900, 3),
    check('time-travel', 'specs/q.spec.ts › quota', 5000, 1069),
  ],
  verdicts: '136 PASS, 1 NOT_APPLICABLE',
  ...over,
});
const bench = (timings: SuiteRun[], distant?: BenchRun['distant']): BenchRun => ({
  startedAt: new Date(0),
  finishedAt: new Date(1000),
  command: 'npm run bench -- --suite-only',
  machine: { cpuModel: 'cpu', cpuCount: 2, node: 'v20', niceness: 0 },
  loadStart: '0',
  loadEnd: '0',
  pinned: true,
  durationS: 1,
  rounds: 1,
  warmupS: 0,
  connections: 1,
  versions: {},
  rows: [],
  timings,
  ...(distant && { distant }),
});

void describe('RESULTS.md: the suite', () => {
  void test('the phases of one npm start, its CPU time, the checks per project and the slowest', () => {
    const text = renderResults(bench([start({ phases })]));
    assert.match(text, /### Where one `npm start`'s time goes/);
    assert.match(text, /\| reference start \| 2\.0 s \| 15% \|/);
    assert.match(text, /\| total \| 13\.2 s \| \|/);
    assert.match(text, /21\.0 CPU-s/);
    assert.match(text, /\| time-travel \| 1 \| 5\.0 s \| 1,069 \| specs\/q\.spec\.ts › quota \(5\.0 s\) \|/);
    assert.match(text, /\| specs\/q\.spec\.ts › quota \| time-travel \| 5\.0 s \| 1,069 \|/);
    assert.match(text, /no throughput row in this run \(`--suite-only`\)/);
    assert.doesNotMatch(text, /has no `--timings`/);
  });

  void test('a run that printed no phases says so', () => {
    assert.match(renderResults(bench([start()])), /this version's `run` has no `--timings`/);
  });

  void test("the distant run beside the local one: both runs' phases, the extra time per check and the goal", () => {
    const local = start({ phases });
    const far: SuiteRun & { proxyConnections: number } = {
      ...start({ phases: 'phases: profile 0.1 s, reference start 0.0 s, checks 20.0 s (total 21.0 s)', seconds: 21 }),
      proxyConnections: 90,
      checks: [
        check('conformance', 'specs/a.spec.ts › a', 900 + 40 * 10, 3),
        check('time-travel', 'specs/q.spec.ts › quota', 5000 + 40 * 30, 1069),
      ],
    };
    const run = bench([local], { delayMs: 20, run: far });
    const text = renderResults(run);
    assert.match(text, /\| reference start \| 2\.0 s \| 0\.0 s \|/);
    assert.match(text, /\| checks \| 10\.5 s \| 20\.0 s \|/);
    assert.match(text, /\| time-travel › specs\/q\.spec\.ts › quota \| 5\.0 s \| 6\.2 s \| 1\.2 s \| 30 \| 1,069 \|/);
    const goal = goalLines(run).find((g) => g.goal.includes('distant') || g.goal.includes('ms away'))!;
    assert.equal(goal.met, true);
    assert.match(goal.measured, /^1\.50×/);
  });
});

void describe('RESULTS.md: the distant target with clock sandboxes and with one clock', () => {
  void test('two goal lines saying which is which: like with like first, the one-clock figure with its floor; both rows rendered', () => {
    const local = start({ phases, seconds: 20 });
    const oneClock: SuiteRun & { proxyConnections: number } = {
      ...start({ seconds: 60 }),
      proxyConnections: 9,
      checks: [
        check('conformance', 'specs/a.spec.ts › a', 2000, 3),
        check('time-travel', 'specs/l.spec.ts › lifecycle', 18_000, 433),
        check('time-travel', 'specs/q.spec.ts › quota', 6000, 1069),
      ],
    };
    const sandboxes: SuiteRun & { proxyConnections: number } = { ...oneClock, seconds: 35 };
    const run: BenchRun = {
      ...bench([local], { delayMs: 20, clocks: 0, run: oneClock }),
      distantClocks: { delayMs: 20, clocks: 2, run: sandboxes },
    };
    // The reference behind the latency proxy (the independent target's distant goal is its own line).
    const goals = goalLines(run).filter(
      (g) => g.goal.startsWith('suite against a target') && g.goal.includes('ms away'),
    );
    assert.equal(goals.length, 2);
    assert.match(goals[0]!.goal, /with 2 clock sandboxes, like `npm start`'s 2 clock servers/);
    assert.match(goals[0]!.measured, /^1\.75× \(35\.0 s vs 20\.0 s/);
    assert.doesNotMatch(goals[0]!.measured, /floor/);
    assert.equal(goals[0]!.met, true);
    assert.match(goals[1]!.goal, /with the target's one clock/);
    assert.match(goals[1]!.measured, /^3\.00× .*floor: its 2 time-travel checks one after another, 24\.0 s/);
    assert.equal(goals[1]!.met, false);
    const text = renderResults(run);
    assert.match(text, /### Against a distant target \(20 ms each way, 2 clock sandboxes\)/);
    assert.match(text, /### Against a distant target \(20 ms each way, one clock\)/);
    assert.match(
      closingNote(run).find((l) => l.startsWith('Not met: suite against'))!,
      /one clock.*run one after another: 24\.0 s summed/,
    );
  });
});

void describe('RESULTS.md: the closing note', () => {
  void test('the goals met, those not measured, and for a missed suite goal what its figures say stands in the way', () => {
    const local = start({ phases, seconds: 20 });
    const far: SuiteRun & { proxyConnections: number } = {
      ...start({ seconds: 50 }),
      proxyConnections: 9,
      checks: [
        check('conformance', 'specs/a.spec.ts › a', 2000, 3),
        check('time-travel', 'specs/l.spec.ts › lifecycle', 18_000, 433),
        check('time-travel', 'specs/q.spec.ts › quota', 6000, 1069),
      ],
    };
    const chain = {
      check: 'time-travel › specs/l.spec.ts › lifecycle',
      roundTrips: 432,
      requests: 433,
      mostRequests: { check: 'q', requests: 1069 },
    };
    const note = closingNote(bench([local], { delayMs: 20, run: far, chain }));
    assert.match(note[0]!, /^Met: none\.$/);
    assert.match(note[1]!, /^Not measured in this run: token issuance/);
    const startLine = note.find((l) => l.startsWith('Not met: `npm start`'))!;
    assert.match(
      startLine,
      /its largest phase is checks \(10\.5 s\); its longest check specs\/q\.spec\.ts › quota \(5\.0 s, 1,069 requests\)/,
    );
    const distantLine = note.find((l) => l.startsWith('Not met: suite against a target') && l.includes('ms away'))!;
    assert.match(
      distantLine,
      /2\.50× .*the 2 time-travel checks run one after another: 24\.0 s summed.*432 round trips × 40 ms ≈ 17\.3 s, is time-travel › specs\/l\.spec\.ts › lifecycle/,
    );
    assert.match(renderResults(bench([local], { delayMs: 20, run: far, chain })), /## Closing note\n\n- Met: none\./);
  });

  void test('a missed wall-time goal that the CPU time alone rules out on this machine says so; one it does not, does not', () => {
    const selfValidation = (cpuSeconds: number): SuiteRun => ({
      ...start({ seconds: 70, cpuSeconds }),
      command: 'npm run self-validate',
      checks: [],
    });
    const cpuBound = closingNote(bench([start({ phases, seconds: 17, cpuSeconds: 30.5 }), selfValidation(104)]));
    assert.match(
      cpuBound.find((l) => l.startsWith('Not met: `npm start`'))!,
      /it used 30\.5 CPU-s, so on 2 cores it cannot end in under 15\.3 s even spread perfectly: 10 s needs at most 20 CPU-s \(where they go: bench\/SUITE-TIMING\.md, Session 7\); its largest phase is checks/,
    );
    assert.match(
      cpuBound.find((l) => l.startsWith('Not met: self-validation'))!,
      /it used 104\.0 CPU-s, so on 2 cores it cannot end in under 52\.0 s .*30 s needs at most 60 CPU-s \(where they go: self-validation\/README\.md, "Run time"\)\.$/,
    );
    const waiting = closingNote(bench([start({ phases, seconds: 17, cpuSeconds: 12 }), selfValidation(50)]));
    assert.doesNotMatch(
      waiting.find((l) => l.startsWith('Not met: `npm start`'))!,
      /CPU-s/,
    );
    assert.match(
      waiting.find((l) => l.startsWith('Not met: self-validation'))!,
      /^Not met: self-validation wall ≤ 30 s — 70\.0 s \(exit 0[^)]*\)\.$/,
    );
  });
});

void describe('bench options', () => {
  void test('--suite-only: no throughput rows, so neither --quick nor --only', () => {
    const o = parseBenchArgs(['--suite-only', '--suite', '--skip-self-validation'], 'out.md');
    assert.equal(o.suiteOnly, true);
    assert.equal(o.suite, true);
    assert.equal(o.skipSelfValidation, true);
    assert.throws(() => parseBenchArgs(['--suite-only', '--quick'], 'out.md'), BenchUsageError);
    assert.throws(() => parseBenchArgs(['--suite-only', '--only', 'ref'], 'out.md'), BenchUsageError);
  });
});
