// The portal's session at the HTTP edge: who is signed in (from the `__Host-` session cookie), and
// the guard every page behind the sign-in goes through. Route groups get it, with the edge, as
// their plugin options (PortalRouteOptions).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { User } from '../domain/model.ts';
import { PortalRefusal } from '../domain/portal/portal-errors.ts';
import type { PortalSession } from '../domain/portal/portal-ports.ts';
import { csrfTokenMatches, endSession, resumeSession } from '../domain/portal/sessions.ts';
import { SESSION_COOKIE, clearCookie, readCookies } from './cookies.ts';
import { homeLink, refusalStatus, type PortalEdge } from './portal-edge.ts';
import { messageBody, portalPaths, type Viewer } from './pages.ts';

export interface SignedIn {
  sessionId: string;
  session: PortalSession;
  user: User;
  viewer: Viewer;
}

export type WithForm = SignedIn & { form: Map<string, string> };
export type SessionHandler = (
  request: FastifyRequest,
  reply: FastifyReply,
  who: WithForm,
) => Promise<FastifyReply> | FastifyReply;

export interface SessionGuard {
  /** The signed-in user of a request, or undefined (the stale cookie is then cleared). */
  signedIn(request: FastifyRequest, reply: FastifyReply): Promise<SignedIn | undefined>;
  /**
   * Wraps a page that needs a session: no session → the sign-in page; a POST → its form read and
   * its CSRF token checked; an expired password → only the password change (and sign-out) open.
   * A PortalRefusal the handler throws becomes the portal's refusal page.
   */
  withSession(
    handler: SessionHandler,
    options?: { openWhenExpired?: boolean },
  ): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;
}

/** The options of every route group of the portal (each a Fastify plugin under portalRoutes). */
export interface PortalRouteOptions {
  edge: PortalEdge;
  guard: SessionGuard;
}

export function sessionGuard(edge: PortalEdge): SessionGuard {
  const { deps } = edge;

  async function signedIn(request: FastifyRequest, reply: FastifyReply): Promise<SignedIn | undefined> {
    const sessionId = readCookies(request.headers.cookie).get(SESSION_COOKIE);
    if (sessionId === undefined) return undefined;
    const session = await resumeSession(deps, sessionId);
    const user = session && (await deps.store.findUser(session.tenant, session.userName));
    if (!session || !user || !user.active) {
      if (session) await endSession(deps, sessionId);
      reply.header('set-cookie', clearCookie(SESSION_COOKIE));
      return undefined;
    }
    return {
      sessionId,
      session,
      user,
      viewer: { user, status: edge.passwordStatusOf(user), csrfToken: session.csrfToken },
    };
  }

  function withSession(handler: SessionHandler, options: { openWhenExpired?: boolean } = {}) {
    return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      const post = request.method === 'POST';
      if (post && edge.crossSite(request)) return edge.forged(reply);
      const who = await signedIn(request, reply);
      if (!who) return edge.redirect(reply, portalPaths.signIn);
      let form = new Map<string, string>();
      if (post) {
        const read = edge.readForm(request, reply);
        if (!read) return reply;
        form = read;
        if (!csrfTokenMatches(deps, who.session, form.get('csrf'))) {
          request.log.warn('portal form refused: CSRF token missing or wrong');
          return edge.forged(reply, who.viewer);
        }
      }
      if (who.viewer.status.expired && !options.openWhenExpired) return edge.redirect(reply, portalPaths.password);
      try {
        return await handler(request, reply, { ...who, form });
      } catch (error) {
        if (!(error instanceof PortalRefusal)) throw error;
        request.log.info({ reason: error.reason }, 'portal request refused');
        if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
        return edge.send(
          reply,
          refusalStatus[error.reason],
          error.reason === 'not-found' ? 'Not found' : 'Not allowed',
          messageBody(error.message, homeLink),
          who.viewer,
        );
      }
    };
  }

  return { signedIn, withSession };
}
