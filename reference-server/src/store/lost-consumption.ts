// Why a refresh token's conditional consumption did not win, the same in every store: read the
// token afresh after the atomic UPDATE matched nothing, and name the first reason that holds.
import type { ConsumeRefreshTokenResult, Store } from '../domain/ports.ts';

export async function lostConsumption(
  store: Pick<Store, 'findRefreshToken' | 'isFamilyRevoked'>,
  tokenHash: string,
  clientId: string,
): Promise<Exclude<ConsumeRefreshTokenResult, { outcome: 'consumed' }>> {
  const record = await store.findRefreshToken(tokenHash);
  if (!record) return { outcome: 'unknown' };
  if (record.clientId !== clientId) return { outcome: 'wrong-client', record };
  if (record.usedAt !== null) return { outcome: 'already-used', record };
  if (record.revokedAt !== null || (await store.isFamilyRevoked(record.familyId)))
    return { outcome: 'revoked', record };
  return { outcome: 'expired', record };
}
