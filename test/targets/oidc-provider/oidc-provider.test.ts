// Runs the whole conformance suite against the independent oidc-provider target and pins the
// result: the requirements that FAIL or WARN must be exactly those deviations.json lists (the
// library's own departures from the spec, README.md), and nothing else may FAIL or WARN.
//   node --import tsx --test test/targets/oidc-provider/oidc-provider.test.ts
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  expectedVerdicts,
  pinDifferences,
  runSuite,
  startedProfile,
  startTarget,
  type Deviation,
} from '../shared/suite-run.ts';

const here = import.meta.dirname;

export const deviations = (
  JSON.parse(readFileSync(join(here, 'deviations.json'), 'utf8')) as { deviations: Deviation[] }
).deviations;

void test('README lists every deviation of deviations.json under its requirement IDs', () => {
  const readme = readFileSync(join(here, 'README.md'), 'utf8');
  const missing = [...expectedVerdicts(deviations).keys()].filter((id) => !readme.includes(id));
  assert.deepEqual(missing, [], `README.md does not name ${missing.join(', ')}`);
});

void test('the suite against oidc-provider: FAIL/WARN requirements are exactly the listed deviations', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'oidc-provider-run-'));
  let pinned = false;
  // A failed run keeps its reports (the message names them) for reading.
  t.after(() => {
    if (pinned) rmSync(work, { recursive: true, force: true });
  });
  const target = await startTarget(join(here, 'start.ts'));
  t.after(() => target.stop());

  // The committed profile, with this start's addresses and CA; secrets through the environment.
  const { profile, env } = startedProfile(join(here, 'profile.jsonc'), target.listening);
  const run = await runSuite(work, 'oidc-provider', profile, env);
  const { unexpected, missing } = pinDifferences(run.report, expectedVerdicts(deviations));
  assert.ok(
    unexpected.length === 0 && missing.length === 0,
    [
      `FAIL/WARN requirements differ from deviations.json (run exit code ${run.code}; report ${run.reportFile}).`,
      `Unexpected FAIL/WARN (${unexpected.length}):`,
      ...unexpected,
      `Listed deviations not seen (${missing.length}):`,
      ...missing,
    ].join('\n'),
  );
  pinned = true;
});
