// A block the profile's own declaration causes is the profile's, not the target's: against the
// reference server, a tokenParameters scope of one value for the password grant blocks GRANT-RT-005
// (it needs two values to narrow). It reads BLOCKED naming the field; the closing line counts it as
// blocked by the profile, never by the target, and the terminal lists it apart.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../../core/catalogue/catalogue.ts';
import { parseJsonc } from '../../core/profile/jsonc.ts';
import type { ConformanceReport } from '../reporter/report.schema.ts';
import { runCli } from './support/run-cli.ts';
import { temporaryDirectory } from './support/temporary-directory.ts';

const dir = temporaryDirectory('tc-blocked-by-profile-');

void test('a one-value scope: GRANT-RT-005 BLOCKED by the profile, not by the target', async () => {
  const profile = parseJsonc(readFileSync(join(repoRoot, 'profiles', 'reference.json'), 'utf8')) as {
    $schema?: string;
    credentials: { clients: Record<string, { tokenParameters?: unknown }> };
  };
  delete profile.$schema;
  profile.credentials.clients.usPasswordClient!.tokenParameters = { password: { scope: 'openid' } };
  const target = join(dir, 'declared.json');
  writeFileSync(target, JSON.stringify(profile));
  const reports = join(dir, 'reports');
  const { out } = await runCli([
    'run',
    '--target',
    target,
    '--start-reference',
    '--clock-servers',
    '0',
    '--passes',
    'conformance',
    '--requirement',
    'GRANT-RT-005',
    '--reports',
    reports,
  ]);
  assert.ok(existsSync(join(reports, 'conformance.json')), out);
  const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as ConformanceReport;
  const of = (id: string) => report.requirements.find((r) => r.id === id)!;
  assert.deepEqual(
    [of('GRANT-RT-005').verdict, of('GRANT-RT-005').blockedByProfile, of('GRANT-RT-005').blockedBy],
    ['BLOCKED', 'credentials.clients.usPasswordClient.tokenParameters.password.scope', undefined],
    out,
  );
  assert.match(
    of('GRANT-RT-005').reason ?? '',
    /^blocked by the profile: credentials\.clients\.usPasswordClient\.tokenParameters\.password\.scope declares one value \("openid"\); GRANT-RT-005 needs two to narrow/,
  );
  assert.deepEqual([report.verification?.blockedByProfile, report.verification?.blockedByTarget], [1, 0]);
  assert.match(out, /Blocked by the profile \(not verified, and not a finding about the target\):/);
  assert.match(out, /1 blocked by the profile \(a refused credential or a declaration\)/);
  assert.doesNotMatch(out, /blocked by the target/);
});
