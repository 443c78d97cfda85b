// The per-source budget of failed attempts (attempt-throttle.ts): a token bucket per source,
// refilled over the window, bounded in the number of sources it remembers.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SourceBudget } from '../../src/domain/source-budget.ts';

void describe('SourceBudget', () => {
  void test('a source may fail `failures` times at once, then waits for the refill; other sources are not affected', () => {
    const budget = new SourceBudget({ failures: 3, windowMs: 30_000 });
    for (let i = 0; i < 3; i += 1) {
      assert.equal(budget.waitSeconds('a', 0), 0);
      budget.spend('a', 0);
    }
    assert.equal(budget.waitSeconds('a', 0), 10, 'one failure comes back every 10 s');
    assert.equal(budget.waitSeconds('a', 9_500), 1);
    assert.equal(budget.waitSeconds('a', 10_000), 0);
    assert.equal(budget.waitSeconds('b', 0), 0);
  });

  void test('memory is bounded: full buckets go first, then the least recently spent', () => {
    const budget = new SourceBudget({ failures: 2, windowMs: 1000 }, 100);
    for (let i = 0; i < 1000; i += 1) budget.spend(`s${i}`, i);
    assert.ok(budget.trackedSources <= 100, String(budget.trackedSources));
    const crowded = new SourceBudget({ failures: 2, windowMs: 1_000_000 }, 10);
    crowded.spend('old', 0);
    crowded.spend('old', 0);
    for (let i = 0; i < 20; i += 1) crowded.spend(`s${i}`, 1);
    assert.equal(crowded.trackedSources, 10);
    assert.equal(crowded.waitSeconds('old', 2), 0, 'the oldest went first');
  });

  void test('nonsense settings are refused', () => {
    assert.throws(() => new SourceBudget({ failures: 0, windowMs: 1 }), RangeError);
    assert.throws(() => new SourceBudget({ failures: 1, windowMs: 0 }), RangeError);
  });
});
