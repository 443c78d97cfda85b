// The idle cores a distant target's run measures before it chooses its workers: the idle share of
// the CPU ticks over the window, in the cores this process may use; nothing from the load average.
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';
import { cpuTicks, idleCoresBetween, startIdleSample } from '../reference/idle-cores.ts';

void test('the idle share of the ticks between two readings, times the cores', () => {
  assert.equal(idleCoresBetween({ idle: 100, total: 400 }, { idle: 250, total: 600 }, 2), 1.5);
  assert.equal(idleCoresBetween({ idle: 100, total: 400 }, { idle: 100, total: 600 }, 2), 0, 'every core busy');
  assert.equal(
    idleCoresBetween({ idle: 100, total: 400 }, { idle: 100, total: 400 }, 2),
    0,
    'no tick counted: no claim of idleness',
  );
  assert.equal(idleCoresBetween({ idle: 0, total: 0 }, { idle: 900, total: 800 }, 4), 4, 'never more than the cores');
});

void test('the sample reads the counters on each side of its window', async () => {
  const readings = [
    { idle: 10, total: 20 },
    { idle: 30, total: 60 },
  ];
  assert.equal(await startIdleSample(() => readings.shift()!).end(1), 0.5 * availableParallelism());
  assert.equal(readings.length, 0);
});

void test(
  'a sample started before a phase waits only for what is left of its window',
  { timeout: 60_000 },
  async () => {
    const readings = [
      { idle: 0, total: 0 },
      { idle: 50, total: 100 },
    ];
    let clock = 0;
    const sample = startIdleSample(
      () => readings.shift()!,
      () => clock,
    );
    // The phase took two hours on this clock: a window of one hour is over, so nothing is left to wait
    // (a sample that waited its window again would outlast the test's timeout).
    clock = 7_200_000;
    assert.equal(await sample.end(3_600_000), 0.5 * availableParallelism());
    assert.equal(readings.length, 0);
  },
);

void test("this machine's counters: idle within the total, and a sample within the cores", async () => {
  const now = cpuTicks();
  assert.ok(now.total > 0 && now.idle >= 0 && now.idle <= now.total);
  const idle = await startIdleSample().end(20);
  assert.ok(idle >= 0 && idle <= availableParallelism(), `idle cores ${idle}`);
});
