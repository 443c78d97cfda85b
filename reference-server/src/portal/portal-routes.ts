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
//
// Layout (Fastify encapsulation): this plugin's own context holds what every portal answer shares
// (security headers, the form-only body parser, the error page); each route group is a child plugin
// that inherits them and gets the edge helpers and the session guard as its options. Nothing here
// leaks to the token routes or the gateway registered next to it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PortalDeps } from '../domain/portal/portal-deps.ts';
import { accountRoutes } from './account-routes.ts';
import { homeLink, portalEdge, type PortalEdge } from './portal-edge.ts';
import { PORTAL_PREFIX, messageBody, portalPaths } from './pages.ts';
import { sandboxClientRoutes } from './sandbox-client-routes.ts';
import { sessionGuard, type PortalRouteOptions } from './session-guard.ts';
import { signInRoutes } from './sign-in-routes.ts';

export interface PortalRoutesOptions {
  portal: PortalDeps;
  /** HTTPS: the portal is open. Plain HTTP: every portal path answers that it needs HTTPS. */
  secure: boolean;
}

/** Portal forms are small: a few fields of at most a few hundred characters. */
export const PORTAL_BODY_LIMIT = 16 * 1024;

const CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const stylesheet = readFileSync(join(import.meta.dirname, 'portal.css'), 'utf8');

export async function portalRoutes(app: FastifyInstance, options: PortalRoutesOptions): Promise<void> {
  const edge = portalEdge(options.portal);
  addSecurityHeaders(app);
  acceptFormsOnly(app, edge);
  if (!options.secure) {
    await app.register(closedPortalRoutes, { edge });
    return;
  }
  const routeOptions: PortalRouteOptions = { edge, guard: sessionGuard(edge) };
  await app.register(portalEntryRoutes, routeOptions);
  await app.register(signInRoutes, routeOptions);
  await app.register(accountRoutes, routeOptions);
  await app.register(sandboxClientRoutes, routeOptions);
  await app.register(portalNotFoundRoutes, routeOptions);
}

/** On every portal answer, the errors included: no framing, no sniffing, no caching unless a route says so. */
function addSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply) => {
    reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('x-frame-options', 'DENY');
    // same-origin, not no-referrer: under no-referrer Chromium sends `Origin: null` with the portal's own forms.
    reply.header('referrer-policy', 'same-origin');
    reply.header('cross-origin-opener-policy', 'same-origin');
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  });
}

/**
 * Forms only: the raw bytes go to the project's strict form parser (no repeated field, valid UTF-8).
 * Also over --http, where every portal path is closed: a body Fastify cannot take (its media type,
 * its size) then gets the portal's page, never Fastify's default JSON with its error code.
 */
function acceptFormsOnly(app: FastifyInstance, edge: PortalEdge): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: PORTAL_BODY_LIMIT }, (_request, body, done) => {
    done(null, body);
  });
  app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return edge.send(reply, 413, 'Form too large', messageBody('The form sent was too large.'));
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return edge.send(reply, 400, 'Bad request', messageBody('The request could not be read.'));
    }
    request.log.error({ err: error }, 'unexpected error in the portal');
    return edge.send(
      reply,
      500,
      'Something went wrong',
      messageBody('The portal could not complete the request. Nothing secret was logged; try again.', homeLink),
    );
  });
}

/** Route group over plain HTTP (--http): every portal path says the portal needs HTTPS. */
function closedPortalRoutes(app: FastifyInstance, { edge }: { edge: PortalEdge }): Promise<void> {
  const closed = (_request: FastifyRequest, reply: FastifyReply) =>
    edge.send(
      reply,
      404,
      'The portal needs HTTPS',
      messageBody(
        'This server was started with --http. The portal uses Secure cookies and is served over HTTPS only: start the server without --http and open https://…/portal/.',
      ),
    );
  app.all(PORTAL_PREFIX, closed);
  app.all(`${PORTAL_PREFIX}/*`, closed);
  return Promise.resolve();
}

/** Route group: the stylesheet and /portal itself (→ the home page). */
function portalEntryRoutes(app: FastifyInstance): Promise<void> {
  app.get(portalPaths.stylesheet, (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'max-age=3600').send(stylesheet),
  );
  app.get(PORTAL_PREFIX, (_request, reply) => reply.code(308).header('location', portalPaths.home).send());
  return Promise.resolve();
}

/** Route group: any other portal path gets the portal's own not-found page, not the gateway's JSON. */
function portalNotFoundRoutes(app: FastifyInstance, { edge, guard }: PortalRouteOptions): Promise<void> {
  app.all(`${PORTAL_PREFIX}/*`, async (request, reply) => {
    const who = await guard.signedIn(request, reply);
    return edge.send(
      reply,
      404,
      'Page not found',
      messageBody('There is no such page in the portal.', homeLink),
      who?.viewer,
    );
  });
  return Promise.resolve();
}
