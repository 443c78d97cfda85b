// Bugs that widely used OAuth servers have shipped (Keycloak, ORY Hydra, Spring
// Authorization Server, IdentityServer, django-oauth-toolkit, authlib, the PHP League server,
// node-oauth2-server…), each planted in front of the reference, plus the faults that turn the
// SHOULD/ADVISORY requirements to WARN. The patterns other fault files already plant are mapped
// in self-validation/README.md ("Bugs real servers ship").
import type { Credential, Fault } from '../fault.ts';
import { header, jsonOf, withForm, withJson, withoutHeader, type ProxyRequest, type ProxyResponse } from '../proxy.ts';
import {
  bearerOf,
  clientIdOf,
  errorBody,
  field,
  fields,
  freshToken,
  grantOf,
  isToken,
  targetNow,
  tokenBody,
  tokenError,
  withBearer,
} from './helpers.ts';
import { recordIssuance, type Issued } from './lifecycle.ts';

const gatewayKind = (kind: string) => kind === 'gateway';
const allScopes = 'email openid profile company';

/** The client credentials of a form token request. */
const formClient = (req: ProxyRequest): Credential | undefined => {
  const clientId = field(req, 'client_id');
  const clientSecret = field(req, 'client_secret');
  return clientId && clientSecret ? { clientId, clientSecret } : undefined;
};

/** Rewrites the challenge of a gateway 401. */
const withChallenge = (res: ProxyResponse, value: string): ProxyResponse => ({
  ...res,
  headers: { ...withoutHeader(res.headers, 'www-authenticate'), 'www-authenticate': value },
});

export const fieldBugFaults: Fault[] = [
  // 6. Malformed input answered with a 5xx: aimed at the token-endpoint input property, which names
  // what it breaks: the declared answer to a malformed body (OI-30) and the JSON error body.
  {
    id: 'token-500-on-malformed-escape',
    title: 'a form body with a malformed percent-escape (%zz, a lone %) is answered 500',
    breaks: ['TOKEN-REQ-013', 'ERR-TOK-001'],
    withProperties: true,
    create: () => ({
      onRequest: (req, ctx) =>
        isToken(ctx) &&
        (header(req.headers, 'content-type') ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded') &&
        /%(?![0-9A-Fa-f]{2})/.test(req.body.toString('latin1'))
          ? {
              respond: {
                status: 500,
                headers: { 'content-type': 'application/json' },
                body: Buffer.from('{"error":"server_error"}'),
              },
            }
          : req,
    }),
  },
  // 8. Rotation caps the new refresh token at zero: a refresh token that came from a refresh is dead
  // on arrival. A lifecycle path of two refreshes in a row, aimed at the lifecycle property.
  {
    // STATE-RT-USED-002 refreshes twice along the chain: BLOCKED, and its evidence FAILs GRANT-RT-001 in the report too.
    id: 'rotated-refresh-token-dead',
    title: 'a refresh token issued by a refresh is refused with invalid_grant (its lifetime capped at zero)',
    breaks: ['GRANT-RT-001'],
    withProperties: true,
    alsoRun: ['STATE-RT-USED-002'],
    create: () => ({
      onResponse(res, req, ctx) {
        const body = isToken(ctx) && grantOf(req) === 'refresh_token' ? tokenBody(res) : undefined;
        if (body && typeof body.refresh_token === 'string') ctx.state.set(`rotated:${body.refresh_token}`, true);
        return res;
      },
      onRequest: (req, ctx) =>
        isToken(ctx) &&
        grantOf(req) === 'refresh_token' &&
        ctx.state.has(`rotated:${field(req, 'refresh_token') ?? ''}`)
          ? { respond: tokenError(400, 'invalid_grant', 'refresh token expired') }
          : req,
    }),
  },
  // 1. Same-second replay: the used refresh token is accepted again within a second of its use.
  {
    id: 'refresh-reuse-same-second',
    title:
      'a used refresh token replayed within a second of its use is accepted (use times compared at 1 s resolution)',
    breaks: ['STATE-RT-USED-001'],
    collateral: {
      ids: ['STATE-RT-USED-002', 'LIMIT-RT-USES-001', 'STATE-RT-FAMILY-001', 'STATE-RT-FAMILY-002'],
      reason:
        'the checks of single use and family revocation reuse a refresh token right after its use, inside the second the fault forgives',
    },
    create: () => ({
      async onRequest(req, ctx) {
        if (!isToken(ctx) || grantOf(req) !== 'refresh_token') return req;
        const key = `second:${ctx.kind}:${field(req, 'refresh_token') ?? ''}`;
        const first = ctx.state.get(key) as { at: number; res: ProxyResponse } | undefined;
        const now = Date.now();
        // A second after the use, not the same calendar second: whether a replay 300 ms later fell
        // into the next second would otherwise decide the detection, not the check.
        if (first && now - first.at < 1000 && first.res.status === 200) return { respond: first.res };
        const res = await ctx.forward(req);
        if (!first) ctx.state.set(key, { at: now, res });
        return { respond: res };
      },
    }),
  },
  // 3. Reuse of a used refresh token is refused, but the family is not revoked.
  {
    id: 'refresh-reuse-family-kept',
    title: 'reuse of a used refresh token is refused with invalid_grant, but its family is not revoked',
    breaks: ['STATE-RT-FAMILY-001', 'STATE-RT-FAMILY-002'],
    withProperties: true,
    create: () => ({
      async onRequest(req, ctx) {
        if (!isToken(ctx) || grantOf(req) !== 'refresh_token') return req;
        const key = `used:${ctx.kind}:${field(req, 'refresh_token') ?? ''}`;
        // The reuse never reaches the target, so the target never revokes the family.
        if (ctx.state.has(key)) return { respond: tokenError(400, 'invalid_grant', 'refresh token already used') };
        const res = await ctx.forward(req);
        if (res.status === 200) ctx.state.set(key, true);
        return { respond: res };
      },
    }),
  },
  // 4. A refresh token of another client refused with invalid_client instead of invalid_grant.
  {
    id: 'rt-other-client-invalid-client',
    title:
      'a refresh token presented by another (authenticated) client is refused with invalid_client instead of invalid_grant',
    breaks: ['GRANT-RT-006'],
    create: () => ({
      onResponse(res, req, ctx) {
        const body = isToken(ctx) ? tokenBody(res) : undefined;
        const owner = clientIdOf(req);
        if (body && typeof body.refresh_token === 'string' && owner)
          ctx.state.set(`owner:${body.refresh_token}`, owner);
        const issuedTo = ctx.state.get(`owner:${field(req, 'refresh_token') ?? ''}`);
        const err =
          isToken(ctx) && grantOf(req) === 'refresh_token' && issuedTo !== undefined && issuedTo !== owner
            ? errorBody(res)
            : undefined;
        return err?.error === 'invalid_grant' ? withJson(res, { ...err, error: 'invalid_client' }) : res;
      },
    }),
  },
  // 5. An expired refresh token answered invalid_request instead of invalid_grant.
  {
    id: 'rt-expired-invalid-request',
    title: 'a refresh with an expired refresh token is answered invalid_request instead of invalid_grant',
    breaks: ['STATE-RT-EXP-001', 'STATE-RT-EXP-002', 'STATE-RT-EXP-003'],
    create: () => ({
      async onResponse(res, req, ctx) {
        await recordIssuance(res, ctx);
        const issued =
          isToken(ctx) && grantOf(req) === 'refresh_token'
            ? (ctx.state.get(`rt:${field(req, 'refresh_token') ?? ''}`) as Issued | undefined)
            : undefined;
        const err = issued ? errorBody(res) : undefined;
        if (err?.error !== 'invalid_grant') return res;
        const now = await targetNow(ctx);
        // Past its access token's lifetime and refused: the refresh token has expired (the reuse checks refuse within seconds).
        return now !== undefined && now - issued!.at > issued!.expiresIn * 1000
          ? withJson(res, { ...err, error: 'invalid_request' })
          : res;
      },
    }),
  },
  // 7. Refresh scope escalated beyond the original grant.
  {
    id: 'rt-scope-escalated',
    title:
      'a refresh asking for a scope beyond the original grant gets it (the target is asked without the scope, the answer claims it)',
    breaks: ['GRANT-RT-004', 'GRANT-RT-014'],
    create: () => ({
      async onRequest(req, ctx) {
        const scope = isToken(ctx) && grantOf(req) === 'refresh_token' ? field(req, 'scope') : undefined;
        if (scope === undefined || scope.split(' ').every((s) => allScopes.split(' ').includes(s))) return req;
        const res = await ctx.forward(
          withForm(
            req,
            fields(req).filter(([k]) => k !== 'scope'),
          ),
        );
        const body = tokenBody(res);
        return { respond: body ? withJson(res, { ...body, scope }) : res };
      },
    }),
  },
  {
    id: 'rt-subset-scope-ignored',
    title: 'a refresh asking for a strict subset of the grant gets the whole original scope',
    breaks: ['GRANT-RT-005'],
    create: () => ({
      onResponse(res, req, ctx) {
        const body =
          isToken(ctx) && grantOf(req) === 'refresh_token' && field(req, 'scope') !== undefined
            ? tokenBody(res)
            : undefined;
        return body ? withJson(res, { ...body, scope: allScopes }) : res;
      },
    }),
  },
  {
    id: 'rt-wrong-secret-burns-token',
    title: 'a refresh refused for a wrong client_secret still uses up the refresh token',
    breaks: ['GRANT-RT-013'],
    create: (env) => ({
      async onRequest(req, ctx) {
        const sent = formClient(req);
        const client = sent ? Object.values(env.clients).find((c) => c?.clientId === sent.clientId) : undefined;
        if (
          !isToken(ctx) ||
          grantOf(req) !== 'refresh_token' ||
          !sent ||
          !client ||
          sent.clientSecret === client.clientSecret
        )
          return req;
        // The token is redeemed before the client is authenticated.
        await ctx.forward(
          withForm(req, [
            ...fields(req).filter(([k]) => k !== 'client_secret'),
            ['client_secret', client.clientSecret],
          ]),
        );
        return req;
      },
    }),
  },
  // Unknown scope values silently dropped (SHOULD invalid_scope).
  {
    id: 'unknown-scope-dropped',
    title:
      'an unknown scope value at the EU client_credentials and the password grant is dropped instead of refused with invalid_scope',
    breaks: ['GRANT-CC-007', 'GRANT-PW-011'],
    create: () => ({
      onRequest(req, ctx) {
        const grant = isToken(ctx) ? grantOf(req) : undefined;
        const scope = field(req, 'scope');
        const euCc = grant === 'client_credentials' && ctx.kind === 'token-eu';
        if (
          scope === undefined ||
          !(euCc || grant === 'password') ||
          scope.split(' ').every((s) => allScopes.split(' ').includes(s) || s === 'empty_default')
        )
          return req;
        return withForm(
          req,
          fields(req).filter(([k]) => k !== 'scope'),
        );
      },
    }),
  },
  // 10. HTTP Basic client authentication not supported.
  {
    id: 'basic-auth-unsupported',
    title: 'client authentication by HTTP Basic alone is refused with 401 invalid_client',
    breaks: ['AUTH-CLI-002'],
    create: () => ({
      onRequest: (req, ctx) =>
        isToken(ctx) &&
        /^basic\s/i.test(header(req.headers, 'authorization') ?? '') &&
        field(req, 'client_secret') === undefined
          ? {
              respond: {
                ...tokenError(401, 'invalid_client', 'client authentication failed'),
                headers: { ...tokenError(401, 'invalid_client').headers, 'www-authenticate': 'Basic realm="token"' },
              },
            }
          : req,
    }),
  },
  // 10. A long secret compared on its first 72 bytes only (bcrypt).
  {
    id: 'long-secret-truncated',
    title:
      'client secrets compared on their first 72 bytes only (bcrypt): a secret that differs after them authenticates',
    breaks: ['AUTH-CLI-011'],
    create: (env) => ({
      onRequest(req, ctx) {
        const sent = isToken(ctx) ? formClient(req) : undefined;
        const client = sent ? Object.values(env.clients).find((c) => c?.clientId === sent.clientId) : undefined;
        const first72 = (s: string) => Buffer.from(s, 'utf8').subarray(0, 72).toString('latin1');
        if (
          !sent ||
          !client ||
          sent.clientSecret === client.clientSecret ||
          first72(sent.clientSecret) !== first72(client.clientSecret)
        )
          return req;
        return withForm(req, [
          ...fields(req).filter(([k]) => k !== 'client_secret'),
          ['client_secret', client.clientSecret],
        ]);
      },
    }),
  },
  // 13. Token errors without Cache-Control: no-store; error_description missing.
  {
    id: 'token-error-cacheable',
    title: 'token error responses without Cache-Control',
    breaks: ['TOKEN-RESP-008'],
    create: () => ({
      onResponse: (res, _req, ctx) =>
        isToken(ctx) && errorBody(res) ? { ...res, headers: withoutHeader(res.headers, 'cache-control') } : res,
    }),
  },
  {
    id: 'error-without-description',
    title: 'token error responses without error_description',
    breaks: ['ERR-TOK-006'],
    create: () => ({
      onResponse(res, _req, ctx) {
        const err = isToken(ctx) ? errorBody(res) : undefined;
        return err
          ? withJson(res, Object.fromEntries(Object.entries(err).filter(([k]) => k !== 'error_description')))
          : res;
      },
    }),
  },
  {
    id: 'access-token-repeated',
    title: 'every client_credentials response of a client carries the first access token issued to it',
    breaks: ['TOKEN-RESP-009'],
    create: () => ({
      onResponse(res, req, ctx) {
        const body = isToken(ctx) && grantOf(req) === 'client_credentials' ? tokenBody(res) : undefined;
        if (!body) return res;
        const key = `first:${ctx.kind}:${clientIdOf(req) ?? ''}`;
        if (!ctx.state.has(key)) ctx.state.set(key, body.access_token);
        return withJson(res, { ...body, access_token: ctx.state.get(key) });
      },
    }),
  },
  {
    id: 'cc-lifetime-two-hours',
    title: 'client_credentials tokens declared for 7200 seconds',
    breaks: ['LIMIT-AT-LIFETIME-002'],
    collateral: {
      ids: ['LIMIT-AT-LIFETIME-003'],
      reason: 'the profile declares ccLifetime 3600, and the responses now state 7200',
    },
    create: () => ({
      onResponse(res, req, ctx) {
        const body = isToken(ctx) && grantOf(req) === 'client_credentials' ? tokenBody(res) : undefined;
        return body ? withJson(res, { ...body, expires_in: 7200 }) : res;
      },
    }),
  },
  {
    id: 'rate-limit-without-retry-after',
    title: 'rate-limited gateway responses without Retry-After',
    breaks: ['LIMIT-RATE-002'],
    create: () => ({
      onResponse: (res, _req, ctx) =>
        gatewayKind(ctx.kind) && res.status === 429
          ? { ...res, headers: withoutHeader(res.headers, 'retry-after') }
          : res,
    }),
  },
  {
    id: 'no-login-throttling',
    title:
      'no throttling of repeated wrong passwords: each is refused, none is counted, and the right password still gets a token',
    breaks: ['LIMIT-RATE-003'],
    create: (env) => ({
      onRequest(req, ctx) {
        const user =
          isToken(ctx) && grantOf(req) === 'password'
            ? Object.values(env.users).find((u) => u?.username === field(req, 'username'))
            : undefined;
        // The wrong password is refused by the proxy itself, so the target never counts it.
        return user && field(req, 'password') !== user.password
          ? { respond: tokenError(400, 'invalid_grant', 'invalid credentials') }
          : req;
      },
    }),
  },
  // 14. Lower-case bearer refused; an expired token answered 403.
  {
    id: 'lowercase-bearer-refused',
    title: 'the gateway refuses the scheme written bearer or BEARER (only Bearer accepted)',
    breaks: ['BEARER-006'],
    create: () => ({
      onRequest(req, ctx) {
        const auth = header(req.headers, 'authorization');
        return gatewayKind(ctx.kind) && auth && /^bearer\s/i.test(auth) && !auth.startsWith('Bearer ')
          ? {
              respond: {
                status: 401,
                headers: { 'content-type': 'application/json; charset=utf-8', 'www-authenticate': 'Bearer' },
                body: Buffer.from(JSON.stringify({ code: '000-1201', message: 'Unauthorized' })),
              },
            }
          : req;
      },
    }),
  },
  {
    id: 'expired-token-403',
    title: 'an expired access token is answered 403 instead of 401',
    breaks: ['ERR-GW-1202'],
    create: () => ({
      onResponse: async (res, req, ctx) => {
        await recordIssuance(res, ctx);
        const issued = gatewayKind(ctx.kind)
          ? (ctx.state.get(`at:${bearerOf(req) ?? ''}`) as Issued | undefined)
          : undefined;
        if (!issued || res.status !== 401) return res;
        const now = await targetNow(ctx);
        return now !== undefined && now - issued.at >= issued.expiresIn * 1000 ? { ...res, status: 403 } : res;
      },
    }),
  },
  // 15. An expired access token accepted for a while beyond the declared skew.
  {
    id: 'expired-token-grace',
    title:
      'an access token is accepted up to 5 minutes after it expired (a clock tolerance far beyond the declared skew)',
    breaks: ['STATE-AT-EXP-001'],
    create: (env) => ({
      onResponse: async (res, _req, ctx) => {
        await recordIssuance(res, ctx);
        return res;
      },
      async onRequest(req, ctx) {
        const issued = gatewayKind(ctx.kind)
          ? (ctx.state.get(`at:${bearerOf(req) ?? ''}`) as Issued | undefined)
          : undefined;
        const c = env.clients.usClient;
        if (!issued || !c) return req;
        const now = await targetNow(ctx);
        const late = now === undefined ? 0 : now - (issued.at + issued.expiresIn * 1000);
        if (late < 0 || late > 300_000) return req;
        const token = await freshToken(ctx, c.clientId, c.clientSecret);
        return token ? withBearer(req, token) : req;
      },
    }),
  },
  // RFC 6750 challenges and the access_token query parameter.
  {
    id: 'query-token-accepted',
    title: 'an access_token query parameter is used as the bearer credential',
    breaks: ['BEARER-009'],
    create: () => ({
      onRequest(req, ctx) {
        if (!gatewayKind(ctx.kind) || header(req.headers, 'authorization') !== undefined || !req.path.includes('?'))
          return req;
        const token = new URLSearchParams(req.path.split('?', 2)[1]).get('access_token');
        return token ? withBearer(req, token) : req;
      },
    }),
  },
  {
    id: 'challenge-error-without-credentials',
    title: 'the challenge of a 401 for a call without credentials carries error="invalid_token"',
    breaks: ['BEARER-019'],
    create: () => ({
      onResponse: (res, req, ctx) =>
        gatewayKind(ctx.kind) && res.status === 401 && header(req.headers, 'authorization') === undefined
          ? withChallenge(res, 'Bearer error="invalid_token"')
          : res,
    }),
  },
  {
    id: 'challenge-without-invalid-token',
    title: 'the challenge of a 401 for an invalid token carries no error attribute',
    breaks: ['BEARER-020'],
    create: () => ({
      onResponse: (res, req, ctx) =>
        gatewayKind(ctx.kind) && res.status === 401 && header(req.headers, 'authorization') !== undefined
          ? withChallenge(res, 'Bearer')
          : res,
    }),
  },
  // Gateway error bodies (§7.2, OI-25).
  {
    id: 'gateway-error-plain-text',
    title: 'gateway rejections as text/plain "000-nnnn message" instead of the declared JSON body',
    breaks: ['ERR-GW-GEN-002'],
    collateral: {
      ids: ['ERR-GW-GEN-001', 'ERR-GW-GEN-003', 'ERR-GW-1201'],
      reason:
        "the code and message are read from the declared JSON body, which the fault removes (ERR-GW-1201: the sentinel's code)",
    },
    create: () => ({
      onResponse(res, _req, ctx) {
        const body = gatewayKind(ctx.kind) ? jsonOf(res.body) : undefined;
        return typeof body?.code === 'string'
          ? {
              ...res,
              headers: { ...res.headers, 'content-type': 'text/plain; charset=utf-8' },
              body: Buffer.from(`${body.code} ${String(body.message)}`),
            }
          : res;
      },
    }),
  },
  {
    id: 'gateway-message-generic',
    title: 'every gateway rejection carries the message "Error" instead of the §7.2 message of its code',
    breaks: ['ERR-GW-GEN-003'],
    create: () => ({
      onResponse(res, _req, ctx) {
        const body = gatewayKind(ctx.kind) ? jsonOf(res.body) : undefined;
        return typeof body?.code === 'string' ? withJson(res, { ...body, message: 'Error' }) : res;
      },
    }),
  },
  {
    id: 'gateway-error-echoes-token',
    title: 'gateway rejections echo the Authorization header value in the body',
    breaks: ['ERR-GW-GEN-004'],
    create: () => ({
      onResponse(res, req, ctx) {
        const body = gatewayKind(ctx.kind) ? jsonOf(res.body) : undefined;
        const auth = header(req.headers, 'authorization');
        return typeof body?.code === 'string' && auth
          ? withJson(res, { ...body, detail: `rejected credential: ${auth}` })
          : res;
      },
    }),
  },
];
