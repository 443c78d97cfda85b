// Where `run --start-reference` keeps the scrypt hashes of the reference seed between runs
// (`serve --seed-hash-cache`, reference-server/src/store/seed-hash-cache.ts): every run starts four
// servers from the same seed, and each would otherwise pay scrypt's deliberate cost for every secret
// of it again. The file sits in a directory of the user's own in the user's cache directory
// ($XDG_CACHE_HOME, else ~/.cache: where npm and Playwright keep theirs, not the temp directory,
// whose token-conformance-* entries are what a run must not leave behind), mode 0700, owned by this
// user, not a link; when that cannot be had, each server hashes the seed itself.
// The server reuses a hash only for the same seed file and its own scrypt cost, so a stale or
// foreign file costs a hashing, never a weaker hash.
import { lstatSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The user's cache directory: $XDG_CACHE_HOME when it is an absolute path, else ~/.cache. */
export function userCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  return xdg !== undefined && xdg.startsWith('/') ? xdg : join(homedir(), '.cache');
}

/** The cache directory's name in the user's cache directory (kept between runs on purpose). */
export const seedHashCacheDirName = 'token-conformance';

export function runSeedHashCache(base = userCacheDir()): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const dir = join(base, seedHashCacheDirName);
  try {
    mkdirSync(base, { recursive: true, mode: 0o700 });
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
