// Merging a sharded run: the suite in 2 shards against the reference server, merged, equals the
// unsharded run per requirement (verdict and checks); verdicts are recomputed from all checks, not
// concatenated; mismatched inputs are refused with a clear error; JUnit files join per spec file.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { loadCatalogue } from '../../core/catalogue/catalogue.ts';
import { mergeMain } from '../commands/merge.command.ts';
import { runMain } from '../commands/run.command.ts';
import { mergeJunit, mergeReports, mismatches, readShard } from '../merge/merge.ts';
import { applyWaivers } from '../waivers/waivers.ts';
import type { ChecksFile } from '../reporter/conformance.reporter.ts';
import type { ConformanceReport } from '../reporter/report.schema.ts';
import { buildReport, type CheckOutcome } from '../reporter/verdict.ts';
import { temporaryDirectory } from './support/temporary-directory.ts';

const root = join(import.meta.dirname, '..', '..');
const profile = join(root, 'profiles', 'reference.json');
/** Two requirements with two checks each (split across the shards), one more, and a quick time-travel check (fault control, not paced in real time: robust on a loaded machine). */
const grep = '@TOKEN-RESP-00[12]|@GRANT-CC-010|@ERR-GW-1003';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;
/** What must match per requirement: its verdict and its checks (title, project, verdict). */
const perRequirement = (r: ConformanceReport) =>
  Object.fromEntries(
    r.requirements.map((q) => [
      q.id,
      { verdict: q.verdict, checks: q.checks.map((c) => `${c.project ?? ''} ${c.verdict} ${c.title}`) },
    ]),
  );

void describe('merge: 2 shards against the reference server equal the unsharded run', () => {
  const dir = temporaryDirectory('tc-merge-');
  const shard = (i: number) => join(dir, `shard-${i}`);
  const run = async (reports: string, extra: string[]) => {
    const c = capture();
    const code = await runMain(
      ['--target', profile, '--start-reference', '--grep', grep, '--reports', reports, ...extra],
      c.io,
    );
    assert.equal(code, 0, [...c.out, ...c.err].join('\n'));
  };
  before(async () => {
    // --allure: the merge carries allure-results/ when the shards wrote them.
    await run(shard(1), ['--shard', '1/2', '--allure']);
    await run(shard(2), ['--shard', '2/2', '--allure']);
    await run(join(dir, 'unsharded'), []);
  });

  // --start-reference gives the time-travel checks clock targets of their own: one Playwright invocation with both projects per shard.
  void test('each shard wrote its own report and one Playwright blob report of both projects', () => {
    for (const i of [1, 2]) {
      const report = readJson<ConformanceReport>(join(shard(i), 'conformance.json'));
      assert.equal(report.selection.shard, `${i}/2`);
      assert.ok(report.target.profileSha256, 'the profile hash is recorded');
      assert.deepEqual(
        readdirSync(join(shard(i), 'blob-report'))
          .sort()
          .map((f) => f.replace(/-[0-9a-f]+-/, '-HASH-')),
        [`report-conformance-time-travel-HASH-${i}.zip`],
      );
    }
    const split = ['TOKEN-RESP-001', 'TOKEN-RESP-002'].filter((id) =>
      [1, 2].every(
        (i) =>
          readJson<ConformanceReport>(join(shard(i), 'conformance.json')).requirements.find((r) => r.id === id)!.checks
            .length === 1,
      ),
    );
    assert.ok(
      split.length > 0,
      'at least one requirement has a check in each shard (so that the merge must recompute its verdict)',
    );
  });

  void test('merged: the same verdict and checks per requirement, the same counts, no shard in the selection', async () => {
    const out = join(dir, 'merged');
    const c = capture();
    assert.equal(
      await mergeMain([shard(2), join(shard(1), 'conformance.json'), '--out', out], c.io),
      0,
      c.err.join('\n'),
    );
    assert.match(
      c.out.at(-1)!,
      /^MERGED 2 shards into .*: conformance\.json, traceability\.html, ctrf\.json, checks\.json, junit\.xml, transcripts\/, allure-results\/ \(\d+ transcripts\)$/,
    );
    const merged = readJson<ConformanceReport>(join(out, 'conformance.json'));
    const single = readJson<ConformanceReport>(join(dir, 'unsharded', 'conformance.json'));
    assert.deepEqual(perRequirement(merged), perRequirement(single));
    assert.deepEqual(merged.summary, single.summary);
    assert.deepEqual(merged.checks, single.checks);
    assert.equal(merged.verdict, single.verdict);
    assert.deepEqual(merged.selection, single.selection, 'no shard left in the merged selection');
    assert.equal(merged.summary.PASS, 4, 'the four selected requirements pass');
    assert.equal(
      merged.regionParity?.counts.unexplained,
      0,
      'region parity: no unexplained difference on the reference server',
    );
    assert.equal(single.regionParity?.counts.unexplained, 0);
    assert.ok(
      readFileSync(join(out, 'traceability.html'), 'utf8').includes('Region parity: US vs EU client_credentials'),
    );
    assert.equal(
      readdirSync(join(out, 'transcripts')).length,
      readdirSync(join(dir, 'unsharded', 'transcripts')).length,
    );
    const testcases = (f: string) =>
      [...readFileSync(f, 'utf8').matchAll(/<testcase name="([^"]*)"/g)].map((m) => m[1]).sort();
    assert.deepEqual(testcases(join(out, 'junit.xml')), testcases(join(dir, 'unsharded', 'junit.xml')), 'junit.xml');
    assert.ok(
      testcases(join(out, 'junit.xml')).some((name) => name!.includes('ERR-GW-1003')),
      'the time-travel check is in the one JUnit file',
    );
  });

  void test('refused: a missing shard, the same shard twice, another suite version, another profile, an unsharded report', async () => {
    const refused = async (inputs: string[], expect: RegExp) => {
      const c = capture();
      const out = join(dir, `refused-${Math.random().toString(36).slice(2)}`);
      assert.equal(await mergeMain([...inputs, '--out', out], c.io), 2, c.out.join('\n'));
      assert.ok(
        c.err.some((l) => expect.test(l)),
        `${expect}:\n${c.err.join('\n')}`,
      );
      assert.equal(existsSync(out), false, 'nothing written');
    };
    await refused([shard(1)], /cannot merge: missing shard 2\/2: a merge needs all 2 shards/);
    await refused([shard(1), shard(1), shard(2)], /cannot merge: overlapping shards: shard 1\/2 given 2 times/);
    const edited = (name: string, edit: (r: ConformanceReport) => void) => {
      const copy = join(dir, name);
      cpSync(shard(2), copy, { recursive: true });
      const report = readJson<ConformanceReport>(join(copy, 'conformance.json'));
      edit(report);
      writeFileSync(join(copy, 'conformance.json'), JSON.stringify(report));
      return copy;
    };
    await refused(
      [
        shard(1),
        edited('other-version', (r) => {
          r.suiteVersion = '9.9.9';
        }),
      ],
      /cannot merge: different suite versions: 0\.1\.0 .* vs 9\.9\.9/,
    );
    await refused(
      [
        shard(1),
        edited('other-profile', (r) => {
          r.target.profileSha256 = 'f'.repeat(64);
        }),
      ],
      /cannot merge: different profiles .*ffffffffffff…/,
    );
    await refused(
      [
        shard(1),
        edited('other-grep', (r) => {
          r.selection.grep = '@gateway';
        }),
      ],
      /cannot merge: different selections \(--grep\)/,
    );
    await refused([shard(1), join(dir, 'unsharded')], /cannot merge: .*unsharded: not a shard report/);
    await refused([shard(1), join(dir, 'nope')], /cannot merge: .*nope: no such file or directory/);
  });
});

const outcome = (
  title: string,
  ids: string[],
  status: CheckOutcome['status'],
  project = 'conformance',
): CheckOutcome => ({
  title,
  project,
  requirementIds: ids,
  status,
  durationMs: 1,
  ...(status === 'failed' ? { error: `${title} broke` } : {}),
});

function syntheticShard(dir: string, index: number, total: number, checks: CheckOutcome[]): string {
  mkdirSync(dir, { recursive: true });
  const report = buildReport(loadCatalogue(), checks, {
    level: 'all',
    filtered: true,
    strict: false,
    shard: `${index}/${total}`,
    suiteVersion: '0.1.0',
    startedAt: new Date(Date.UTC(2026, 10, 22, 3, 0, index)),
    durationMs: 1000 * index,
    target: { name: 't', local: true, profileSha256: 'a'.repeat(64), interpretations: {} },
  });
  writeFileSync(join(dir, 'conformance.json'), JSON.stringify(report));
  const file: ChecksFile = {
    startedAt: report.startedAt,
    durationMs: report.durationMs,
    shard: `${index}/${total}`,
    filtered: false,
    checks,
  };
  writeFileSync(join(dir, 'checks.json'), JSON.stringify(file));
  return dir;
}

void describe('merge: verdicts recomputed from all checks', () => {
  const dir = temporaryDirectory('tc-merge-unit-');

  void test('a requirement PASS in one shard and FAIL in the other is FAIL with both checks; unselected requirements are UNCHECKED again', () => {
    const s1 = readShard(
      syntheticShard(join(dir, 'a1'), 1, 2, [outcome('x › TOKEN-RESP-001 us', ['TOKEN-RESP-001'], 'passed')]),
    );
    const s2 = readShard(
      syntheticShard(join(dir, 'a2'), 2, 2, [outcome('x › TOKEN-RESP-001 eu', ['TOKEN-RESP-001'], 'failed')]),
    );
    assert.equal(
      s1.report.requirements.find((r) => r.id === 'TOKEN-RESP-001')!.verdict,
      'PASS',
      'shard 1 alone passes it',
    );
    assert.deepEqual(mismatches([s1, s2]), []);
    const { report, checks } = mergeReports([s2, s1]);
    const r = report.requirements.find((q) => q.id === 'TOKEN-RESP-001')!;
    assert.equal(r.verdict, 'FAIL');
    assert.equal(r.reason, 'x › TOKEN-RESP-001 eu broke');
    assert.deepEqual(
      r.checks.map((c) => c.verdict),
      ['FAIL', 'PASS'],
    );
    assert.equal(
      report.requirements.find((q) => q.id === 'GRANT-CC-001')!.verdict,
      'UNCHECKED',
      'the whole suite was selected: a requirement no shard checked is a hole again, not a SKIP',
    );
    assert.equal(report.selection.shard, undefined);
    assert.equal(report.startedAt, '2026-11-22T03:00:01.000Z');
    assert.equal(report.durationMs, 2000 + 1000, 'from the first start to the last end');
    assert.equal(checks.checks.length, 2);
  });

  void test('the same check in two shards is refused (shards of different runs)', () => {
    const s1 = readShard(syntheticShard(join(dir, 'b1'), 1, 2, [outcome('same', ['TOKEN-RESP-001'], 'passed')]));
    const s2 = readShard(syntheticShard(join(dir, 'b2'), 2, 2, [outcome('same', ['TOKEN-RESP-001'], 'passed')]));
    assert.match(
      mismatches([s1, s2]).join('\n'),
      /overlapping shards: 1 check\(s\) ran in two shards, e\.g\. "same" \(conformance\) in shards 1 and 2/,
    );
    const s3 = readShard(syntheticShard(join(dir, 'b3'), 2, 3, []));
    assert.match(mismatches([s1, s3]).join('\n'), /different shard totals: of 2 .* vs of 3/);
  });

  void test('JUnit: testsuites of the same spec file and project joined, totals summed', () => {
    const a =
      '<testsuites id="" name="" tests="2" failures="1" skipped="0" errors="0" time="5">\n<testsuite name="a.spec.ts" timestamp="2026-11-22T03:00:02.000Z" hostname="conformance" tests="2" failures="1" skipped="0" time="1.5" errors="0">\n<testcase name="one"></testcase>\n<testcase name="two"><failure/></testcase>\n</testsuite>\n</testsuites>';
    const b =
      '<testsuites id="" name="" tests="2" failures="0" skipped="1" errors="0" time="7">\n<testsuite name="a.spec.ts" timestamp="2026-11-22T03:00:01.000Z" hostname="conformance" tests="1" failures="0" skipped="1" time="0.25" errors="0">\n<testcase name="three"><skipped/></testcase>\n</testsuite>\n<testsuite name="b.spec.ts" timestamp="2026-11-22T03:00:01.000Z" hostname="conformance" tests="1" failures="0" skipped="0" time="1" errors="0">\n<testcase name="four"></testcase>\n</testsuite>\n</testsuites>';
    const merged = mergeJunit([a, b]);
    assert.match(merged, /^<testsuites id="" name="" tests="4" failures="1" skipped="1" errors="0" time="7">/);
    assert.match(
      merged,
      /<testsuite name="a\.spec\.ts" timestamp="2026-11-22T03:00:01\.000Z" hostname="conformance" tests="3" failures="1" skipped="1" time="1\.75" errors="0">\n<testcase name="one"><\/testcase>\n<testcase name="two"><failure\/><\/testcase>\n<testcase name="three"><skipped\/><\/testcase>\n<\/testsuite>/,
    );
    assert.equal([...merged.matchAll(/<testsuite /g)].length, 2);
  });

  void test('shards judged with waivers: the merged report is built before waivers, and merge says so', async () => {
    const a = syntheticShard(join(dir, 'w1'), 1, 2, [outcome('x › TOKEN-RESP-001 us', ['TOKEN-RESP-001'], 'failed')]);
    syntheticShard(join(dir, 'w2'), 2, 2, []);
    const report = readJson<ConformanceReport>(join(a, 'conformance.json'));
    const waived = applyWaivers(report, [
      { requirement: 'TOKEN-RESP-001', owner: 'o', justification: 'j', expires: '2999-01-01' },
    ]);
    assert.equal(waived.requirements.find((r) => r.id === 'TOKEN-RESP-001')!.verdict, 'WAIVED');
    writeFileSync(join(a, 'conformance.json'), JSON.stringify(waived));
    const c = capture();
    assert.equal(await mergeMain([a, join(dir, 'w2'), '--out', join(dir, 'w-out')], c.io), 0, c.err.join('\n'));
    assert.ok(
      c.err.some((l) => /note: the shards were judged with waivers .* give them to `gate --waivers`/.test(l)),
      c.err.join('\n'),
    );
    const merged = readJson<ConformanceReport>(join(dir, 'w-out', 'conformance.json'));
    assert.equal(merged.requirements.find((r) => r.id === 'TOKEN-RESP-001')!.verdict, 'FAIL');
    assert.equal(merged.waivers, undefined);
  });

  void test('bad arguments: no --out, no shard', async () => {
    const c = capture();
    assert.equal(await mergeMain([join(dir, 'a1')], c.io), 2);
    assert.match(c.err[0]!, /--out DIR is required/);
    assert.equal(await mergeMain(['--out', join(dir, 'x')], c.io), 2);
  });
});

void describe('merge: PENDING and settlements across shards', () => {
  const dir = temporaryDirectory('tc-merge-pending-');
  const due = '2026-11-22T04:00:00.000Z';
  const pendingOutcome = (title: string, obligation: string, at = due): CheckOutcome => ({
    ...outcome(title, ['STATE-AT-EXP-001'], 'passed'),
    pending: [{ obligation, due: at, what: 'refused once expired' }],
  });
  const settledOutcome = (title: string, obligation: string, result: 'PASS' | 'FAIL'): CheckOutcome => ({
    ...outcome(title, ['STATE-AT-EXP-001'], result === 'PASS' ? 'passed' : 'failed'),
    settled: [
      {
        obligation,
        recordedRun: 'run-1',
        recordedAt: '2026-11-22T02:00:00.000Z',
        settledAt: '2026-11-22T03:00:01.000Z',
        outcome: result,
        reason: result === 'PASS' ? 'refused with 401' : 'accepted',
      },
    ],
  });
  const merged = (name: string, a: CheckOutcome[], b: CheckOutcome[]) => {
    const s1 = readShard(syntheticShard(join(dir, `${name}1`), 1, 2, a));
    const s2 = readShard(syntheticShard(join(dir, `${name}2`), 2, 2, b));
    assert.deepEqual(mismatches([s1, s2]), []);
    return mergeReports([s1, s2]).report.requirements.find((r) => r.id === 'STATE-AT-EXP-001')!;
  };

  void test('PENDING in both shards merges to PENDING with the earlier due time; beside a PASS of another check it stays PENDING', () => {
    const r = merged(
      'p',
      [pendingOutcome('a', 'ob-1', '2026-11-22T09:00:00.000Z')],
      [pendingOutcome('b', 'ob-2'), outcome('c', ['STATE-AT-EXP-001'], 'passed')],
    );
    assert.equal(r.verdict, 'PENDING');
    assert.equal(r.due, due);
  });

  void test('a settlement in one shard and an obligation pending in the other: the settlement decides (PASS, or FAIL)', () => {
    const pass = merged('s', [settledOutcome('settle', 'ob-1', 'PASS')], [pendingOutcome('record', 'ob-2')]);
    assert.equal(pass.verdict, 'PASS');
    assert.match(
      pass.reason ?? '',
      /recorded in run run-1 at 2026-11-22T02:00:00.000Z, settled at 2026-11-22T03:00:01.000Z\); next obligation due 2026-11-22T04:00:00.000Z$/,
    );
    const fail = merged('f', [pendingOutcome('record', 'ob-2')], [settledOutcome('settle', 'ob-1', 'FAIL')]);
    assert.equal(fail.verdict, 'FAIL');
    assert.equal(fail.settled?.[0]?.outcome, 'FAIL');
  });

  void test('the same obligation pending in one shard and settled in the other is settled, not pending', () => {
    const r = merged('same', [pendingOutcome('record', 'ob-1')], [settledOutcome('settle', 'ob-1', 'PASS')]);
    assert.equal(r.verdict, 'PASS');
    assert.equal(r.checks.find((c) => c.title === 'record')!.pending, undefined);
  });
});
