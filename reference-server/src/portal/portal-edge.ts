// What every portal route needs at the HTTP edge, built once per server by portalRoutes and handed to
// each route group (a Fastify plugin) as an option: answering with a page, redirecting, reading a
// form with the project's strict parser, spotting a POST another site started, and the HTTP status
// of each refusal of a portal use case.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { User } from '../domain/model.ts';
import { passwordStatus, type PasswordStatus } from '../domain/portal/password-status.ts';
import type { PortalDeps } from '../domain/portal/portal-deps.ts';
import type { PortalRefusalReason } from '../domain/portal/portal-errors.ts';
import { FormBodyError, isFormContentType, parseFormBody } from '../http/form-body.ts';
import type { SafeHtml } from './html.ts';
import { messageBody, page, portalPaths, type Viewer } from './pages.ts';

export interface PortalEdge {
  deps: PortalDeps;
  send(reply: FastifyReply, status: number, title: string, body: SafeHtml, viewer?: Viewer): FastifyReply;
  /** 303 See Other: after a POST the browser follows with a GET. */
  redirect(reply: FastifyReply, to: string): FastifyReply;
  /** The submitted form; undefined (after answering) when the body is not a well-formed form. */
  readForm(request: FastifyRequest, reply: FastifyReply): Map<string, string> | undefined;
  /** A POST another site started: its Origin is not ours, or the browser says it is cross-site. */
  crossSite(request: FastifyRequest): boolean;
  /** The answer to a form whose CSRF token or origin does not hold. */
  forged(reply: FastifyReply, viewer?: Viewer): FastifyReply;
  /** The user's password age against the 45-day rule, at the clock's now. */
  passwordStatusOf(user: User): PasswordStatus;
}

export const refusalStatus: Record<PortalRefusalReason, number> = {
  'invalid-credentials': 401,
  locked: 429,
  'invalid-input': 400,
  forbidden: 403,
  'not-found': 404,
  'production-closed': 403,
  'limit-reached': 409,
};

export const homeLink = { href: portalPaths.home, label: 'Portal home' } as const;

export function portalEdge(deps: PortalDeps): PortalEdge {
  const send = (reply: FastifyReply, status: number, title: string, body: SafeHtml, viewer?: Viewer): FastifyReply =>
    reply
      .code(status)
      .type('text/html; charset=utf-8')
      .send(page({ title, environment: deps.environment, ...(viewer && { viewer }) }, body));

  return {
    deps,
    send,
    redirect: (reply, to) => reply.code(303).header('location', to).send(),
    readForm(request, reply) {
      if (!isFormContentType(request.headers['content-type'])) {
        void send(
          reply,
          415,
          'Bad request',
          messageBody('Portal forms are sent as application/x-www-form-urlencoded.'),
        );
        return undefined;
      }
      try {
        return request.body instanceof Uint8Array ? parseFormBody(request.body) : new Map();
      } catch (error) {
        if (!(error instanceof FormBodyError)) throw error;
        void send(
          reply,
          400,
          'Bad request',
          messageBody('The form could not be read (a repeated or malformed field).'),
        );
        return undefined;
      }
    },
    crossSite(request) {
      const fetchSite = request.headers['sec-fetch-site'];
      if (fetchSite === 'cross-site' || fetchSite === 'same-site') return true;
      const origin = request.headers.origin;
      return origin !== undefined && origin !== `https://${request.headers.host ?? ''}`;
    },
    forged: (reply, viewer) =>
      send(
        reply,
        403,
        'Form refused',
        messageBody(
          'The form could not be verified: it is out of date or was sent from another site. Nothing was changed. Open the page again and resend it.',
          homeLink,
        ),
        viewer,
      ),
    passwordStatusOf: (user) =>
      passwordStatus(user, deps.clock.now(), deps.settings.passwordMaxAgeDays, deps.settings.passwordWarningDays),
  };
}
