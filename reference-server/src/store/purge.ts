// Deleting what can no longer be used: refresh tokens expired for longer than a grace period, and
// failed-attempt counts that can no longer lock anyone (no failure and no lock within the lock
// window). In small batches, so that the database is never held for long.
import type { Store } from '../domain/ports.ts';

export const PURGE_BATCH = 500;
/** Expired refresh tokens are kept this long before the purge deletes them. */
export const PURGE_GRACE_MS = 3_600_000;

export type PurgeStore = Pick<Store, 'purgeExpired' | 'purgeFailedAttempts'>;

export interface PurgeCutoffs {
  /** Refresh tokens that expired before this instant (epoch ms) go. */
  refreshTokensExpiredBefore: number;
  /** Failed-attempt states whose last failure and lock ended before this instant go. */
  failedAttemptsBefore: number;
}

/** The cutoffs at `now` (epoch ms) for a lock window of `lockoutMs`. */
export function purgeCutoffs(now: number, lockoutMs: number): PurgeCutoffs {
  return { refreshTokensExpiredBefore: now - PURGE_GRACE_MS, failedAttemptsBefore: now - lockoutMs };
}

export interface PurgeCount {
  refreshTokens: number;
  failedAttempts: number;
}

/** Purges everything past the cutoffs at once, batch after batch (for the test control). */
export async function purgeAll(store: PurgeStore, cutoffs: PurgeCutoffs): Promise<PurgeCount> {
  const drain = async (purge: (limit: number) => Promise<number>): Promise<number> => {
    let total = 0;
    for (let deleted = PURGE_BATCH; deleted === PURGE_BATCH; total += deleted) deleted = await purge(PURGE_BATCH);
    return total;
  };
  return {
    refreshTokens: await drain((limit) => store.purgeExpired(cutoffs.refreshTokensExpiredBefore, limit)),
    failedAttempts: await drain((limit) => store.purgeFailedAttempts(cutoffs.failedAttemptsBefore, limit)),
  };
}
