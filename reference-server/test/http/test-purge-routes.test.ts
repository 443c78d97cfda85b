// POST /__test/purge: only with --test-controls; purges at the test clock's time, so a test that
// moved the clock sees expired refresh tokens go while unexpired ones stay usable.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TEST_CLOCK_PATH } from '../../src/http/test-clock-routes.ts';
import { TEST_PURGE_PATH } from '../../src/http/test-purge-routes.ts';
import { DAY, HOUR, json, pw, rt, seed, testApp } from '../helpers.ts';

void describe('purge control', () => {
  void test('absent without --test-controls', async () => {
    const t = await testApp({ testControls: false });
    try {
      const r = await t.app.inject({ method: 'POST', url: TEST_PURGE_PATH, headers: { host: '127.0.0.1' } });
      assert.notEqual(r.statusCode, 200);
    } finally {
      await t.close();
    }
  });

  void test('deletes refresh tokens expired for longer than the grace at the test clock, keeps the others', async () => {
    // Password tokens live 100 s; their refresh tokens 7 days after that (OI-4).
    const t = await testApp({ testControls: true, tokens: { passwordLifetimeSeconds: 100 } });
    try {
      const purge = async () => json(await t.app.inject({ method: 'POST', url: TEST_PURGE_PATH }));
      const advance = (seconds: number) =>
        t.app.inject({
          method: 'POST',
          url: TEST_CLOCK_PATH,
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ advanceSeconds: seconds }),
        });
      const old = json(await t.token(pw(seed.usPw, seed.alice))).refresh_token as string;
      assert.deepEqual(await purge(), { refreshTokens: 0, failedAttempts: 0 }, 'nothing has expired yet');

      // Past the old token's expiry plus the one-hour grace; a new token issued then is unexpired.
      await advance(100 + 7 * DAY + HOUR + 1);
      const fresh = json(await t.token(pw(seed.usPw, seed.alice))).refresh_token as string;
      assert.deepEqual(await purge(), { refreshTokens: 1, failedAttempts: 0 });

      assert.equal((await t.token(rt(seed.usPw, fresh))).statusCode, 200, 'the unexpired token survived the purge');
      assert.equal(json(await t.token(rt(seed.usPw, old))).error, 'invalid_grant', 'the purged token is unknown');
    } finally {
      await t.close();
    }
  });
});
