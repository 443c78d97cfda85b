import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FixedWindowRateLimiter } from '../../src/gateway/rate-limiter.ts';
import { FakeClock } from './support/fake-clock.ts';

const start = Date.UTC(2030, 0, 1, 0, 0, 0);

void test('spike: the (n+1)th request within one clock second is 000-2001 with Retry-After to the next second', () => {
  const clock = new FakeClock(start + 250);
  const limiter = new FixedWindowRateLimiter({ spikePerSecond: 2, quotaPerWindow: 100, windowSeconds: 60 }, clock);
  assert.deepEqual([limiter.take('a'), limiter.take('a')], [{ allowed: true }, { allowed: true }]);
  assert.deepEqual(limiter.take('a'), { allowed: false, code: '000-2001', retryAfterSeconds: 1 });
  clock.advance(750);
  assert.deepEqual(limiter.take('a'), { allowed: true });
});

void test('quota: checked before the spike, Retry-After counts whole seconds to the window end, reset by the clock', () => {
  const clock = new FakeClock(start + 10_500);
  const limiter = new FixedWindowRateLimiter({ spikePerSecond: 1, quotaPerWindow: 2, windowSeconds: 60 }, clock);
  assert.equal(limiter.take('a').allowed, true);
  clock.advance(1000);
  assert.equal(limiter.take('a').allowed, true);
  assert.deepEqual(limiter.take('a'), { allowed: false, code: '000-2000', retryAfterSeconds: 49 }); // now 00:00:11.500, window ends 00:01:00
  clock.set(start + 60_000);
  assert.equal(limiter.take('a').allowed, true);
});

void test('a refused request consumes nothing; clients are counted apart', () => {
  const clock = new FakeClock(start);
  const limiter = new FixedWindowRateLimiter({ spikePerSecond: 1, quotaPerWindow: 2, windowSeconds: 3600 }, clock);
  assert.equal(limiter.take('a').allowed, true);
  for (let i = 0; i < 5; i += 1) assert.equal(limiter.take('a').allowed, false);
  assert.equal(limiter.take('b').allowed, true);
  clock.advance(1000);
  assert.equal(limiter.take('a').allowed, true, 'the refused calls did not spend the quota');
});

void test('memory stays bounded: stale windows and then the oldest clients are dropped', () => {
  const clock = new FakeClock(start);
  const limiter = new FixedWindowRateLimiter({ spikePerSecond: 5, quotaPerWindow: 5, windowSeconds: 60 }, clock, 100);
  for (let i = 0; i < 100; i += 1) limiter.take(`old-${i}`);
  clock.advance(60_000);
  for (let i = 0; i < 250; i += 1) limiter.take(`new-${i}`);
  assert.ok(limiter.trackedClients <= 100, `tracked ${limiter.trackedClients}`);
});

void test('nonsense settings are refused', () => {
  assert.throws(
    () => new FixedWindowRateLimiter({ spikePerSecond: 1, quotaPerWindow: 1, windowSeconds: 0 }, new FakeClock()),
    RangeError,
  );
});
