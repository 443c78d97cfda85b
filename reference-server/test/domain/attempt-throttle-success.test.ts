// recordSuccess after assertNotLocked: when the check saw no run of failures and no failure was
// recorded since, the store is not read again (the token endpoint's hot path); a failure recorded
// in between, or a run seen by the check, still ends with the run forgotten.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AttemptThrottle, type ThrottleStore } from '../../src/domain/attempt-throttle.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';

/** The store, counting the reads of failed-attempt rows. */
function countingReads(store: SqliteStore): ThrottleStore & { reads: number } {
  const counted = {
    reads: 0,
    findFailedAttempts: (p: Parameters<ThrottleStore['findFailedAttempts']>[0]) => {
      counted.reads += 1;
      return store.findFailedAttempts(p);
    },
    recordFailedAttempt: store.recordFailedAttempt.bind(store),
    lockPrincipal: store.lockPrincipal.bind(store),
    clearFailedAttempts: store.clearFailedAttempts.bind(store),
  };
  return counted;
}

const settings = { userFailures: 3, clientFailures: 5, lockSeconds: 60, sourceFailures: 1000 };
const client = { kind: 'client', name: 'c', source: '192.0.2.1' } as const;

void describe('AttemptThrottle.recordSuccess with the check of its attempt', () => {
  void test('no run seen and no failure since: one read per attempt, not two', async () => {
    const sqlite = new SqliteStore(':memory:');
    const store = countingReads(sqlite);
    const throttle = new AttemptThrottle(store, settings);
    const check = await throttle.assertNotLocked(client, 1000);
    assert.equal(store.reads, 1);
    await throttle.recordSuccess(client, check);
    assert.equal(store.reads, 1, 'nothing to forget: no second read');
    await throttle.recordSuccess(client);
    assert.equal(store.reads, 2, 'without a check it reads as before');
  });

  void test('a failure recorded between the check and the success is forgotten by the success', async () => {
    const sqlite = new SqliteStore(':memory:');
    const throttle = new AttemptThrottle(countingReads(sqlite), settings);
    const check = await throttle.assertNotLocked(client, 1000);
    assert.equal(check.noRun, true);
    // Another request of the same client from the same source fails while this one is verified.
    await throttle.recordFailure(client, 1001);
    assert.equal((await sqlite.findFailedAttempts(client))?.failures, 1);
    await throttle.recordSuccess(client, check);
    assert.equal(await sqlite.findFailedAttempts(client), undefined, 'the run ends with the verified secret');
  });

  void test('a run seen by the check is forgotten by the success', async () => {
    const sqlite = new SqliteStore(':memory:');
    const throttle = new AttemptThrottle(countingReads(sqlite), settings);
    await throttle.recordFailure(client, 1000);
    const check = await throttle.assertNotLocked(client, 1001);
    assert.equal(check.noRun, false);
    await throttle.recordSuccess(client, check);
    assert.equal(await sqlite.findFailedAttempts(client), undefined);
  });
});
