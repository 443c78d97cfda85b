// The directory `run --start-reference` keeps the seed's hashes in is the user's own, in the user's
// cache directory (never the temp directory): created private, and refused (each server then hashes the seed itself) when it is shared, a link, or not a directory.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runSeedHashCache, userCacheDir } from '../reference/run-seed-hash-cache.ts';

const base = mkdtempSync(join(tmpdir(), 'tc-seed-cache-test-'));
after(() => rmSync(base, { recursive: true, force: true }));
const dirName = 'token-conformance';

void test("the user's cache directory: $XDG_CACHE_HOME when absolute, else ~/.cache; never the temp directory", () => {
  assert.equal(userCacheDir({ XDG_CACHE_HOME: '/var/cache/me' }), '/var/cache/me');
  assert.equal(userCacheDir({ XDG_CACHE_HOME: 'relative' }), join(homedir(), '.cache'));
  assert.equal(userCacheDir({}), join(homedir(), '.cache'));
});

void test('creates a private directory (and the cache directory itself) and names the cache file in it; the same path on the next run', () => {
  const cacheHome = join(base, 'not-yet');
  const file = runSeedHashCache(cacheHome);
  assert.equal(file, join(cacheHome, dirName, 'seed-hashes.json'));
  assert.equal(statSync(join(cacheHome, dirName)).mode & 0o777, 0o700);
  assert.equal(runSeedHashCache(cacheHome), file);
});

void test('an existing cache directory is used as it is', () => {
  const file = runSeedHashCache(base);
  assert.equal(file, join(base, dirName, 'seed-hashes.json'));
  assert.equal(statSync(join(base, dirName)).mode & 0o777, 0o700);
  assert.equal(runSeedHashCache(base), file);
});

void test('a directory others may write to is not used', () => {
  const shared = mkdtempSync(join(base, 'shared-'));
  mkdirSync(join(shared, dirName));
  chmodSync(join(shared, dirName), 0o777);
  assert.equal(runSeedHashCache(shared), undefined);
});

void test('a link or a file in its place is not used', () => {
  const linked = mkdtempSync(join(base, 'linked-'));
  const elsewhere = mkdtempSync(join(base, 'elsewhere-'));
  chmodSync(elsewhere, 0o700);
  symlinkSync(elsewhere, join(linked, dirName));
  assert.equal(runSeedHashCache(linked), undefined);
  const filed = mkdtempSync(join(base, 'filed-'));
  writeFileSync(join(filed, dirName), 'not a directory');
  assert.equal(runSeedHashCache(filed), undefined);
});
