// The time-travel checks' lanes: a lane is held by one check at a time, across processes; a check
// of no lane holds them all; a lane whose holder crashed is taken over; only a target whose serial
// checks share nothing but principals runs them in lanes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { allLanes, holdLanes, lanesOf, sharedStateOf } from '../run/serial-lanes.ts';
import { buildProfileSchema } from '../profile/profile.schema.ts';

const specs = '/repo/specs';

void describe('serial lanes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tc-serial-lanes-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  void test('a spec file of a lane holds that lane; any other file holds every lane', () => {
    assert.deepEqual(lanesOf(`${specs}/limits/rate-limits.spec.ts`, specs), ['lockableUser']);
    assert.deepEqual(lanesOf(`${specs}/properties/token-lifecycle.spec.ts`, specs), ['burnableUser']);
    assert.deepEqual(lanesOf(`${specs}/properties/refresh-concurrency.spec.ts`, specs), ['burnableUser']);
    assert.deepEqual(lanesOf(`${specs}/gateway/routing-faults.spec.ts`, specs), [...allLanes]);
  });

  void test("a check's tag names its own lane: the token endpoint input at US and at EU side by side", () => {
    const file = `${specs}/properties/token-endpoint-input.spec.ts`;
    const us = lanesOf(file, specs, ['@property-token-input-us', '@serial']);
    const eu = lanesOf(file, specs, ['@serial', '@property-token-input-eu']);
    assert.equal(us.length, 1);
    assert.equal(eu.length, 1);
    assert.notDeepEqual(us, eu);
    for (const lane of [...us, ...eu]) assert.ok(allLanes.includes(lane));
    // Without its tag a check of that file has no lane of its own: it runs alone.
    assert.deepEqual(lanesOf(file, specs, ['@serial']), [...allLanes]);
  });

  void test('one holder per lane at a time; other lanes are free meanwhile', async () => {
    const releaseUser = await holdLanes(dir, ['user']);
    const releaseGateway = await holdLanes(dir, ['gateway-input']);
    let second = false;
    const waiting = holdLanes(dir, ['user']).then((release) => {
      second = true;
      return release;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(second, false, 'the lane is still held');
    releaseUser();
    const releaseSecond = await waiting;
    assert.equal(second, true);
    releaseSecond();
    releaseGateway();
  });

  void test('a check of no lane waits for every lane, and holds them all', async () => {
    const releaseOne = await holdLanes(dir, ['lockableUser']);
    let all = false;
    const waiting = holdLanes(dir, allLanes).then((release) => {
      all = true;
      return release;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(all, false);
    releaseOne();
    const releaseAll = await waiting;
    let other = false;
    const otherWaiting = holdLanes(dir, ['burnableUser']).then((release) => {
      other = true;
      return release;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(other, false, 'a lane check waits while the lane-less one runs');
    releaseAll();
    (await otherWaiting)();
    assert.equal(other, true);
  });

  void test('a lane whose holder process is gone is taken over', async () => {
    // A child takes the lane and exits without releasing it, as a crashed worker would.
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import('${join(import.meta.dirname, '..', 'run', 'serial-lanes.ts')}').then((m) => m.holdLanes(${JSON.stringify(dir)}, ['user']))`,
      ],
      { stdio: 'ignore' },
    );
    const [code] = (await once(child, 'exit')) as [number];
    assert.equal(code, 0);
    assert.equal(existsSync(join(dir, Buffer.from('user').toString('base64url'))), true, 'the lane is left held');
    const release = await holdLanes(dir, ['user']);
    release();
  });

  void test('only a target without controls, declared rate limits or waits runs its serial checks in lanes', () => {
    const base = {
      name: 't',
      authUrlUs: 'https://a.example',
      authUrlEu: 'https://b.example',
      baseUrl: 'https://c.example',
      credentials: { clients: {}, users: {} },
    };
    const targetProfileSchema = buildProfileSchema();
    const plain = targetProfileSchema.parse(base);
    assert.equal(sharedStateOf(plain), undefined);
    const withClock = targetProfileSchema.parse({ ...base, capabilities: { clockControlUrl: 'https://d.example' } });
    assert.equal(sharedStateOf(withClock), 'clock control');
    const withRateLimit = targetProfileSchema.parse({
      ...base,
      capabilities: { rateLimit: { spikePerSecond: 5, quotaPerWindow: 100, windowSeconds: 60 } },
    });
    assert.equal(sharedStateOf(withRateLimit), 'a declared rate limit');
  });
});
