// Faults of the token success response (spec §5; RFC 6749 §5.1): rewrites of 200 answers.
import type { Fault } from '../fault.ts';
import { withJson, withoutHeader } from '../proxy.ts';
import { isToken, tokenBody } from './helpers.ts';
import { successChecks } from './one-field.ts';

/** A fault that rewrites the JSON body of every successful token response. */
const rewriteSuccess = (
  id: string,
  title: string,
  breaks: string[],
  edit: (body: Record<string, unknown>) => Record<string, unknown>,
  collateral?: Fault['collateral'],
): Fault => ({
  id,
  title,
  breaks,
  ...(collateral ? { collateral } : {}),
  create: () => ({
    onResponse(res, _req, ctx) {
      const body = isToken(ctx) ? tokenBody(res) : undefined;
      return body ? withJson(res, edit(body)) : res;
    },
  }),
});

export const tokenResponseFaults: Fault[] = [
  // A one-field deviation: the success checks run beside it and must PASS (one-field.ts).
  {
    ...rewriteSuccess('token-type-lowercase', 'token_type "bearer" instead of "Bearer"', ['TOKEN-RESP-003'], (b) => ({
      ...b,
      token_type: 'bearer',
    })),
    alsoRun: successChecks,
  },
  rewriteSuccess('expires-in-string', 'expires_in as a string ("3600")', ['TOKEN-RESP-004'], (b) => ({
    ...b,
    expires_in: String(b.expires_in),
  })),
  rewriteSuccess(
    'access-token-non-ascii',
    'access_token with a non-ASCII character appended',
    ['TOKEN-RESP-002'],
    (b) => ({ ...b, access_token: `${String(b.access_token)}é` }),
    {
      ids: ['BEARER-001'],
      reason:
        'BEARER-001 sends an issued access token to the protected API; with a non-ASCII character it cannot be sent as a Bearer credential',
    },
  ),
  {
    id: 'success-status-201',
    title: 'successful token responses answered with 201 Created',
    breaks: ['TOKEN-RESP-001'],
    collateral: {
      ids: ['BEARER-001', 'ERR-GW-1201'],
      reason:
        'their setup obtains an access token and requires a 200 token response (ERR-GW-1201: the valid token sent with a wrong scheme)',
    },
    create: () => ({
      onResponse: (res, _req, ctx) => (isToken(ctx) && tokenBody(res) ? { ...res, status: 201 } : res),
    }),
  },
  {
    id: 'success-text-plain',
    title: 'successful token responses with Content-Type text/plain',
    breaks: ['TOKEN-RESP-001'],
    create: () => ({
      onResponse: (res, _req, ctx) =>
        isToken(ctx) && tokenBody(res)
          ? { ...res, headers: { ...res.headers, 'content-type': 'text/plain; charset=utf-8' } }
          : res,
    }),
  },
  {
    id: 'no-cache-control',
    title: 'successful token responses without Cache-Control',
    breaks: ['TOKEN-RESP-005'],
    create: () => ({
      onResponse: (res, _req, ctx) =>
        isToken(ctx) && tokenBody(res) ? { ...res, headers: withoutHeader(res.headers, 'cache-control') } : res,
    }),
  },
  {
    id: 'no-pragma',
    title: 'successful token responses without Pragma: no-cache',
    breaks: ['TOKEN-RESP-006'],
    create: () => ({
      onResponse: (res, _req, ctx) =>
        isToken(ctx) && tokenBody(res) ? { ...res, headers: withoutHeader(res.headers, 'pragma') } : res,
    }),
  },
];
