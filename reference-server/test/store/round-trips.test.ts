// Store round trips per token request, counted at the store interface (every call is one statement
// and one round trip on PostgreSQL; the consume that loses adds one read). Pinned, so that a change
// that adds a round trip to the hot paths is seen; the figures go into bench/stores (README). A
// verified secret or password whose check saw no run of failures reads nothing more
// (AttemptThrottle.recordSuccess with its check).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ServerStore } from '../../src/store/server-store.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { attempt, issued, pw, rt, seed, testServices } from '../helpers.ts';

/**
 * The store, with a count of the calls made through it. Without reads of one decision, as on
 * PostgreSQL (whose round trips these are): SQLite's would serve some calls from its row cache.
 */
function counted(store: ServerStore): { store: ServerStore; calls: string[] } {
  const calls: string[] = [];
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      if (name === 'readsOfOneDecision') return undefined;
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(name));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, calls };
}

void test('store round trips: 5 per password grant, 7 per refresh', async () => {
  const { store, calls } = counted(new SqliteStore(':memory:'));
  const s = await testServices({ store });
  try {
    calls.length = 0;
    const tokens = issued(await attempt(s, pw(seed.usPw, seed.alice)));
    const password = [...calls];
    calls.length = 0;
    issued(await attempt(s, rt(seed.usPw, tokens.refresh_token!)));
    const refresh = [...calls];
    assert.deepEqual(
      password,
      ['findFailedAttempts', 'findClient', 'findFailedAttempts', 'findUser', 'saveRefreshToken'],
      'password grant',
    );
    assert.deepEqual(
      refresh,
      [
        'findFailedAttempts',
        'findClient',
        'findRefreshToken',
        'isFamilyRevoked',
        'findUser',
        'consumeRefreshToken',
        'saveRefreshToken',
      ],
      'refresh',
    );
  } finally {
    await s.store.close();
  }
});
