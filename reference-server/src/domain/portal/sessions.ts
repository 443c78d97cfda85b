// Portal sessions: a random 256-bit id in a cookie, stored only as its digest, with a synchronizer
// CSRF token, an idle timeout and an absolute timeout on the injected clock. The caller gets the
// plain id once, at the start, to put in the cookie.
import type { User } from '../model.ts';
import type { PortalDeps } from './portal-deps.ts';
import type { PortalSession } from './portal-ports.ts';

export type SessionDeps = Pick<PortalDeps, 'store' | 'clock' | 'random' | 'digest' | 'settings'>;

export const SESSION_ID_BYTES = 32;

export async function startSession(
  deps: SessionDeps,
  user: Pick<User, 'tenant' | 'userName'>,
): Promise<{ sessionId: string; session: PortalSession }> {
  const now = deps.clock.now();
  const sessionId = deps.random.token(SESSION_ID_BYTES);
  const session: PortalSession = {
    idHash: deps.digest.digest(sessionId),
    tenant: user.tenant,
    userName: user.userName,
    csrfToken: deps.random.token(SESSION_ID_BYTES),
    createdAt: now,
    lastSeenAt: now,
  };
  await deps.store.saveSession(session);
  return { sessionId, session };
}

/** The live session for a cookie value, touched; undefined (and deleted) when it is over. */
export async function resumeSession(deps: SessionDeps, sessionId: string): Promise<PortalSession | undefined> {
  const idHash = deps.digest.digest(sessionId);
  const session = await deps.store.findSession(idHash);
  if (!session) return undefined;
  const now = deps.clock.now();
  const idle = now - session.lastSeenAt >= deps.settings.sessionIdleSeconds * 1000;
  const tooOld = now - session.createdAt >= deps.settings.sessionAbsoluteSeconds * 1000;
  // A clock moved back before the session began (the test clock's reset) ends it too.
  if (idle || tooOld || now < session.createdAt) {
    await deps.store.deleteSession(idHash);
    return undefined;
  }
  await deps.store.touchSession(idHash, now);
  return { ...session, lastSeenAt: now };
}

export async function endSession(deps: Pick<PortalDeps, 'store' | 'digest'>, sessionId: string): Promise<void> {
  await deps.store.deleteSession(deps.digest.digest(sessionId));
}

/**
 * Whether a form's CSRF token is the session's. Digests are compared, not the tokens, so that the
 * comparison's timing says nothing about the token.
 */
export function csrfTokenMatches(
  deps: Pick<PortalDeps, 'digest'>,
  session: PortalSession,
  presented: string | undefined,
): boolean {
  if (presented === undefined || presented === '') return false;
  return deps.digest.digest(presented) === deps.digest.digest(session.csrfToken);
}
