// A target the profile marks `local` (a throw-away server on the developer's machine) served over
// plain http, as `serve --http` does: the TLS requirements are not applicable to that setup, so
// SEC-TLS-001/002/004/005 read NOT_APPLICABLE naming `local`, never FAIL or BLOCKED (its plainHttpUrl
// is its own address, as `run --start-reference` declares it). The same addresses
// on a deployment (not local) FAIL SEC-TLS-001: the self-validation fault endpoints-over-plain-http.
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
import { runCli } from './support/run-cli.ts';
import { temporaryDirectory } from './support/temporary-directory.ts';

const dir = temporaryDirectory('tc-local-plain-http-');
let reference: ReferenceServer | undefined;

void describe('a local target over plain http', () => {
  before(async () => {
    const profile = loadProfile(join(repoRoot, 'profiles', 'reference.json')).profile;
    reference = await startReference({ logDir: dir, extraArgs: [...referenceArgsFor(profile), '--http'] });
  });
  after(async () => {
    await reference?.stop();
  });

  void test('SEC-TLS-001/002/004/005 read NOT_APPLICABLE naming `local`, nothing FAILs', async () => {
    const profile = applyListening(
      loadProfile(join(repoRoot, 'profiles', 'reference.json')).profile,
      reference!.listening,
    );
    assert.equal(profile.local, true);
    assert.equal(new URL(profile.authUrlUs!).protocol, 'http:');
    const target = join(dir, 'local-http.json');
    writeFileSync(target, JSON.stringify(profile));
    const reports = join(dir, 'reports');
    const { out } = await runCli([
      'run',
      '--target',
      target,
      '--spec',
      'specs/transport/tls.spec.ts',
      '--spec',
      'specs/transport/plain-http.spec.ts',
      '--passes',
      'conformance',
      '--reports',
      reports,
    ]);
    assert.ok(existsSync(join(reports, 'conformance.json')), out);
    const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as ConformanceReport;
    const tls = report.requirements.filter((r) => r.id.startsWith('SEC-TLS-'));
    assert.deepEqual(
      tls.map((r) => [r.id, r.verdict]),
      [
        ['SEC-TLS-001', 'NOT_APPLICABLE'],
        ['SEC-TLS-002', 'NOT_APPLICABLE'],
        ['SEC-TLS-004', 'NOT_APPLICABLE'],
        ['SEC-TLS-005', 'NOT_APPLICABLE'],
      ],
      out,
    );
    for (const r of tls) {
      assert.match(r.reason ?? '', /plain-http address .* of a target the profile marks "local": true/, r.id);
      assert.ok(
        r.checks.every((c) => c.verdict === 'NOT_APPLICABLE'),
        `${r.id}: every check NOT_APPLICABLE`,
      );
    }
    assert.equal(report.summary.FAIL, 0, out);
    assert.equal(report.summary.BLOCKED, 0, out);
  });
});
