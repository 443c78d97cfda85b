// The portal's HTTP edge, under /portal on the server's HTTPS listener. HTTP concerns only: cookies,
// CSRF, form parsing, status codes, security headers and rendering; every decision is a use case of
// src/domain/portal. Over plain HTTP (--http) the portal is closed: its cookies are Secure and
// `__Host-`, which a browser keeps only from an HTTPS origin.
//
// Sessions: a `__Host-` cookie (Secure, HttpOnly, SameSite=Strict) holding a random 256-bit id; the
// store keeps only its digest (domain/portal/sessions.ts). CSRF: every form of a session carries the
// session's synchronizer token; the sign-in form, before any session, a double-submit token whose
// cookie is `__Host-` too. Any POST whose Origin (or Sec-Fetch-Site) says another site sent it is
// refused before that. No secret ever goes into a URL: every change is a POST, and new secrets are
// shown in the answer to that POST (no-store), never redirected to.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { User } from '../domain/model.ts';
import { changeOwnPassword } from '../domain/portal/change-own-password.ts';
import { passwordStatus } from '../domain/portal/password-status.ts';
import type { PortalDeps } from '../domain/portal/portal-deps.ts';
import { PortalRefusal, portalMessages, type PortalRefusalReason } from '../domain/portal/portal-errors.ts';
import type { PortalSession } from '../domain/portal/portal-ports.ts';
import {
  deleteSandboxClient, findSandboxClient, listSandboxClients, registerSandboxClient, rotateSandboxClientSecret,
} from '../domain/portal/sandbox-clients.ts';
import { csrfTokenMatches, endSession, resumeSession, startSession } from '../domain/portal/sessions.ts';
import { signIn } from '../domain/portal/sign-in.ts';
import { passwordPolicyRules } from '../domain/password-policy.ts';
import { FormBodyError, isFormContentType, parseFormBody } from '../http/form-body.ts';
import { sourceOf } from '../http/source-address.ts';
import { SESSION_COOKIE, SIGN_IN_COOKIE, clearCookie, readCookies, setCookie } from './cookies.ts';
import type { SafeHtml } from './html.ts';
import {
  PORTAL_PREFIX, clientDeletedBody, clientsBody, confirmBody, credentialsBody, emptyClientForm, homeBody, messageBody, page,
  passwordBody, passwordChangedBody, portalPaths, signInBody, signedOutBody, type ClientFormValues, type Viewer,
} from './pages.ts';

export interface PortalRoutesOptions {
  portal: PortalDeps;
  /** HTTPS: the portal is open. Plain HTTP: every portal path answers that it needs HTTPS. */
  secure: boolean;
}

/** Portal forms are small: a few fields of at most a few hundred characters. */
export const PORTAL_BODY_LIMIT = 16 * 1024;

const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const stylesheet = readFileSync(join(import.meta.dirname, 'portal.css'), 'utf8');

interface SignedIn {
  sessionId: string;
  session: PortalSession;
  user: User;
  viewer: Viewer;
}

const refusalStatus: Record<PortalRefusalReason, number> = {
  'invalid-credentials': 401, locked: 429, 'invalid-input': 400, forbidden: 403, 'not-found': 404, 'production-closed': 403, 'limit-reached': 409,
};

export function portalRoutes(app: FastifyInstance, options: PortalRoutesOptions): Promise<void> {
  const deps = options.portal;
  const environment = deps.environment;

  app.addHook('onSend', async (_request, reply) => {
    reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('x-frame-options', 'DENY');
    // same-origin, not no-referrer: under no-referrer Chromium sends `Origin: null` with the portal's own forms.
    reply.header('referrer-policy', 'same-origin');
    reply.header('cross-origin-opener-policy', 'same-origin');
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  });

  const send = (reply: FastifyReply, status: number, title: string, body: SafeHtml, viewer?: Viewer): FastifyReply =>
    reply.code(status).type('text/html; charset=utf-8').send(page({ title, environment, ...(viewer && { viewer }) }, body));
  const redirect = (reply: FastifyReply, to: string): FastifyReply => reply.code(303).header('location', to).send();

  // Forms only: the raw bytes go to the project's strict form parser (no repeated field, valid UTF-8).
  // Also over --http, where every portal path is closed: a body Fastify cannot take (its media
  // type, its size) then gets the portal's page, never Fastify's default JSON with its error code.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: PORTAL_BODY_LIMIT }, (_request, body, done) => {
    done(null, body);
  });
  app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return send(reply, 413, 'Form too large', messageBody('The form sent was too large.'));
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return send(reply, 400, 'Bad request', messageBody('The request could not be read.'));
    }
    request.log.error({ err: error }, 'unexpected error in the portal');
    return send(reply, 500, 'Something went wrong', messageBody('The portal could not complete the request. Nothing secret was logged; try again.', { href: portalPaths.home, label: 'Portal home' }));
  });

  if (!options.secure) {
    const closed = (_request: FastifyRequest, reply: FastifyReply) =>
      send(reply, 404, 'The portal needs HTTPS', messageBody('This server was started with --http. The portal uses Secure cookies and is served over HTTPS only: start the server without --http and open https://…/portal/.'));
    app.all(PORTAL_PREFIX, closed);
    app.all(`${PORTAL_PREFIX}/*`, closed);
    return Promise.resolve();
  }

  /** The submitted form; undefined (after answering) when the body is not a well-formed form. */
  function readForm(request: FastifyRequest, reply: FastifyReply): Map<string, string> | undefined {
    if (!isFormContentType(request.headers['content-type'])) {
      void send(reply, 415, 'Bad request', messageBody('Portal forms are sent as application/x-www-form-urlencoded.'));
      return undefined;
    }
    try {
      return request.body instanceof Uint8Array ? parseFormBody(request.body) : new Map();
    } catch (error) {
      if (!(error instanceof FormBodyError)) throw error;
      void send(reply, 400, 'Bad request', messageBody('The form could not be read (a repeated or malformed field).'));
      return undefined;
    }
  }

  /** A POST another site started: its Origin is not ours, or the browser says it is cross-site. */
  function crossSite(request: FastifyRequest): boolean {
    const fetchSite = request.headers['sec-fetch-site'];
    if (fetchSite === 'cross-site' || fetchSite === 'same-site') return true;
    const origin = request.headers.origin;
    return origin !== undefined && origin !== `https://${request.headers.host ?? ''}`;
  }

  const forged = (reply: FastifyReply, viewer?: Viewer): FastifyReply =>
    send(reply, 403, 'Form refused', messageBody('The form could not be verified: it is out of date or was sent from another site. Nothing was changed. Open the page again and resend it.', { href: portalPaths.home, label: 'Portal home' }), viewer);

  /** The signed-in user of a request, or undefined (the stale cookie is then cleared). */
  async function signedIn(request: FastifyRequest, reply: FastifyReply): Promise<SignedIn | undefined> {
    const sessionId = readCookies(request.headers.cookie).get(SESSION_COOKIE);
    if (sessionId === undefined) return undefined;
    const session = await resumeSession(deps, sessionId);
    const user = session && await deps.store.findUser(session.tenant, session.userName);
    if (!session || !user || !user.active) {
      if (session) await endSession(deps, sessionId);
      reply.header('set-cookie', clearCookie(SESSION_COOKIE));
      return undefined;
    }
    const status = passwordStatus(user, deps.clock.now(), deps.settings.passwordMaxAgeDays, deps.settings.passwordWarningDays);
    return { sessionId, session, user, viewer: { user, status, csrfToken: session.csrfToken } };
  }

  type WithForm = SignedIn & { form: Map<string, string> };
  type Handler = (request: FastifyRequest, reply: FastifyReply, who: WithForm) => Promise<FastifyReply> | FastifyReply;

  /**
   * Wraps a page that needs a session: no session → the sign-in page; a POST → its form read and
   * its CSRF token checked; an expired password → only the password change (and sign-out) open.
   */
  function withSession(handler: Handler, opts: { openWhenExpired?: boolean } = {}) {
    return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      const post = request.method === 'POST';
      if (post && crossSite(request)) return forged(reply);
      const who = await signedIn(request, reply);
      if (!who) return redirect(reply, portalPaths.signIn);
      let form = new Map<string, string>();
      if (post) {
        const read = readForm(request, reply);
        if (!read) return reply;
        form = read;
        if (!csrfTokenMatches(deps, who.session, form.get('csrf'))) {
          request.log.warn('portal form refused: CSRF token missing or wrong');
          return forged(reply, who.viewer);
        }
      }
      if (who.viewer.status.expired && !opts.openWhenExpired) return redirect(reply, portalPaths.password);
      try {
        return await handler(request, reply, { ...who, form });
      } catch (error) {
        if (!(error instanceof PortalRefusal)) throw error;
        request.log.info({ reason: error.reason }, 'portal request refused');
        if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
        return send(reply, refusalStatus[error.reason], error.reason === 'not-found' ? 'Not found' : 'Not allowed', messageBody(error.message, { href: portalPaths.home, label: 'Portal home' }), who.viewer);
      }
    };
  }

  app.get(portalPaths.stylesheet, (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'max-age=3600').send(stylesheet));

  app.get(PORTAL_PREFIX, (_request, reply) => reply.code(308).header('location', portalPaths.home).send());

  // --- sign-in and sign-out -------------------------------------------------------------------

  const signInPage = (reply: FastifyReply, status: number, extra: { username?: string; error?: string; notice?: string } = {}): FastifyReply => {
    const token = deps.random.token(32);
    reply.header('set-cookie', setCookie(SIGN_IN_COOKIE, token));
    return send(reply, status, 'Sign in', signInBody({ csrfToken: token, ...extra }));
  };

  app.get(portalPaths.signIn, async (request, reply) => {
    if (await signedIn(request, reply)) return redirect(reply, portalPaths.home);
    return signInPage(reply, 200);
  });

  app.post(portalPaths.signIn, async (request, reply) => {
    if (crossSite(request)) return forged(reply);
    const form = readForm(request, reply);
    if (!form) return reply;
    const cookieToken = readCookies(request.headers.cookie).get(SIGN_IN_COOKIE);
    const formToken = form.get('csrf');
    if (cookieToken === undefined || formToken === undefined || deps.digest.digest(cookieToken) !== deps.digest.digest(formToken)) {
      request.log.warn('portal sign-in refused: CSRF token missing or wrong');
      return forged(reply);
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
      const message = error.reason === 'locked' ? `${error.message} (about ${minutes} minute${minutes === 1 ? '' : 's'})` : error.message;
      return signInPage(reply, refusalStatus[error.reason], { username, error: message });
    }
    // A new session id at every sign-in (no fixation); an older session of this browser ends.
    const previous = readCookies(request.headers.cookie).get(SESSION_COOKIE);
    if (previous !== undefined) await endSession(deps, previous);
    const { sessionId } = await startSession(deps, user);
    request.log.info({ tenant: user.tenant, user: user.userName }, 'portal sign-in');
    reply.header('set-cookie', [setCookie(SESSION_COOKIE, sessionId), clearCookie(SIGN_IN_COOKIE)]);
    const status = passwordStatus(user, deps.clock.now(), deps.settings.passwordMaxAgeDays, deps.settings.passwordWarningDays);
    return redirect(reply, status.expired ? portalPaths.password : portalPaths.home);
  });

  app.post(portalPaths.signOut, withSession(async (request, reply, who) => {
    await endSession(deps, who.sessionId);
    request.log.info({ tenant: who.user.tenant, user: who.user.userName }, 'portal sign-out');
    reply.header('set-cookie', clearCookie(SESSION_COOKIE));
    return send(reply, 200, 'Signed out', signedOutBody());
  }, { openWhenExpired: true }));

  // --- home and password ------------------------------------------------------------------------

  app.get(portalPaths.home, withSession((_request, reply, who) => send(reply, 200, 'Portal home', homeBody(who.viewer, environment), who.viewer)));

  app.get(portalPaths.password, withSession((_request, reply, who) =>
    send(reply, 200, 'Change your password', passwordBody({ viewer: who.viewer, rules: passwordPolicyRules }), who.viewer), { openWhenExpired: true }));

  app.post(portalPaths.password, withSession(async (request, reply, who) => {
    try {
      const outcome = await changeOwnPassword(deps, who.user, {
        currentPassword: who.form.get('current_password') ?? '',
        newPassword: who.form.get('new_password') ?? '',
        confirmation: who.form.get('confirm_password') ?? '',
      }, who.session.idHash);
      request.log.info({ tenant: who.user.tenant, user: who.user.userName, revokedRefreshTokens: outcome.revokedRefreshTokens }, 'portal password changed');
      const user = await deps.store.findUser(who.user.tenant, who.user.userName) ?? who.user;
      const status = passwordStatus(user, deps.clock.now(), deps.settings.passwordMaxAgeDays, deps.settings.passwordWarningDays);
      const viewer = { ...who.viewer, user, status };
      return send(reply, 200, 'Password changed', passwordChangedBody(outcome, status), viewer);
    } catch (error) {
      if (!(error instanceof PortalRefusal) || error.reason === 'locked') throw error;
      return send(reply, refusalStatus[error.reason], 'Change your password', passwordBody({ viewer: who.viewer, rules: passwordPolicyRules, message: error.message, problems: error.problems }), who.viewer);
    }
  }, { openWhenExpired: true }));

  // --- sandbox client applications --------------------------------------------------------------

  const clientsPage = async (reply: FastifyReply, status: number, who: SignedIn, extra: { values?: ClientFormValues; message?: string; problems?: readonly string[] } = {}): Promise<FastifyReply> => {
    const clients = environment === 'sandbox' ? await listSandboxClients(deps, who.user) : [];
    return send(reply, status, 'Client applications', clientsBody({
      viewer: who.viewer, environment, clients, roles: deps.settings.sandboxRoles, contact: deps.settings.dataServicesContact, ...extra,
    }), who.viewer);
  };
  const requireAdmin = (who: SignedIn): void => {
    if (!who.user.tenantAdmin) throw new PortalRefusal('forbidden', portalMessages.notAdmin);
  };

  app.get(portalPaths.clients, withSession((_request, reply, who) => {
    requireAdmin(who);
    return clientsPage(reply, 200, who);
  }));

  app.post(portalPaths.clients, withSession(async (request, reply, who) => {
    requireAdmin(who);
    const values: ClientFormValues = {
      name: who.form.get('name') ?? '',
      region: who.form.get('region') ?? '',
      clientCredentials: who.form.get('grant_client_credentials') === 'on',
      password: who.form.get('grant_password') === 'on',
      role: who.form.get('role') ?? emptyClientForm.role,
    };
    try {
      const issued = await registerSandboxClient(deps, who.user, values);
      request.log.info({ client_id: issued.client.clientId, tenant: who.user.tenant }, 'portal sandbox client registered');
      return send(reply, 201, 'Client registered', credentialsBody(issued.client, issued.clientSecret, false), who.viewer);
    } catch (error) {
      if (!(error instanceof PortalRefusal) || (error.reason !== 'invalid-input' && error.reason !== 'limit-reached')) throw error;
      return clientsPage(reply, refusalStatus[error.reason], who, { values, message: error.message, problems: error.problems });
    }
  }));

  for (const action of ['rotate', 'delete'] as const) {
    const path = `${PORTAL_PREFIX}/clients/:clientId/${action}`;
    const title = action === 'rotate' ? 'Rotate the client secret' : 'Delete the client application';
    app.get(path, withSession(async (request, reply, who) => {
      requireAdmin(who);
      const client = await findSandboxClient(deps, who.user, (request.params as { clientId: string }).clientId);
      return send(reply, 200, title, confirmBody(who.viewer, client, action), who.viewer);
    }));
    app.post(path, withSession(async (request, reply, who) => {
      requireAdmin(who);
      const clientId = (request.params as { clientId: string }).clientId;
      if (action === 'rotate') {
        const issued = await rotateSandboxClientSecret(deps, who.user, clientId);
        request.log.info({ client_id: clientId, tenant: who.user.tenant }, 'portal client secret rotated');
        return send(reply, 200, 'Secret rotated', credentialsBody(issued.client, issued.clientSecret, true), who.viewer);
      }
      const deleted = await deleteSandboxClient(deps, who.user, clientId);
      request.log.info({ client_id: clientId, tenant: who.user.tenant }, 'portal sandbox client deleted');
      return send(reply, 200, 'Client deleted', clientDeletedBody(deleted), who.viewer);
    }));
  }

  // Any other portal path: the portal's own not-found page, not the gateway's JSON.
  app.all(`${PORTAL_PREFIX}/*`, async (request, reply) => {
    const who = await signedIn(request, reply);
    return send(reply, 404, 'Page not found', messageBody('There is no such page in the portal.', { href: portalPaths.home, label: 'Portal home' }), who?.viewer);
  });
  return Promise.resolve();
}
