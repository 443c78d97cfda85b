// Faults of client authentication and token errors (spec §7.1; RFC 6749 §2.3, §5.2).
import type { Fault } from '../fault.ts';
import { header, withForm, withJson, withoutHeader } from '../proxy.ts';
import { errorBody, field, fields, isToken } from './helpers.ts';

const hasBasic = (h: Record<string, string | string[]>) => /^basic\s/i.test(header(h, 'authorization') ?? '');

export const errorFaults: Fault[] = [
  {
    id: 'basic-401-without-challenge',
    title: '401 invalid_client for HTTP Basic without WWW-Authenticate',
    breaks: ['AUTH-CLI-003'],
    create: () => ({
      onResponse: (res, _req, ctx) =>
        isToken(ctx) && res.status === 401 ? { ...res, headers: withoutHeader(res.headers, 'www-authenticate') } : res,
    }),
  },
  {
    id: 'invalid-client-403',
    title: 'failed form-field client authentication answered 403 instead of the declared status',
    breaks: ['AUTH-CLI-004', 'AUTH-CLI-005'],
    create: () => ({
      onResponse(res, req, ctx) {
        const err = isToken(ctx) && !hasBasic(req.headers) ? errorBody(res) : undefined;
        return err?.error === 'invalid_client' ? { ...res, status: 403 } : res;
      },
    }),
  },
  {
    id: 'basic-and-form-accepted',
    title: 'a request authenticating by Basic and by a form client_secret is accepted (form secret dropped)',
    breaks: ['AUTH-CLI-006'],
    create: () => ({
      onRequest: (req, ctx) =>
        isToken(ctx) && hasBasic(req.headers) && field(req, 'client_secret') !== undefined
          ? withForm(
              req,
              fields(req).filter(([k]) => k !== 'client_secret' && k !== 'client_id'),
            )
          : req,
    }),
  },
  {
    id: 'user-grants-without-client-auth',
    title:
      'password and refresh_token requests with no client authentication at all are served (as if usPasswordClient had authenticated)',
    breaks: ['AUTH-CLI-007'],
    create: (env) => ({
      onRequest: (req, ctx) => {
        const c = env.clients.usPasswordClient;
        const grant = field(req, 'grant_type');
        const noClient =
          field(req, 'client_id') === undefined &&
          field(req, 'client_secret') === undefined &&
          header(req.headers, 'authorization') === undefined;
        return isToken(ctx) && c && noClient && (grant === 'password' || grant === 'refresh_token')
          ? withForm(req, [['client_id', c.clientId], ['client_secret', c.clientSecret], ...fields(req)])
          : req;
      },
    }),
  },
  {
    id: 'missing-secret-error',
    title: 'a request without client_secret answered unauthorized_client instead of the declared error',
    breaks: ['AUTH-CLI-007'],
    create: () => ({
      onResponse(res, req, ctx) {
        const err =
          isToken(ctx) && !hasBasic(req.headers) && field(req, 'client_secret') === undefined
            ? errorBody(res)
            : undefined;
        return err ? withJson(res, { ...err, error: 'unauthorized_client' }) : res;
      },
    }),
  },
  {
    id: 'error-text-plain',
    title: 'token errors with Content-Type text/plain',
    breaks: ['ERR-TOK-001'],
    collateral: {
      ids: ['ERR-TOK-004'],
      reason:
        'the fault changes every token error, and the ERR-TOK-004 check reads the unsupported_grant_type error as a JSON error response',
    },
    create: () => ({
      onResponse: (res, _req, ctx) =>
        isToken(ctx) && errorBody(res)
          ? { ...res, headers: { ...res.headers, 'content-type': 'text/plain; charset=utf-8' } }
          : res,
    }),
  },
  {
    id: 'error-status-403',
    title: 'token errors other than invalid_client answered 403',
    breaks: ['ERR-TOK-002'],
    collateral: { ids: ['ERR-TOK-004'], reason: 'ERR-TOK-004 requires status 400 for an unsupported grant' },
    create: () => ({
      onResponse: (res, _req, ctx) =>
        isToken(ctx) && errorBody(res) && errorBody(res)!.error !== 'invalid_client' ? { ...res, status: 403 } : res,
    }),
  },
  {
    id: 'error-description-quote',
    title: 'error_description with a double quote and a non-ASCII character',
    breaks: ['ERR-TOK-003'],
    collateral: {
      ids: ['ERR-TOK-004'],
      reason:
        'the fault changes every token error, and the ERR-TOK-004 check validates the unsupported_grant_type error against the error schema, which limits error_description to RFC 6749 characters',
    },
    create: () => ({
      onResponse: (res, _req, ctx) =>
        isToken(ctx) && errorBody(res)
          ? withJson(res, { ...errorBody(res), error_description: 'the "request" is refusé' })
          : res,
    }),
  },
  {
    id: 'unsupported-grant-error',
    title: 'an unsupported grant_type answered invalid_grant',
    breaks: ['ERR-TOK-004'],
    create: () => ({
      onResponse: (res, _req, ctx) =>
        isToken(ctx) && errorBody(res)?.error === 'unsupported_grant_type'
          ? withJson(res, { ...errorBody(res), error: 'invalid_grant' })
          : res,
    }),
  },
  {
    id: 'error-with-access-token',
    title: 'token errors carry an access_token member',
    breaks: ['ERR-TOK-005'],
    collateral: {
      ids: ['ERR-TOK-004'],
      reason:
        'the fault changes every token error, and the ERR-TOK-004 check validates the unsupported_grant_type error against the error schema, which has no access_token member',
    },
    create: () => ({
      onResponse: (res, _req, ctx) =>
        isToken(ctx) && errorBody(res)
          ? withJson(res, { ...errorBody(res), access_token: 'leaked-token-0123456789abcdef' })
          : res,
    }),
  },
  {
    id: 'error-echoes-secret',
    title: 'token errors echo the client_secret of the request in error_description',
    breaks: ['ERR-TOK-008'],
    create: () => ({
      onResponse: (res, req, ctx) =>
        isToken(ctx) && errorBody(res) && field(req, 'client_secret')
          ? withJson(res, { ...errorBody(res), error_description: `refused: ${field(req, 'client_secret')}` })
          : res,
    }),
  },
];
