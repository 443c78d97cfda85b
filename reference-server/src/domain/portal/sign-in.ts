// Signing in to the portal with `tenant_system_name\user_name` and the password. It shares the
// password grant's brute-force lock (same principal: the username as presented), so that the
// portal adds no second budget of guesses against one password. Every failure reads the same
// (no account enumeration, OI-10). A user whose password has expired may sign in: the portal then
// opens the password change only (spec §5.5: the user logs on to the portal to change it).
import { isPlausibleUsername } from '../credential-syntax.ts';
import { TooManyAttempts } from '../errors.ts';
import { parseUsername } from '../grants/password.ts';
import type { User } from '../model.ts';
import type { PortalDeps } from './portal-deps.ts';
import { PortalRefusal, portalMessages } from './portal-errors.ts';

export type SignInDeps = Pick<PortalDeps, 'store' | 'clock' | 'hasher' | 'throttle' | 'dummyHash'>;

/** Throws PortalRefusal('locked') while the user name is locked. */
export async function assertNotLocked(
  deps: Pick<PortalDeps, 'throttle'>,
  username: string,
  now: number,
  source?: string,
): Promise<void> {
  try {
    await deps.throttle.assertNotLocked({ kind: 'user', name: username, ...(source !== undefined && { source }) }, now);
  } catch (error) {
    if (error instanceof TooManyAttempts)
      throw new PortalRefusal('locked', portalMessages.locked, [], error.retryAfterSeconds);
    throw error;
  }
}

/** `source`: the caller's network address (the token endpoint's brute-force bounds, attempt-throttle.ts). */
export async function signIn(deps: SignInDeps, username: string, password: string, source?: string): Promise<User> {
  // Cannot be a username: refused like a wrong password, at no cost (no lookup, hash or record).
  if (!isPlausibleUsername(username)) throw new PortalRefusal('invalid-credentials', portalMessages.invalidCredentials);
  const now = deps.clock.now();
  await assertNotLocked(deps, username, now, source);
  const name = parseUsername(username);
  const user = name ? await deps.store.findUser(name.tenant, name.userName) : undefined;
  const matches = await deps.hasher.verify(password, user?.passwordHash ?? (await deps.dummyHash()));
  const principal = { kind: 'user', name: username, ...(source !== undefined && { source }) } as const;
  if (matches && user) await deps.throttle.recordSuccess(principal);
  else await deps.throttle.recordFailure(principal, now);
  if (!user || !matches || !user.active)
    throw new PortalRefusal('invalid-credentials', portalMessages.invalidCredentials);
  return user;
}
