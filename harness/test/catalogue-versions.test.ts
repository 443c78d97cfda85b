// Frozen catalogue releases: release 1 is the catalogue as it stood when releases began; a
// requirement appended to requirements.json later is in no frozen list, so it runs but is "not
// scored" in an older release and never moves its verdict. A run against the reference server
// with --catalogue of the previous release scores exactly that release's requirements; gate and
// diff score the same way.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  catalogueVersion,
  catalogueVersions,
  CatalogueVersionError,
  latestCatalogueVersion,
} from '../../requirements/catalogue-versions.ts';
import { requirements } from '../../requirements/index.ts';
import { currentCatalogueName, scoreInCatalogue } from '../reporter/catalogue-scoring.ts';
import type { ConformanceReport, RequirementResult } from '../reporter/report.schema.ts';
import { runMain } from '../commands/run.command.ts';
import { gateMain } from '../commands/gate.command.ts';
import { diffMain } from '../commands/diff.command.ts';
import { mismatches, type ShardInput } from '../merge/merge.ts';
import { renderTraceability } from '../reporter/traceability-html.ts';
import { temporaryDirectory } from './support/temporary-directory.ts';

const root = join(import.meta.dirname, '..', '..');
const catalogueIds = requirements.map((r) => r.id);

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}

void describe('catalogue releases', () => {
  void test('releases are numbered 1, 2, …; every frozen ID is still catalogued; release 1 froze the 137 requirements releases began with', () => {
    const all = catalogueVersions();
    assert.deepEqual(
      all.map((v) => v.version),
      all.map((_, i) => String(i + 1)),
    );
    for (const v of all) {
      assert.deepEqual(
        v.requirements.filter((id) => !catalogueIds.includes(id)),
        [],
        `release ${v.version}: an ID was removed or renamed (IDs are stable)`,
      );
      assert.equal(new Set(v.requirements).size, v.requirements.length, `release ${v.version}: an ID listed twice`);
    }
    const first = catalogueVersion('1');
    assert.equal(first.requirements.length, 137);
    assert.equal(first.frozenAt, '2026-11-26');
    assert.throws(
      () => catalogueVersion('0'),
      (e: Error) =>
        e instanceof CatalogueVersionError && /unknown catalogue version '0' \(frozen releases: 1/.test(e.message),
    );
  });

  void test('a requirement appended after a release is not scored in it: it keeps its verdict, outside the summary and the verdict', () => {
    const base = JSON.parse(
      readFileSync(join(import.meta.dirname, 'fixtures', 'gate', 'report-pass.json'), 'utf8'),
    ) as ConformanceReport;
    const release = { version: '7', frozenAt: '2026-11-26', requirements: base.requirements.map((r) => r.id) };
    const later: RequirementResult = {
      ...base.requirements[0]!,
      id: 'LATER-REQ-001',
      verdict: 'FAIL',
      reason: 'a bug class found after the release',
      checks: [],
    };
    const withLater: ConformanceReport = {
      ...base,
      requirements: [...base.requirements, later],
      verdict: 'FAIL',
      summary: { ...base.summary, FAIL: base.summary.FAIL + 1, total: base.summary.total + 1 },
    };
    const scored = scoreInCatalogue(withLater, release);
    assert.equal(scored.verdict, base.verdict);
    assert.deepEqual(scored.summary, { ...base.summary });
    assert.deepEqual(
      scored.requirements.map((r) => r.id),
      release.requirements,
    );
    assert.deepEqual(
      scored.notScored?.map((r) => [r.id, r.verdict, r.reason]),
      [['LATER-REQ-001', 'FAIL', 'not scored in catalogue 7: FAIL — a bug class found after the release']],
    );
    assert.deepEqual(scored.catalogue, { version: '7', frozen: true, scored: release.requirements.length });
    assert.match(
      renderTraceability(scored),
      /<h2 id="not-scored">Not scored in catalogue 7 \(1\)<\/h2>.*LATER-REQ-001/s,
    );
    // Scored again in a release that has it: back among the scored, with its own reason.
    const again = scoreInCatalogue(scored, {
      ...release,
      version: '8',
      requirements: [...release.requirements, 'LATER-REQ-001'],
    });
    assert.equal(again.verdict, 'FAIL');
    assert.equal(again.notScored, undefined);
    assert.equal(again.requirements.at(-1)?.reason, 'a bug class found after the release');
  });

  void test('run --catalogue of the previous release scores exactly its requirements (reference server); gate and diff score the same', async () => {
    const previous = catalogueVersions().at(-1)!;
    assert.equal(previous.version, latestCatalogueVersion().version);
    const reports = temporaryDirectory('tc-catalogue-');
    const c = capture();
    const code = await runMain(
      [
        '--target',
        join(root, 'profiles', 'reference.json'),
        '--start-reference',
        '--reports',
        reports,
        '--catalogue',
        previous.version,
        '--requirement',
        'GRANT-CC-001,TOKEN-REQ-001',
        '--passes',
        'conformance',
        '--reporter',
        'dot',
      ],
      c.io,
    );
    assert.equal(code, 0, [...c.out, ...c.err].join('\n'));
    const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as ConformanceReport;
    assert.deepEqual(
      report.requirements.map((r) => r.id),
      previous.requirements,
      "scored: exactly the release's requirements",
    );
    assert.equal(report.summary.total, previous.requirements.length);
    assert.deepEqual(
      (report.notScored ?? []).map((r) => r.id),
      catalogueIds.filter((id) => !previous.requirements.includes(id)),
      'every later requirement ran outside the score',
    );
    assert.deepEqual(report.catalogue, {
      version: previous.version,
      frozen: true,
      scored: previous.requirements.length,
    });
    assert.equal(report.requirements.find((r) => r.id === 'GRANT-CC-001')?.verdict, 'PASS');
    assert.ok(
      c.out.some((l) => l.startsWith(`CONFORMANCE PASS in catalogue ${previous.version}:`)),
      c.out.join('\n'),
    );
    const ctrf = JSON.parse(readFileSync(join(reports, 'ctrf.json'), 'utf8')) as {
      results: { tests: { labels: { scored: boolean } }[]; extra: { catalogue: unknown } };
    };
    assert.equal(ctrf.results.tests.filter((t) => t.labels.scored).length, previous.requirements.length);
    assert.deepEqual(ctrf.results.extra.catalogue, report.catalogue);

    const g = capture();
    assert.equal(
      await gateMain(
        [join(reports, 'conformance.json'), '--catalogue', previous.version, '--out', join(reports, 'gate.json')],
        g.io,
      ),
      0,
      g.err.join('\n'),
    );
    const badGate = capture();
    assert.equal(await gateMain([join(reports, 'conformance.json'), '--catalogue', '999'], badGate.io), 2);
    assert.match(badGate.err.join('\n'), /unknown catalogue version '999'/);
    const d = capture();
    assert.equal(
      await diffMain(
        [join(reports, 'conformance.json'), join(reports, 'conformance.json'), '--catalogue', previous.version],
        d.io,
      ),
      0,
      d.err.join('\n'),
    );
    assert.deepEqual(d.err, []);

    const unknown = capture();
    assert.equal(
      await runMain(['--target', join(root, 'profiles', 'reference.json'), '--catalogue', 'nope'], unknown.io),
      2,
    );
    assert.match(unknown.err.join('\n'), /--catalogue: unknown catalogue version 'nope'/);
  });

  void test('a run without --catalogue names the catalogue: the newest release when it is exactly that, else unreleased', () => {
    const latest = latestCatalogueVersion();
    assert.deepEqual(currentCatalogueName(latest.requirements), { version: latest.version, frozen: true });
    assert.deepEqual(currentCatalogueName([...latest.requirements, 'LATER-REQ-001']), {
      version: 'unreleased',
      frozen: false,
    });
  });

  void test('merge refuses shards scored in different catalogue releases', () => {
    const base = JSON.parse(
      readFileSync(join(import.meta.dirname, 'fixtures', 'gate', 'report-pass.json'), 'utf8'),
    ) as ConformanceReport;
    const shard = (index: number, version: string): ShardInput => ({
      dir: `shard-${index}`,
      index,
      total: 2,
      report: {
        ...base,
        selection: { ...base.selection, shard: `${index}/2` },
        catalogue: { version, frozen: true, scored: 4 },
      },
      checks: { startedAt: base.startedAt, durationMs: 1, shard: `${index}/2`, filtered: false, checks: [] },
    });
    assert.deepEqual(mismatches([shard(1, '1'), shard(2, '1')]), []);
    assert.deepEqual(mismatches([shard(1, '1'), shard(2, '2')]), [
      'different catalogue releases scored (--catalogue): catalogue 1 (shard-1) vs catalogue 2 (shard-2)',
    ]);
  });
});
