// Bugs token servers shipped in 2026, each planted in front of the reference:
// - a rate limit and a failed-attempt throttle keyed on a forwarding header the client writes
//   (Eventra #16254, AiFw #165, PrepPilot #1438, daily_stock_analysis #842, Forge PR #84): every
//   new X-Forwarded-For / Forwarded / X-Real-IP value is a fresh key, so it starts with a full quota
//   and no failed attempts;
// - an access token matched by prefix (CVE-2026-27840, GHSA-6mq3-xmgp-pjm5): a token cut short,
//   or one with characters appended, is taken for the issued token it is a prefix of or starts with;
// - consumption of refresh tokens kept in memory only (CVE-2026-9802, keycloak #49426): a restart
//   forgets which refresh tokens were used, so a rotated one works again.
import type { Fault } from '../fault.ts';
import { header, type Headers, type ProxyResponse } from '../proxy.ts';
import { bearerOf, field, grantOf, isToken, replayLastOkOn429, tokenBody, tokenError, withBearer } from './helpers.ts';

const forwardingHeaders = ['x-forwarded-for', 'forwarded', 'x-real-ip'];
const forwarded = (headers: Headers): boolean => forwardingHeaders.some((name) => header(headers, name) !== undefined);

/** Below this length a prefix is too short for even a prefix-matching server to look it up. */
const shortestMatchedPrefix = 16;

export const advisory2026Faults: Fault[] = [
  {
    id: 'forwarded-address-rate-key',
    title:
      'the gateway rate limit is keyed on the forwarded address: a call with a new X-Forwarded-For/Forwarded/X-Real-IP is never rate-limited (its 429 replaced by the last 200 of that call)',
    breaks: ['LIMIT-RATE-004'],
    create: () => ({
      onResponse: (res, req, ctx) => replayLastOkOn429(res, req, ctx, (call) => forwarded(call.headers)),
    }),
  },
  {
    id: 'forwarded-address-login-throttle',
    title:
      'failed passwords are counted per forwarded address: a wrong password with a forwarding header is refused and never counted against the user',
    breaks: ['LIMIT-RATE-005'],
    create: (env) => ({
      onRequest(req, ctx) {
        if (!isToken(ctx) || grantOf(req) !== 'password' || !forwarded(req.headers)) return req;
        const user = Object.values(env.users).find((u) => u?.username === field(req, 'username'));
        // Each new address is a fresh count: the target (keyed on the peer) is never told of the failure.
        return user && field(req, 'password') !== user.password
          ? { respond: tokenError(400, 'invalid_grant', 'invalid credentials') }
          : req;
      },
    }),
  },
  {
    id: 'consumption-forgotten-on-restart',
    title:
      'which refresh tokens were used is kept in memory only: after a restart of the target, a refresh token used before it works again (its first refresh is replayed)',
    breaks: ['STATE-RT-USED-003'],
    create: () => ({
      onResponse(res, req, ctx) {
        const used =
          isToken(ctx) && grantOf(req) === 'refresh_token' && res.status === 200
            ? field(req, 'refresh_token')
            : undefined;
        if (used !== undefined && !ctx.state.has(`used:${used}`)) ctx.state.set(`used:${used}`, res);
        return res;
      },
      onRequest(req, ctx) {
        const token = isToken(ctx) && grantOf(req) === 'refresh_token' ? field(req, 'refresh_token') : undefined;
        // The target behind this proxy refuses it still; the restarted "memory" takes it for unused.
        const revived =
          token === undefined ? undefined : (ctx.state.get(`revived:${token}`) as ProxyResponse | undefined);
        return revived ? { respond: revived } : req;
      },
      onTargetRestart(state) {
        for (const [key, first] of [...state]) {
          if (!key.startsWith('used:')) continue;
          state.delete(key);
          state.set(`revived:${key.slice('used:'.length)}`, first);
        }
      },
    }),
  },
  {
    id: 'token-prefix-accepted',
    title:
      'an access token is matched by prefix: a token cut short, or with characters appended, is taken for the issued token it matches',
    breaks: ['BEARER-021'],
    create: () => ({
      onResponse(res, _req, ctx) {
        const body = isToken(ctx) ? tokenBody(res) : undefined;
        if (typeof body?.access_token === 'string') ctx.state.set(`at:${body.access_token}`, body.access_token);
        return res;
      },
      onRequest(req, ctx) {
        const bearer = bearerOf(req);
        if (ctx.kind !== 'gateway' || !bearer || bearer.length < shortestMatchedPrefix || ctx.state.has(`at:${bearer}`))
          return req;
        for (const [key, issued] of ctx.state) {
          if (!key.startsWith('at:') || typeof issued !== 'string') continue;
          if (issued.startsWith(bearer) || bearer.startsWith(issued)) return withBearer(req, issued);
        }
        return req;
      },
    }),
  },
];
