// `serve --seed-hash-cache FILE`: a second server from the same seed reuses the first one's hashes
// (no scrypt for the seed); a cache of another seed file or of a lower scrypt cost is never used,
// and the reused hashes verify the seed's secrets like freshly made ones.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { BUNDLED_SEED } from '../src/config.ts';
import { testScryptCost, type ScryptCost } from '../src/crypto/scrypt-hasher.ts';
import { createServices } from '../src/services.ts';
import { SqliteStore } from '../src/store/sqlite-store.ts';

const secretOf = (seedFile: string, clientId: string) =>
  (
    JSON.parse(readFileSync(seedFile, 'utf8')) as { clients: { clientId: string; clientSecret: string }[] }
  ).clients.find((c) => c.clientId === clientId)!.clientSecret;

async function seededHash(
  seedFile: string,
  cache: string,
  cost: ScryptCost = testScryptCost,
): Promise<{ hash: string; verifies: boolean }> {
  const services = await createServices({
    store: new SqliteStore(':memory:'),
    environment: 'sandbox',
    testControls: false,
    scryptCost: cost,
    seedFile,
    seedHashCache: cache,
  });
  try {
    const hash = (await services.store.findClient('us-cc-client'))!.secretHash;
    return { hash, verifies: await services.hasher.verify(secretOf(seedFile, 'us-cc-client'), hash) };
  } finally {
    await services.store.close();
  }
}

void test('a second server from the same seed reuses the hashes; another seed or a lower cost never does', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tc-seed-hashes-'));
  try {
    const cache = join(dir, 'seed-hashes.json');
    const first = await seededHash(BUNDLED_SEED, cache);
    assert.ok(first.verifies);
    assert.equal(statSync(cache).mode & 0o777, 0o600, 'the cache file is private');
    assert.ok(
      !readFileSync(cache, 'utf8').includes(secretOf(BUNDLED_SEED, 'us-cc-client')),
      'the cache holds hashes, never a secret',
    );

    const second = await seededHash(BUNDLED_SEED, cache);
    assert.equal(second.hash, first.hash, 'the same salted hash: reused, not hashed again');
    assert.ok(second.verifies);

    // The same records in another seed file (one byte more): another digest, hashed afresh, and the cache rewritten for it.
    const otherSeed = join(dir, 'seed.json');
    copyFileSync(BUNDLED_SEED, otherSeed);
    writeFileSync(otherSeed, `${readFileSync(otherSeed, 'utf8')}\n`);
    const other = await seededHash(otherSeed, cache);
    assert.notEqual(other.hash, first.hash);
    assert.ok(other.verifies);
    assert.equal((await seededHash(otherSeed, cache)).hash, other.hash, 'rewritten for the other seed');

    // A cache made at the test cost is not used by a server with a higher cost.
    const higher = { ...testScryptCost, log2N: testScryptCost.log2N + 1 };
    const costly = await seededHash(otherSeed, cache, higher);
    assert.notEqual(costly.hash, other.hash);
    assert.ok(costly.hash.startsWith(`scrypt$${higher.log2N}$`), "hashed at the server's own cost");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
