// A user's password change (the portal's job, spec §5.5): new hash, the 45-day clock restarts,
// and every outstanding refresh token of the user is revoked (OI-8, RFC 9700 §4.14.2). Every
// refresh-token family of the user is marked revoked as well, so the gateway refuses the access
// tokens issued from them (000-1202, STATE-RT-FAMILY-002).
import type { Clock, SecretHasher, Store } from './ports.ts';

export class UnknownUserError extends Error {
  constructor() {
    super('unknown user');
    this.name = 'UnknownUserError';
  }
}

export interface PasswordChangeDeps {
  store: Store;
  clock: Clock;
  hasher: SecretHasher;
}

export async function changePassword(
  deps: PasswordChangeDeps,
  tenant: string,
  userName: string,
  newPassword: string,
): Promise<{ revokedRefreshTokens: number }> {
  if (newPassword === '') throw new Error('a password must not be empty');
  const user = await deps.store.findUser(tenant, userName);
  if (!user) throw new UnknownUserError();
  const passwordHash = await deps.hasher.hash(newPassword);
  const now = deps.clock.now();
  await deps.store.saveUser({ ...user, passwordHash, passwordChangedAt: now });
  return { revokedRefreshTokens: await deps.store.revokeUserTokens(tenant, userName, now) };
}
