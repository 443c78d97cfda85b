// Whole runs against a hostile target: a reference server behind the hostile server of
// support/hostile-target/, which answers the protected API (the gateway checks' calls) its way and
// forwards everything else. A CDN's block page there gives no FAIL: the gateway requirements read
// BLOCKED by an intermediary, naming the evidence. A target dripping a byte a second ends at the
// run's deadline (a short one, through the flag) with a report that reads, every check the deadline
// stopped UNCHECKED.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { repoRoot } from '../../core/catalogue/catalogue.ts';
import { loadProfile } from '../../core/profile/load-profile.ts';
import {
  applyListening,
  referenceArgsFor,
  startReference,
  type ReferenceServer,
} from '../reference/start-reference.ts';
import type { ConformanceReport } from '../reporter/report.schema.ts';
import { cdnBlockPage, drip, type AnswerBehaviour } from './support/hostile-target/answer-behaviours.ts';
import { gatewayRequest, startHostileServer, type HostileServer } from './support/hostile-target/hostile-server.ts';
import { runCli } from './support/run-cli.ts';
import { asStagingTarget, throughProxy } from './support/staging-profile.ts';
import { temporaryDirectory } from './support/temporary-directory.ts';

const dir = temporaryDirectory('tc-hostile-runs-');
let reference: ReferenceServer;
const hostiles: HostileServer[] = [];

/** A profile of the reference server with every address behind a hostile server answering the gateway with `behaviour`. */
async function hostileProfile(name: string, behaviour: AnswerBehaviour): Promise<string> {
  const listening = applyListening(
    loadProfile(join(repoRoot, 'profiles', 'reference.json')).profile,
    reference.listening,
  );
  const upstream = new URL(listening.authUrlUs!).origin;
  const hostile = await startHostileServer({
    behaviour,
    picks: gatewayRequest,
    upstream,
    upstreamCa: readFileSync(listening.caFile!, 'utf8'),
    tls: true,
  });
  hostiles.push(hostile);
  const file = join(dir, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify(asStagingTarget(throughProxy(listening, upstream, { url: hostile.url, caFile: hostile.caFile! }))),
  );
  return file;
}

const readReport = (reports: string) =>
  JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as ConformanceReport;

void describe('whole runs against a hostile target', () => {
  before(async () => {
    const profile = loadProfile(join(repoRoot, 'profiles', 'reference.json')).profile;
    reference = await startReference({ logDir: dir, extraArgs: referenceArgsFor(profile) });
  });
  after(async () => {
    await Promise.all(hostiles.map((h) => h.close()));
    await reference?.stop();
  });

  void test('a CDN block page on the protected API: 0 FAIL, its requirements BLOCKED by an intermediary with the evidence', async () => {
    const target = await hostileProfile('cdn-block', cdnBlockPage);
    const reports = join(dir, 'cdn-block-reports');
    const { out } = await runCli([
      'run',
      '--target',
      target,
      '--spec',
      'specs/gateway/request-syntax.spec.ts',
      '--passes',
      'conformance',
      '--reports',
      reports,
    ]);
    assert.ok(existsSync(join(reports, 'conformance.json')), out);
    const report = readReport(reports);
    assert.equal(report.summary.FAIL, 0, out);
    const blocked = report.requirements.filter((r) => r.verdict === 'BLOCKED');
    assert.ok(blocked.length > 0, out);
    for (const r of blocked) {
      assert.match(
        r.reason ?? '',
        /^not measured: blocked by an intermediary — Cloudflare: cf-mitigated: challenge; cf-ray: /,
      );
      assert.equal(r.blockedBy, undefined, 'an intermediary is no requirement of the target');
    }
    assert.ok(hostiles.at(-1)!.picked > 0, 'the checks met the block page');
  });

  void test('a byte a second on the protected API: the run ends at its deadline with a readable report, the unfinished checks UNCHECKED', async () => {
    const target = await hostileProfile('drip', drip(1000));
    const reports = join(dir, 'drip-reports');
    const deadlineMinutes = 0.25;
    const started = performance.now();
    const { code, out } = await runCli([
      'run',
      '--target',
      target,
      '--spec',
      'specs/gateway',
      '--passes',
      'conformance',
      '--deadline',
      String(deadlineMinutes),
      '--reports',
      reports,
    ]);
    const took = performance.now() - started;
    // The deadline, plus what stopping Playwright's workers and writing the reports take.
    assert.ok(took < deadlineMinutes * 60_000 + 45_000, `the run took ${Math.round(took / 1000)} s`);
    assert.equal(code, 1, out);
    assert.ok(existsSync(join(reports, 'conformance.json')), out);
    const report = readReport(reports);
    const unfinished = report.requirements.filter(
      (r) => r.verdict === 'UNCHECKED' && r.reason === "not finished: the run's deadline of 0.25 minutes passed",
    );
    assert.ok(unfinished.length > 0, out);
    for (const file of ['traceability.html', 'junit.xml', 'checks.json'])
      assert.ok(existsSync(join(reports, file)), `${file} written`);
    assert.match(readFileSync(join(reports, 'junit.xml'), 'utf8'), /UNCHECKED: not finished: the run&apos;s deadline/);
  });
});
