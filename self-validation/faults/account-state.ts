// A token endpoint that ignores the account state (Gitea CVE-2026-128359, Apache SeaTunnel
// CVE-2026-128981): tokens issued or refreshed for a user or client deactivated after issuance.
// The proxy follows the principal control (POST /__test/principals/deactivate and /activate pass
// through it) and keeps the set of deactivated users and clients. For the one grant a fault
// breaks, it answers as a target whose token endpoint never looks at the account would: it
// activates the principal upstream, forwards the request, and deactivates it again, so the gateway
// (ERR-GW-5002) and every other grant still see the principal deactivated.
import type { Fault } from '../fault.ts';
import { jsonOf, type FaultContext, type ProxyRequest, type RequestHookResult } from '../proxy.ts';
import { clientIdOf, field, grantOf, isToken, tokenBody } from './helpers.ts';

type PrincipalBody = { kind: 'user'; tenant: string; userName: string } | { kind: 'client'; clientId: string };

const controlPath = { deactivate: '/__test/principals/deactivate', activate: '/__test/principals/activate' } as const;

/** The principal a principal-control request names, or undefined. */
function principalOf(req: ProxyRequest): PrincipalBody | undefined {
  const body = jsonOf(req.body);
  if (body?.kind === 'user' && typeof body.tenant === 'string' && typeof body.userName === 'string')
    return { kind: 'user', tenant: body.tenant, userName: body.userName };
  if (body?.kind === 'client' && typeof body.clientId === 'string') return { kind: 'client', clientId: body.clientId };
  return undefined;
}

const keyOf = (p: PrincipalBody): string =>
  p.kind === 'user' ? `deactivated:user:${p.tenant}\\${p.userName}` : `deactivated:client:${p.clientId}`;

/** The user (tenant\user) a refresh token was issued for, as the proxy saw it issued. */
const refreshOwnerKey = (refreshToken: string): string => `refresh-owner:${refreshToken}`;

/** Which grant of a deactivated principal the broken token endpoint still serves. */
type Served = (req: ProxyRequest, ctx: FaultContext) => PrincipalBody | undefined;

function userPrincipal(username: string | undefined): PrincipalBody | undefined {
  const cut = username?.indexOf('\\') ?? -1;
  return username !== undefined && cut > 0
    ? { kind: 'user', tenant: username.slice(0, cut), userName: username.slice(cut + 1) }
    : undefined;
}

async function switchUpstream(ctx: FaultContext, which: keyof typeof controlPath, p: PrincipalBody): Promise<void> {
  await ctx.forward({
    method: 'POST',
    path: controlPath[which],
    headers: { 'content-type': 'application/json', accept: 'application/json', host: ctx.upstreamHost },
    body: Buffer.from(JSON.stringify(p)),
  });
}

const accountStateRequirements = ['STATE-DEACT-001', 'STATE-DEACT-002', 'STATE-DEACT-003', 'STATE-DEACT-004'];

function accountStateIgnored(id: string, title: string, breaks: string, served: Served): Fault {
  return {
    id,
    title,
    breaks: [breaks],
    // The other account-state checks run too, and must not move: each fault is caught by its own check only.
    alsoRun: [...accountStateRequirements.filter((r) => r !== breaks), 'ERR-GW-5002'],
    create: () => ({
      async onRequest(req, ctx): Promise<RequestHookResult> {
        if (ctx.kind === 'principals' || !isToken(ctx)) return req;
        const principal = served(req, ctx);
        if (principal === undefined || !ctx.state.has(keyOf(principal))) return req;
        await switchUpstream(ctx, 'activate', principal);
        try {
          return { respond: await ctx.forward(req) };
        } finally {
          await switchUpstream(ctx, 'deactivate', principal);
        }
      },
      onResponse(res, req, ctx) {
        if (ctx.kind === 'principals' && res.status === 200) {
          const principal = principalOf(req);
          if (principal !== undefined) {
            if (req.path.endsWith('/deactivate')) ctx.state.set(keyOf(principal), true);
            else ctx.state.delete(keyOf(principal));
          }
          return res;
        }
        // Whose refresh tokens are whose: a password grant names its user, a refresh inherits it.
        const issued = isToken(ctx) ? tokenBody(res)?.refresh_token : undefined;
        if (typeof issued === 'string') {
          const grant = grantOf(req);
          const owner =
            grant === 'password'
              ? field(req, 'username')
              : grant === 'refresh_token'
                ? (ctx.state.get(refreshOwnerKey(field(req, 'refresh_token') ?? '')) as string | undefined)
                : undefined;
          if (owner !== undefined) ctx.state.set(refreshOwnerKey(issued), owner);
        }
        return res;
      },
    }),
  };
}

const clientOf = (req: ProxyRequest): PrincipalBody | undefined => {
  const clientId = clientIdOf(req);
  return clientId ? { kind: 'client', clientId } : undefined;
};

export const accountStateFaults: Fault[] = [
  accountStateIgnored(
    'deactivated-user-refresh-served',
    "the token endpoint refreshes a deactivated user's refresh tokens (it never looks at the user)",
    'STATE-DEACT-001',
    (req, ctx) =>
      grantOf(req) === 'refresh_token'
        ? userPrincipal(ctx.state.get(refreshOwnerKey(field(req, 'refresh_token') ?? '')) as string | undefined)
        : undefined,
  ),
  accountStateIgnored(
    'deactivated-user-password-served',
    "the token endpoint issues tokens for a deactivated user's right password",
    'STATE-DEACT-002',
    (req) => (grantOf(req) === 'password' ? userPrincipal(field(req, 'username')) : undefined),
  ),
  accountStateIgnored(
    'deactivated-client-credentials-served',
    'the token endpoint issues client_credentials tokens to a deactivated client with its right secret',
    'STATE-DEACT-003',
    (req) => (grantOf(req) === 'client_credentials' ? clientOf(req) : undefined),
  ),
  accountStateIgnored(
    'deactivated-client-refresh-served',
    "the token endpoint refreshes a deactivated client's refresh tokens",
    'STATE-DEACT-004',
    (req) => (grantOf(req) === 'refresh_token' ? clientOf(req) : undefined),
  ),
];
