// A restart on the same data file: nothing issued is lost, the seed is not loaded again.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { SqliteStore } from '../src/store/sqlite-store.ts';
import { attempt, issued, pw, rt, seed, testServices } from './helpers.ts';

void test('tokens, keys and data survive a restart; the seed is loaded once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tc-restart-'));
  try {
    const file = join(dir, 'sandbox.sqlite');
    const first = await testServices({ store: new SqliteStore(file) });
    assert.equal(first.seeded, true);
    const tokens = issued(await attempt(first, pw(seed.usPw, seed.alice)));
    await first.store.saveUser({ ...(await first.store.findUser('acme', 'carol'))!, role: 'changed-after-seed' });
    await first.store.close();

    const second = await testServices({ store: new SqliteStore(file) });
    try {
      assert.equal(second.seeded, false);
      assert.equal(
        (await second.store.findUser('acme', 'carol'))?.role,
        'changed-after-seed',
        'the seed never overwrites',
      );
      assert.equal((await second.verifier.verify(tokens.access_token)).ok, true, 'the signing key survived');
      issued(await attempt(second, rt(seed.usPw, tokens.refresh_token!)));
    } finally {
      await second.store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
