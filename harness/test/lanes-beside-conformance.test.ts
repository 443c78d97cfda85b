// The lanes of a principal of their own beside the conformance checks (core/run/serial-lanes.ts):
// only where the profile declares a lockout that touches nothing else, in a project of their own
// that the time-travel pass selects, listed by Playwright itself from the run manifest.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { buildProfileSchema } from '../../core/profile/profile.schema.ts';
import { repoRoot } from '../../core/catalogue/catalogue.ts';
import { writeRunManifest } from '../../core/run/run-manifest.ts';
import {
  allLanes,
  besideConformanceSpecs,
  besideLaneWorkers,
  laneOfSpec,
  laneOfTag,
  lanesBesideConformance,
  lanesOf,
  laneWorkers,
  ownPrincipalLanes,
} from '../../core/run/serial-lanes.ts';
import { besideConformanceProject, inTimeTravelPass, projectsOfPass } from '../../core/run/time-travel-pass.ts';
import { projectsArgs } from '../commands/run.command.ts';
import { listChecks, type ListedCheck } from '../commands/run-selection.ts';
import { temporaryDirectory } from './support/temporary-directory.ts';

const specs = '/repo/specs';
const profileWith = (capabilities: Record<string, unknown>) =>
  buildProfileSchema().parse({
    name: 'distant',
    authUrlUs: 'https://idp.example/us',
    baseUrl: 'https://api.example',
    capabilities,
  });

void describe('lanes beside the conformance checks', () => {
  void test('only a lockout declared to touch nothing but the principal named (or nothing) lets them start first', () => {
    assert.equal(lanesBesideConformance(profileWith({ lockout: 'none' })), true);
    assert.equal(lanesBesideConformance(profileWith({ lockout: 'per-principal' })), true);
    assert.equal(lanesBesideConformance(profileWith({ lockout: 'per-address' })), false);
    assert.equal(lanesBesideConformance(profileWith({})), false, 'undeclared: they wait');
    assert.throws(() => profileWith({ lockout: 'sometimes' }));
  });

  void test("every check of a file beside holds a lane of a principal of its own; the gateway's lane stays after the gate", () => {
    assert.ok(!ownPrincipalLanes.has('gateway-input'));
    for (const lane of ownPrincipalLanes) assert.ok(allLanes.includes(lane), lane);
    for (const file of besideConformanceSpecs) {
      const lanes =
        laneOfSpec[file] !== undefined
          ? lanesOf(`${specs}/${file}`, specs)
          : Object.keys(laneOfTag).flatMap((tag) => lanesOf(`${specs}/${file}`, specs, [tag]));
      assert.ok(lanes.length > 0, file);
      for (const lane of lanes) assert.ok(ownPrincipalLanes.has(lane), `${file}: lane ${lane}`);
    }
    for (const [file, lane] of Object.entries(laneOfSpec))
      assert.equal(besideConformanceSpecs.includes(file), ownPrincipalLanes.has(lane), file);
    assert.ok(besideLaneWorkers < laneWorkers, 'workers are left for the lanes after the gate');
  });

  void test('the time-travel pass is both projects where the run has the project beside, else the one', () => {
    assert.ok(inTimeTravelPass('time-travel'));
    assert.ok(inTimeTravelPass(besideConformanceProject));
    assert.ok(!inTimeTravelPass('conformance'));
    assert.ok(!inTimeTravelPass(undefined));
    assert.deepEqual(projectsOfPass('conformance', true), ['conformance']);
    assert.deepEqual(projectsArgs(['time-travel']), ['--project', 'time-travel', '--pass-with-no-tests']);
    assert.deepEqual(projectsArgs(['conformance', 'time-travel'], true), [
      '--project',
      'conformance',
      'time-travel',
      besideConformanceProject,
      '--pass-with-no-tests',
    ]);
  });

  void test('Playwright puts the serial checks of those files in the project beside, and only with the manifest saying so', async () => {
    const dir = temporaryDirectory('tc-beside-');
    const list = async (manifest: Parameters<typeof writeRunManifest>[1]) =>
      listChecks(projectsArgs(['conformance', 'time-travel'], manifest.serialLanesBeside === true).slice(0, -1), {
        ...process.env,
        ...writeRunManifest(dir, manifest, `manifest-${Object.keys(manifest).length}.json`),
      });
    const byProject = (checks: ListedCheck[]) => {
      const counts = new Map<string, number>();
      for (const c of checks) counts.set(c.project, (counts.get(c.project) ?? 0) + 1);
      return counts;
    };
    const lanesOnly = await list({ serialLanes: join(dir, 'lanes') });
    const beside = await list({ serialLanes: join(dir, 'lanes'), serialLanesBeside: true });

    assert.deepEqual([...byProject(lanesOnly).keys()].sort(), ['conformance', 'time-travel']);
    const counts = byProject(beside);
    assert.deepEqual([...counts.keys()].sort(), ['conformance', besideConformanceProject, 'time-travel'].sort());
    assert.equal(beside.length, lanesOnly.length, 'every check is listed once either way');
    assert.equal(
      counts.get('conformance'),
      byProject(lanesOnly).get('conformance'),
      'the conformance project is the same',
    );
    const besideFiles = new Set(besideConformanceSpecs.map((f) => `specs/${f}`));
    for (const c of beside.filter((x) => inTimeTravelPass(x.project)))
      assert.equal(c.project === besideConformanceProject, besideFiles.has(c.file), `${c.file} › ${c.title}`);
    const besideChecks = beside.filter((c) => c.project === besideConformanceProject);
    assert.ok(besideChecks.some((c) => c.file === 'specs/properties/token-endpoint-input.spec.ts'));
    assert.ok(besideChecks.some((c) => c.file === 'specs/limits/rate-limits.spec.ts'));
    assert.ok(beside.some((c) => c.project === 'time-travel' && c.file === 'specs/properties/gateway-input.spec.ts'));
  });

  void test('the lanes after the gate start no worker of their own: they take the slots of the lanes beside', async () => {
    const dir = temporaryDirectory('tc-beside-config-');
    const configOf = async (manifest: Parameters<typeof writeRunManifest>[1]) => {
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          '--input-type=module',
          '-e',
          `const { default: c } = await import(${JSON.stringify(join(repoRoot, 'playwright.config.ts'))}); console.log(JSON.stringify({ workers: c.workers, projects: c.projects.map((p) => [p.name, p.workers]) }));`,
        ],
        {
          cwd: repoRoot,
          env: { ...process.env, ...writeRunManifest(dir, manifest, `config-${Object.keys(manifest).length}.json`) },
        },
      );
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
      const [code] = (await once(child, 'close')) as [number];
      assert.equal(code, 0);
      return JSON.parse(out) as { workers: number; projects: [string, number][] };
    };
    const manifest = { serialLanes: join(dir, 'lanes'), checkWorkers: 8 };
    const lanes = await configOf(manifest);
    assert.equal(lanes.workers, 8 + laneWorkers, 'without lanes beside every time-travel worker starts at once');
    const beside = await configOf({ ...manifest, serialLanesBeside: true });
    assert.equal(beside.workers, 8 + besideLaneWorkers);
    assert.deepEqual(beside.projects, [
      [besideConformanceProject, besideLaneWorkers],
      ['conformance', 8],
      ['time-travel', laneWorkers - besideLaneWorkers],
    ]);
  });
});
