// The scrypt hashes of a seed file's secrets, kept in a file so that the next server started from
// the same seed file reuses them instead of hashing every client secret and password again (scrypt
// is slow by design, and a test harness that starts dozens of servers, like the self-validation,
// would pay it at every start). Opt-in (`serve --seed-hash-cache FILE`), never used otherwise. The
// file holds only what the store holds (salted scrypt hashes), and is trusted like the seed file itself. A
// hash is reused only when the cache was written for the same seed file (a SHA-256 of its bytes)
// and with the server's own scrypt cost, so a cache never lowers the cost of the stored hashes.
import { createHash } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import type { SeedRecords } from './server-store.ts';

export interface SeedHashes {
  /** clientId → the encoded hash of its secret. */
  clients: Record<string, string>;
  /** username (tenant\user, as in the seed) → the encoded hash of its password. */
  users: Record<string, string>;
}

const cacheSchema = z.strictObject({
  seedDigest: z.string(),
  clients: z.record(z.string(), z.string()),
  users: z.record(z.string(), z.string()),
});

export async function seedDigest(seedFile: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(seedFile))
    .digest('hex');
}

/**
 * The hashes of the cache file that were written for this seed (digest) with this cost (the
 * prefix of an encoded hash, e.g. `scrypt$14$8$1$`); undefined when there is no usable file.
 */
export async function readSeedHashCache(
  file: string,
  digest: string,
  costPrefix: string,
): Promise<SeedHashes | undefined> {
  let parsed: z.infer<typeof cacheSchema>;
  try {
    parsed = cacheSchema.parse(JSON.parse(await readFile(file, 'utf8')));
  } catch {
    return undefined;
  }
  if (parsed.seedDigest !== digest) return undefined;
  const withCost = (hashes: Record<string, string>) =>
    Object.fromEntries(Object.entries(hashes).filter(([, h]) => h.startsWith(costPrefix)));
  return { clients: withCost(parsed.clients), users: withCost(parsed.users) };
}

/** The seeded records' hashes, keyed as the seed file names them. */
export function hashesOf(records: SeedRecords): SeedHashes {
  return {
    clients: Object.fromEntries(records.clients.map((c) => [c.clientId, c.secretHash])),
    users: Object.fromEntries(records.users.map((u) => [`${u.tenant}\\${u.userName}`, u.passwordHash])),
  };
}

/** Writes the cache (private, replaced whole: a server starting meanwhile reads the old file or the new one). */
export async function writeSeedHashCache(file: string, digest: string, hashes: SeedHashes): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ seedDigest: digest, ...hashes })}\n`, { mode: 0o600 });
  await rename(temporary, file);
}
