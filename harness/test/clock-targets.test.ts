// Clock targets (core/run/clock-targets.ts): each time-travel worker holds a target no
// other worker holds, waits for one a replaced worker still holds, and takes over the lock of a
// process that no longer exists.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseRunArgs, projectsArgs } from '../commands/run.command.ts';
import { claimClockTarget, readClockTargets, writeClockTargets } from '../../core/run/clock-targets.ts';

void describe('clock targets', () => {
  const setup = (count: number) => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-clock-targets-'));
    const file = writeClockTargets(
      dir,
      Array.from({ length: count }, (_, i) => join(dir, `profile-${i}.json`)),
    );
    return { dir, targets: readClockTargets(file)! };
  };

  void test('none named, or an empty list: undefined (the time-travel checks share one clock)', () => {
    assert.equal(readClockTargets(undefined), undefined);
    const { dir } = setup(0);
    try {
      assert.equal(readClockTargets(join(dir, 'clock-targets.json')), undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void test('two workers hold two different targets; a third waits until one is released', async () => {
    const { dir, targets } = setup(2);
    try {
      const a = await claimClockTarget(targets, 1000, 5);
      const b = await claimClockTarget(targets, 1000, 5);
      assert.notEqual(a.profileFile, b.profileFile);
      assert.deepEqual([a.slot, b.slot].sort(), [0, 1]);
      let third: Awaited<ReturnType<typeof claimClockTarget>> | undefined;
      const waiting = claimClockTarget(targets, 5000, 5).then((c) => {
        third = c;
      });
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(third, undefined, 'both targets are held');
      b.release();
      await waiting;
      assert.equal(third!.profileFile, b.profileFile);
      await assert.rejects(claimClockTarget(targets, 30, 5), /no clock target became free/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void test('the lock of a process that no longer exists is taken over', async () => {
    const { dir, targets } = setup(1);
    try {
      const lock = join(dir, 'clock-target-locks', '0');
      mkdirSync(lock, { recursive: true });
      // A pid far above any pid_max: no such process.
      writeFileSync(join(lock, 'pid'), '2147483646');
      const claimed = await claimClockTarget(targets, 1000, 5);
      assert.equal(claimed.slot, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void test('run: --clock-servers needs --start-reference; both projects in one invocation', () => {
    assert.throws(() => parseRunArgs(['--target', 'x.json', '--clock-servers', '2']), /needs --start-reference/);
    assert.throws(
      () => parseRunArgs(['--target', 'x.json', '--start-reference', '--clock-servers', 'two']),
      /whole number/,
    );
    const options = parseRunArgs(['--target', 'x.json', '--start-reference', '--clock-servers', '0', '--timings']);
    assert.ok(options !== 'help');
    assert.equal(options.clockServers, 0);
    assert.equal(options.timings, true);
    assert.deepEqual(projectsArgs(['conformance', 'time-travel']), [
      '--project',
      'conformance',
      'time-travel',
      '--pass-with-no-tests',
    ]);
  });
});
