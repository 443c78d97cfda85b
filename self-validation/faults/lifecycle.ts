// Faults of the token lifecycle and its limits (spec §3, §5, §8): expiry, single use, the 45-day
// rule, rate limits. Behavioural: the proxy keeps its own view of what was issued and when.
import type { Fault } from '../fault.ts';
import type { ProxyResponse } from '../proxy.ts';
import { withForm } from '../proxy.ts';
import {
  bearerOf,
  clientIdOf,
  field,
  fields,
  gatewayUnauthorized,
  grantOf,
  isToken,
  replayLastOkOn429,
  targetNow,
  tokenBody,
  tokenError,
} from './helpers.ts';

/** Spec §8: the 7 days of a refresh token. */
const refreshTokenValidityMs = 7 * 24 * 60 * 60 * 1000;

export interface Issued {
  at: number;
  expiresIn: number;
}

/** Records, for every issued token, when (on the target's clock) and for how long. */
export async function recordIssuance(
  res: ProxyResponse,
  ctx: Parameters<NonNullable<ReturnType<Fault['create']>['onResponse']>>[2],
): Promise<void> {
  const body = isToken(ctx) ? tokenBody(res) : undefined;
  if (!body) return;
  const now = await targetNow(ctx);
  if (now === undefined) return;
  const issued: Issued = { at: now, expiresIn: Number(body.expires_in) };
  ctx.state.set(`at:${String(body.access_token)}`, issued);
  if (typeof body.refresh_token === 'string') ctx.state.set(`rt:${body.refresh_token}`, issued);
}

/** Refuses (400 invalid_grant) a refresh whose token is `expired` on the target's clock, from its recorded issuance. */
function refusingRefreshPast(expired: (issued: Issued, now: number) => boolean): ReturnType<Fault['create']> {
  return {
    onResponse: async (res, _req, ctx) => {
      await recordIssuance(res, ctx);
      return res;
    },
    async onRequest(req, ctx) {
      if (!isToken(ctx) || grantOf(req) !== 'refresh_token') return req;
      const issued = ctx.state.get(`rt:${field(req, 'refresh_token') ?? ''}`) as Issued | undefined;
      if (!issued) return req;
      const now = await targetNow(ctx);
      return now !== undefined && expired(issued, now)
        ? { respond: tokenError(400, 'invalid_grant', 'refresh token expired') }
        : req;
    },
  };
}

/** The gateway refuses every access token that one grant issued (recorded from the token responses). */
function refuseAccessTokensOf(grant: string): ReturnType<Fault['create']> {
  const key = (token: string) => `issued-by-${grant}:${token}`;
  return {
    onResponse(res, req, ctx) {
      const body = isToken(ctx) && grantOf(req) === grant ? tokenBody(res) : undefined;
      if (body) ctx.state.set(key(String(body.access_token)), true);
      return res;
    },
    onRequest: (req, ctx) =>
      ctx.kind === 'gateway' && ctx.state.has(key(bearerOf(req) ?? '')) ? { respond: gatewayUnauthorized() } : req,
  };
}

export const lifecycleFaults: Fault[] = [
  {
    id: 'clock-control-ignored',
    title: 'access and refresh tokens never expire (the clock advance is swallowed; the current time is answered)',
    breaks: ['STATE-AT-EXP-001', 'STATE-RT-EXP-001', 'STATE-RT-EXP-002', 'STATE-RT-EXP-003'],
    create: () => ({
      async onRequest(req, ctx) {
        if (ctx.kind !== 'clock' || req.method !== 'POST') return req;
        const body = req.body.toString('utf8');
        if (/"reset"\s*:\s*true/.test(body)) return req;
        return {
          respond: await ctx.forward({
            ...req,
            method: 'GET',
            body: Buffer.alloc(0),
            headers: { accept: 'application/json', host: ctx.upstreamHost },
          }),
        };
      },
    }),
  },
  {
    id: 'access-token-expires-early',
    title: 'access tokens refused after half of expires_in',
    breaks: ['LIMIT-AT-LIFETIME-001'],
    withProperties: true,
    create: () => ({
      onResponse: async (res, _req, ctx) => {
        await recordIssuance(res, ctx);
        return res;
      },
      async onRequest(req, ctx) {
        const bearer = bearerOf(req);
        const issued =
          ctx.kind === 'gateway' && bearer ? (ctx.state.get(`at:${bearer}`) as Issued | undefined) : undefined;
        if (!issued) return req;
        const now = await targetNow(ctx);
        return now !== undefined && now - issued.at > (issued.expiresIn * 1000) / 2
          ? { respond: gatewayUnauthorized() }
          : req;
      },
    }),
  },
  {
    id: 'refresh-token-dies-with-access-token',
    title: 'a refresh token is refused once its access token has expired',
    breaks: ['STATE-RT-UNUSED-002', 'LIMIT-RT-LIFETIME-001', 'STATE-RT-EXP-003'],
    withProperties: true,
    create: () => refusingRefreshPast((issued, now) => now - issued.at >= issued.expiresIn * 1000),
  },
  {
    id: 'refresh-token-reusable',
    title: 'a used refresh token can be used again (the first successful refresh is replayed)',
    breaks: ['STATE-RT-USED-001', 'STATE-RT-USED-002', 'LIMIT-RT-USES-001'],
    withProperties: true,
    collateral: {
      ids: ['STATE-RT-FAMILY-001', 'STATE-RT-FAMILY-002'],
      reason: 'family revocation on reuse is never triggered when reuse succeeds',
    },
    create: () => ({
      async onRequest(req, ctx) {
        if (!isToken(ctx) || grantOf(req) !== 'refresh_token') return req;
        const key = `replay:${ctx.kind}:${field(req, 'refresh_token') ?? ''}`;
        const first = ctx.state.get(key) as Promise<ProxyResponse> | undefined;
        if (first) {
          const res = await first;
          if (res.status === 200) return { respond: res };
          ctx.state.delete(key);
        }
        // The first use: forward it and remember the answer (concurrent uses wait for it).
        const pending = ctx.forward(req);
        ctx.state.set(key, pending);
        return { respond: await pending };
      },
    }),
  },
  {
    id: 'client-credentials-cached',
    title:
      'client_credentials answered from a cache that ignores expiry (the first token of a client is returned forever)',
    breaks: ['STATE-AT-EXP-002'],
    create: () => ({
      async onRequest(req, ctx) {
        if (!isToken(ctx) || grantOf(req) !== 'client_credentials') return req;
        const key = `cc:${ctx.kind}:${clientIdOf(req) ?? ''}`;
        const cached = ctx.state.get(key) as ProxyResponse | undefined;
        if (cached) return { respond: cached };
        const res = await ctx.forward(req);
        if (res.status === 200) ctx.state.set(key, res);
        return { respond: res };
      },
    }),
  },
  {
    id: 'cc-token-refused-by-api',
    title: 'the protected API refuses client_credentials access tokens',
    breaks: ['STATE-CC-001'],
    collateral: {
      ids: ['STATE-AT-EXP-001', 'STATE-AT-EXP-002', 'BEARER-001'],
      reason:
        'their setup checks that a fresh client_credentials token is accepted (BEARER-001: a protected call with a client_credentials token must answer 200)',
    },
    create: () => refuseAccessTokensOf('client_credentials'),
  },
  {
    id: 'pw-token-refused-by-api',
    title: 'the protected API refuses password-grant access tokens',
    breaks: ['STATE-PW-001'],
    collateral: {
      ids: [
        'STATE-AT-EXP-001',
        'STATE-PW-002',
        'STATE-RT-FAMILY-002',
        'STATE-AT-AFTER-REFRESH-001',
        'STATE-RT-USED-001',
        'BEARER-001',
      ],
      reason:
        'their setup checks that a fresh password-grant token is accepted (BEARER-001: a protected call with a password-grant token must answer 200)',
    },
    create: () => refuseAccessTokensOf('password'),
  },
  {
    id: 'refreshed-token-refused-by-api',
    title: 'the protected API refuses the access tokens that refreshes return',
    breaks: ['STATE-RT-UNUSED-003'],
    create: () => refuseAccessTokensOf('refresh_token'),
  },
  {
    id: 'pw-grant-replayed-while-unused',
    title: 'a second password grant while the first refresh token is unused returns the first response again',
    breaks: ['STATE-PW-002'],
    withProperties: true,
    create: () => ({
      async onRequest(req, ctx) {
        if (!isToken(ctx)) return req;
        if (grantOf(req) === 'refresh_token') {
          ctx.state.set(`used:${field(req, 'refresh_token') ?? ''}`, true);
          return req;
        }
        if (grantOf(req) !== 'password') return req;
        const key = `pw:${clientIdOf(req) ?? ''}:${field(req, 'username') ?? ''}`;
        const previous = ctx.state.get(key) as ProxyResponse | undefined;
        const previousRt = previous ? tokenBody(previous)?.refresh_token : undefined;
        if (previous && typeof previousRt === 'string' && !ctx.state.has(`used:${previousRt}`))
          return { respond: previous };
        const res = await ctx.forward(req);
        if (tokenBody(res)) ctx.state.set(key, res);
        return { respond: res };
      },
    }),
  },
  {
    id: 'password-age-ignored',
    title: "the 45-day rule is ignored (the expired user's grant is made as the current user)",
    breaks: ['LIMIT-PWD-001'],
    create: (env) => ({
      onRequest(req, ctx) {
        const expired = env.users.expiredUser;
        const user = env.users.user;
        if (
          !isToken(ctx) ||
          grantOf(req) !== 'password' ||
          !expired ||
          !user ||
          field(req, 'username') !== expired.username
        )
          return req;
        return withForm(
          req,
          fields(req).map(([k, v]) =>
            k === 'username' ? [k, user.username] : k === 'password' ? [k, user.password] : [k, v],
          ),
        );
      },
    }),
  },
  {
    id: 'no-rate-limit',
    title: 'no rate limiting: a 429 from the gateway is replaced by a replay of the last 200 of that call',
    breaks: ['LIMIT-RATE-001'],
    collateral: { ids: ['LIMIT-RATE-002'], reason: 'LIMIT-RATE-002 needs a rate-limited response first' },
    create: () => ({
      onResponse: (res, req, ctx) => replayLastOkOn429(res, req, ctx),
    }),
  },
  {
    // The other reading of OI-15 (the earlier access token revoked by a refresh), with OI-15
    // undeclared: the dedicated check and the lifecycle model without the clock read
    // STATE-AT-AFTER-REFRESH-001 WARN naming the field, never FAIL. alsoRun takes the other property
    // checks too — the concurrent refresh, the lifecycle model with the clock and with reuse
    // detection — and their scripted checks: none of them may FAIL (a model that meets the revoked
    // token where it does not cite OI-15's requirement is BLOCKED by it, which WARNs).
    id: 'access-token-revoked-on-refresh-assumed',
    title:
      'a refresh revokes the access token issued with the replaced refresh token, while the profile declares no accessTokenAfterRefresh (valid-until-expiry assumed)',
    breaks: ['STATE-AT-AFTER-REFRESH-001'],
    undeclare: ['accessTokenAfterRefresh'],
    breaksAs: 'WARN',
    withProperties: true,
    alsoRun: ['LIMIT-RT-USES-001', 'LIMIT-RT-LIFETIME-001', 'STATE-RT-FAMILY-001'],
    create: () => ({
      onResponse(res, req, ctx) {
        const body = isToken(ctx) ? tokenBody(res) : undefined;
        if (!body) return res;
        if (grantOf(req) === 'refresh_token') {
          const earlier = ctx.state.get(`access-token-of:${field(req, 'refresh_token') ?? ''}`);
          if (typeof earlier === 'string') ctx.state.set(`revoked:${earlier}`, true);
        }
        if (typeof body.refresh_token === 'string')
          ctx.state.set(`access-token-of:${body.refresh_token}`, String(body.access_token));
        return res;
      },
      onRequest: (req, ctx) =>
        ctx.kind === 'gateway' && ctx.state.has(`revoked:${bearerOf(req) ?? ''}`)
          ? { respond: gatewayUnauthorized() }
          : req,
    }),
  },
  {
    // OI-4's other reading: the 7 days of a refresh token counted from its issuance (a rotation's own
    // from the rotation), not from the expiry of the access token issued with it, while the profile
    // declares no refreshTokenAnchor. The refreshes the assumed reading still expects past those 7
    // days (LIMIT-RT-LIFETIME-001 at its end, STATE-RT-UNUSED-002 after the access token expired)
    // read WARN naming the field; the expiry checks, which every reading agrees on, and the
    // lifecycle model with the clock must not FAIL.
    id: 'refresh-token-anchored-on-issuance-assumed',
    title:
      'a refresh token is refused once 7 days have passed since its issuance (access-token-issuance), while the profile declares no refreshTokenAnchor (access-token-expiry assumed)',
    breaks: ['LIMIT-RT-LIFETIME-001', 'STATE-RT-UNUSED-002'],
    undeclare: ['refreshTokenAnchor'],
    breaksAs: 'WARN',
    withProperties: true,
    alsoRun: ['STATE-RT-EXP-001', 'STATE-RT-EXP-002'],
    create: () => refusingRefreshPast((issued, now) => now - issued.at > refreshTokenValidityMs),
  },
];
