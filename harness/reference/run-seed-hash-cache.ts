// Where `run --start-reference` keeps the scrypt hashes of the reference seed between runs
// (`serve --seed-hash-cache`, reference-server/src/store/seed-hash-cache.ts): every run starts four
// servers from the same seed, and each would otherwise pay scrypt's deliberate cost for every secret
// of it again. The file sits in a directory of the user's own under the temp directory (mode 0700,
// owned by this user, not a link); when that cannot be had, each server hashes the seed itself.
// The server reuses a hash only for the same seed file and its own scrypt cost, so a stale or
// foreign file costs a hashing, never a weaker hash.
import { lstatSync, mkdirSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/** The cache directory's name under the temp directory (kept between runs on purpose). */
export function seedHashCacheDirName(uid: number): string {
  return `token-conformance-${userInfo().username}-${uid}`;
}

export function runSeedHashCache(base = tmpdir()): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const dir = join(base, seedHashCacheDirName(uid));
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  }
  try {
    const stat = lstatSync(dir);
    if (!stat.isDirectory() || stat.uid !== uid || (stat.mode & 0o077) !== 0) return undefined;
  } catch {
    return undefined;
  }
  return join(dir, 'seed-hashes.json');
}
