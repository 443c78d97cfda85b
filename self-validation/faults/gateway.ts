// Faults of the protected API behind the gateway (spec §6, §7.2; RFC 6750): bearer handling,
// gateway codes, version checks.
import type { Fault } from '../fault.ts';
import { header, jsonOf, withJson, withoutHeader, type ProxyResponse } from '../proxy.ts';
import { bearerOf, freshToken, isToken, tokenBody, withBearer } from './helpers.ts';

const gateway = (kind: string) => kind === 'gateway';

/** Records every access and refresh token the target issues (so that a fault can tell them apart). */
function recordIssued(
  res: Parameters<NonNullable<ReturnType<Fault['create']>['onResponse']>>[0],
  state: Map<string, unknown>,
  kind: string,
): void {
  const body = isToken({ kind } as never) ? tokenBody(res) : undefined;
  if (!body) return;
  state.set(`at:${String(body.access_token)}`, true);
  if (typeof body.refresh_token === 'string') state.set(`rt:${body.refresh_token}`, body.access_token);
}

/** A gateway's quota refusal as the reference answers it. */
function rateLimited(): ProxyResponse {
  return {
    status: 429,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'retry-after': '1',
      'strict-transport-security': 'max-age=31536000',
    },
    body: Buffer.from(JSON.stringify({ code: '000-2000', message: 'Rate Limit Exceeded' })),
  };
}

export const gatewayFaults: Fault[] = [
  {
    id: 'api-text-html',
    title: 'successful protected calls answered with Content-Type text/html',
    breaks: ['BEARER-001'],
    create: () => ({
      onResponse: (res, _req, ctx) =>
        gateway(ctx.kind) && res.status === 200
          ? { ...res, headers: { ...res.headers, 'content-type': 'text/html; charset=utf-8' } }
          : res,
    }),
  },
  {
    id: 'unauthenticated-let-through',
    title: 'a protected call without Authorization is let through (the gateway injects a valid token)',
    breaks: ['BEARER-002'],
    collateral: {
      ids: ['BEARER-013', 'BEARER-019', 'BEARER-011', 'ERR-GW-1201'],
      reason:
        'these checks also send calls without credentials and expect the 401 (ERR-GW-1201: its gateway code 000-1201 for a call without an Authorization header)',
    },
    create: (env) => ({
      async onRequest(req, ctx) {
        const c = env.clients.usClient;
        if (!gateway(ctx.kind) || header(req.headers, 'authorization') !== undefined || !c) return req;
        const token = await freshToken(ctx, c.clientId, c.clientSecret);
        return token ? withBearer(req, token) : req;
      },
    }),
  },
  {
    id: 'invalid-token-let-through',
    title: 'an unknown or altered JWT is let through (replaced by a valid token)',
    breaks: ['BEARER-003'],
    collateral: { ids: ['BEARER-013', 'BEARER-020'], reason: 'their samples include an unknown and an altered token' },
    create: (env) => ({
      onResponse(res, _req, ctx) {
        recordIssued(res, ctx.state, ctx.kind);
        return res;
      },
      async onRequest(req, ctx) {
        const bearer = bearerOf(req);
        const c = env.clients.usClient;
        if (
          !gateway(ctx.kind) ||
          !bearer ||
          !c ||
          bearer.split('.').length !== 3 ||
          ctx.state.has(`at:${bearer}`) ||
          bearer === env.otherEnvironmentToken
        )
          return req;
        const token = await freshToken(ctx, c.clientId, c.clientSecret);
        if (token) ctx.state.set(`at:${token}`, true);
        return token ? withBearer(req, token) : req;
      },
    }),
  },
  {
    id: 'token-in-get-body-accepted',
    title: 'an access_token form field in a GET body is used as the bearer credential',
    breaks: ['BEARER-011'],
    create: () => ({
      onRequest(req, ctx) {
        if (!gateway(ctx.kind) || req.body.length === 0 || header(req.headers, 'authorization') !== undefined)
          return req;
        const token = new URLSearchParams(req.body.toString('utf8')).get('access_token');
        return token
          ? {
              ...withBearer(req, token),
              body: Buffer.alloc(0),
              headers: {
                ...withoutHeader(withoutHeader(req.headers, 'content-type'), 'content-length'),
                authorization: `Bearer ${token}`,
              },
            }
          : req;
      },
    }),
  },
  {
    id: 'api-401-without-challenge',
    title: '401 from the protected API without WWW-Authenticate',
    breaks: ['BEARER-013'],
    collateral: { ids: ['BEARER-019', 'BEARER-020'], reason: 'they read the challenge the fault removes' },
    create: () => ({
      onResponse: (res, _req, ctx) =>
        gateway(ctx.kind) && res.status === 401
          ? { ...res, headers: withoutHeader(res.headers, 'www-authenticate') }
          : res,
    }),
  },
  {
    id: 'refresh-token-as-bearer',
    title: 'a refresh token used as the bearer credential is accepted (swapped for its access token)',
    breaks: ['BEARER-014'],
    collateral: {
      ids: ['BEARER-013'],
      reason: 'BEARER-013 also sends a refresh token as the bearer credential and expects a 401',
    },
    create: () => ({
      onResponse(res, _req, ctx) {
        recordIssued(res, ctx.state, ctx.kind);
        return res;
      },
      onRequest(req, ctx) {
        const bearer = bearerOf(req);
        const at = bearer ? ctx.state.get(`rt:${bearer}`) : undefined;
        return gateway(ctx.kind) && typeof at === 'string' ? withBearer(req, at) : req;
      },
    }),
  },
  {
    id: 'other-environment-token-accepted',
    title: 'an access token of the other environment is accepted (swapped for a valid one)',
    breaks: ['BEARER-015'],
    create: (env) => ({
      async onRequest(req, ctx) {
        const c = env.clients.usClient;
        if (!gateway(ctx.kind) || !c || !env.otherEnvironmentToken || bearerOf(req) !== env.otherEnvironmentToken)
          return req;
        const token = await freshToken(ctx, c.clientId, c.clientSecret);
        return token ? withBearer(req, token) : req;
      },
    }),
  },
  {
    // A limit that refuses everything refuses the calls beyond it too: the rate-limit checks must
    // first see calls it lets through, else they prove nothing of what the limit keys on.
    id: 'every-protected-call-rate-limited',
    title:
      'every protected call with a bearer token is refused as rate-limited from the first (429 000-2000, Retry-After 1), whatever the window',
    breaks: ['BEARER-001'],
    alsoRun: ['LIMIT-RATE-004'],
    create: () => ({
      onRequest: (req, ctx) => (gateway(ctx.kind) && bearerOf(req) !== undefined ? { respond: rateLimited() } : req),
    }),
  },
  {
    id: 'version-check-missing',
    title: 'the gateway serves any version segment (and none) as v1',
    breaks: ['ERR-GW-1020'],
    collateral: {
      ids: ['ERR-GW-GEN-001', 'ERR-GW-GEN-002', 'ERR-GW-GEN-003', 'ERR-GW-GEN-004'],
      reason: 'their sample of rejections includes a call without a version segment, now answered 200',
    },
    create: () => ({
      onRequest(req, ctx) {
        if (!gateway(ctx.kind) || !req.path.startsWith('/')) return req;
        if (/^\/v(?!1\/)[^/]*\//.test(req.path)) return { ...req, path: req.path.replace(/^\/v[^/]*\//, '/v1/') };
        if (req.path.startsWith('/people/')) return { ...req, path: `/v1${req.path}` };
        return req;
      },
    }),
  },
  {
    id: 'gateway-code-outside-table',
    title: 'the 000-5003 rejection carries 000-9999, a code outside the §7.2 table',
    breaks: ['ERR-GW-GEN-001'],
    collateral: {
      ids: ['ERR-GW-5003', 'ERR-GW-GEN-002', 'ERR-GW-GEN-003'],
      reason: "the same response is the 000-5003 check's, and its message no longer matches its code",
    },
    create: () => ({
      onResponse(res, _req, ctx) {
        const body = gateway(ctx.kind) ? jsonOf(res.body) : undefined;
        return body?.code === '000-5003' ? withJson(res, { ...body, code: '000-9999' }) : res;
      },
    }),
  },
  {
    id: 'gateway-codes-swapped',
    title: 'gateway codes 000-1201 and 000-1202 swapped',
    breaks: ['ERR-GW-1201', 'ERR-GW-1202'],
    collateral: { ids: ['ERR-GW-GEN-003'], reason: 'the message no longer matches the code' },
    create: () => ({
      onResponse(res, _req, ctx) {
        const body = gateway(ctx.kind) ? jsonOf(res.body) : undefined;
        const swap: Record<string, string> = { '000-1201': '000-1202', '000-1202': '000-1201' };
        return typeof body?.code === 'string' && swap[body.code]
          ? withJson(res, { ...body, code: swap[body.code] })
          : res;
      },
    }),
  },
];
