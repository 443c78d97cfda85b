// Route group: signing in and out. Sign-in has no session yet, so its form carries a double-submit
// CSRF token whose cookie is `__Host-` too; every sign-in starts a new session id (no fixation).
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { User } from '../domain/model.ts';
import { PortalRefusal } from '../domain/portal/portal-errors.ts';
import { endSession, startSession } from '../domain/portal/sessions.ts';
import { signIn } from '../domain/portal/sign-in.ts';
import { sourceOf } from '../http/source-address.ts';
import { SESSION_COOKIE, SIGN_IN_COOKIE, clearCookie, readCookies, setCookie } from './cookies.ts';
import { refusalStatus } from './portal-edge.ts';
import { portalPaths, signInBody, signedOutBody } from './pages.ts';
import type { PortalRouteOptions } from './session-guard.ts';

export function signInRoutes(app: FastifyInstance, { edge, guard }: PortalRouteOptions): Promise<void> {
  const { deps } = edge;

  const signInPage = (
    reply: FastifyReply,
    status: number,
    extra: { username?: string; error?: string; notice?: string } = {},
  ): FastifyReply => {
    const token = deps.random.token(32);
    reply.header('set-cookie', setCookie(SIGN_IN_COOKIE, token));
    return edge.send(reply, status, 'Sign in', signInBody({ csrfToken: token, ...extra }));
  };

  app.get(portalPaths.signIn, async (request, reply) => {
    if (await guard.signedIn(request, reply)) return edge.redirect(reply, portalPaths.home);
    return signInPage(reply, 200);
  });

  app.post(portalPaths.signIn, async (request, reply) => {
    if (edge.crossSite(request)) return edge.forged(reply);
    const form = edge.readForm(request, reply);
    if (!form) return reply;
    const cookieToken = readCookies(request.headers.cookie).get(SIGN_IN_COOKIE);
    const formToken = form.get('csrf');
    if (
      cookieToken === undefined ||
      formToken === undefined ||
      deps.digest.digest(cookieToken) !== deps.digest.digest(formToken)
    ) {
      request.log.warn('portal sign-in refused: CSRF token missing or wrong');
      return edge.forged(reply);
    }
    const username = (form.get('username') ?? '').trim();
    let user: User;
    try {
      user = await signIn(deps, username, form.get('password') ?? '', sourceOf(request.ip));
    } catch (error) {
      if (!(error instanceof PortalRefusal)) throw error;
      // Never the presented user name: a password typed into the wrong field would land in the log.
      request.log.info({ reason: error.reason }, 'portal sign-in refused');
      if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
      const minutes = Math.ceil((error.retryAfterSeconds ?? 0) / 60);
      const message =
        error.reason === 'locked'
          ? `${error.message} (about ${minutes} minute${minutes === 1 ? '' : 's'})`
          : error.message;
      return signInPage(reply, refusalStatus[error.reason], { username, error: message });
    }
    // A new session id at every sign-in (no fixation); an older session of this browser ends.
    const previous = readCookies(request.headers.cookie).get(SESSION_COOKIE);
    if (previous !== undefined) await endSession(deps, previous);
    const { sessionId } = await startSession(deps, user);
    request.log.info({ tenant: user.tenant, user: user.userName }, 'portal sign-in');
    reply.header('set-cookie', [setCookie(SESSION_COOKIE, sessionId), clearCookie(SIGN_IN_COOKIE)]);
    return edge.redirect(reply, edge.passwordStatusOf(user).expired ? portalPaths.password : portalPaths.home);
  });

  app.post(
    portalPaths.signOut,
    guard.withSession(
      async (request, reply, who) => {
        await endSession(deps, who.sessionId);
        request.log.info({ tenant: who.user.tenant, user: who.user.userName }, 'portal sign-out');
        reply.header('set-cookie', clearCookie(SESSION_COOKIE));
        return edge.send(reply, 200, 'Signed out', signedOutBody());
      },
      { openWhenExpired: true },
    ),
  );
  return Promise.resolve();
}
