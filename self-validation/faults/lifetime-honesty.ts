// Lifetimes that are not what the target says they are (2026 advisories):
// - an access token whose signed lifetime differs from expires_in (@fastify/jwt CVE-2026-110024,
//   CVE-2026-107275): here a gateway in front of the EU endpoint rewrites expires_in and leaves the
//   JWT as signed;
// - a rotated refresh token that outlives its own window, so a family lives on past the declared
//   policy (fast-jwt CVE-2026-107720 accepted expired tokens from its cache): here an expired rotated
//   token is honoured by re-issuing its family from the password grant it came from;
// - a refresh_token_expires_in (draft-ietf-oauth-refresh-token-expiration-03) that is not the
//   lifetime the target honours: announced a day shorter, or a day longer.
import type { Fault } from '../fault.ts';
import { withJson, type ProxyRequest, type ProxyResponse } from '../proxy.ts';
import { field, grantOf, isToken, targetNow, tokenBody } from './helpers.ts';

/** Spec §8 and the reference's OI-4 reading: 7 days after the access token issued with the refresh token expires. */
const refreshValidityAfterAccessTokenMs = 7 * 24 * 60 * 60 * 1000;
const oneDay = 24 * 60 * 60;

interface Rotated {
  /** The target's clock (epoch ms) when the rotation was answered. */
  at: number;
  expiresIn: number;
}

/** Rewrites refresh_token_expires_in of every successful password-grant response. */
function announceRefreshLifetime(edit: (seconds: number) => number): ReturnType<Fault['create']> {
  return {
    onResponse(res, req, ctx) {
      const body = isToken(ctx) && grantOf(req) === 'password' ? tokenBody(res) : undefined;
      const announced = body?.refresh_token_expires_in;
      return body && typeof announced === 'number'
        ? withJson(res, { ...body, refresh_token_expires_in: edit(announced) })
        : res;
    },
  };
}

export const lifetimeHonestyFaults: Fault[] = [
  {
    id: 'jwt-lifetime-mismatch',
    title:
      "EU client_credentials responses announce half the access token's lifetime: expires_in is rewritten, the JWT's exp − iat is not",
    breaks: ['TOKEN-RESP-010'],
    create: () => ({
      onResponse(res, _req, ctx) {
        const body = ctx.kind === 'token-eu' ? tokenBody(res) : undefined;
        return body && typeof body.expires_in === 'number'
          ? withJson(res, { ...body, expires_in: Math.max(1, Math.floor(body.expires_in / 2)) })
          : res;
      },
    }),
  },
  {
    id: 'rotated-refresh-token-outlives',
    title:
      'a refresh token issued by a rotation outlives its own 7 days: once expired it is still honoured (its family re-issued from the password grant it came from)',
    breaks: ['STATE-RT-EXP-002'],
    create: () => ({
      async onResponse(res, req, ctx) {
        const body = isToken(ctx) ? tokenBody(res) : undefined;
        const issued = body?.refresh_token;
        if (typeof issued !== 'string') return res;
        if (grantOf(req) === 'password') ctx.state.set(`origin:${issued}`, req);
        if (grantOf(req) !== 'refresh_token') return res;
        const origin = ctx.state.get(`origin:${field(req, 'refresh_token') ?? ''}`);
        const now = await targetNow(ctx);
        if (origin === undefined || now === undefined) return res;
        ctx.state.set(`origin:${issued}`, origin);
        ctx.state.set(`rotated:${issued}`, { at: now, expiresIn: Number(body!.expires_in) } satisfies Rotated);
        return res;
      },
      async onRequest(req, ctx) {
        if (!isToken(ctx) || grantOf(req) !== 'refresh_token') return req;
        const token = field(req, 'refresh_token') ?? '';
        const rotated = ctx.state.get(`rotated:${token}`) as Rotated | undefined;
        const origin = ctx.state.get(`origin:${token}`) as ProxyRequest | undefined;
        if (!rotated || !origin) return req;
        const now = await targetNow(ctx);
        const end = rotated.at + rotated.expiresIn * 1000 + refreshValidityAfterAccessTokenMs;
        if (now === undefined || now < end) return req;
        const reissued: ProxyResponse = await ctx.forward(origin);
        return { respond: reissued };
      },
    }),
  },
  {
    id: 'refresh-expiry-announced-short',
    title: 'refresh_token_expires_in announces a day less than the refresh token is honoured',
    breaks: ['STATE-RT-EXP-003'],
    create: () => announceRefreshLifetime((seconds) => Math.max(1, seconds - oneDay)),
  },
  {
    id: 'refresh-expiry-announced-long',
    title: 'refresh_token_expires_in announces a day more than the refresh token is honoured',
    breaks: ['STATE-RT-EXP-003'],
    create: () => announceRefreshLifetime((seconds) => seconds + oneDay),
  },
];
