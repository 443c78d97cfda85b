// Faults of the three grants (spec §2, §3, §5; RFC 6749 §4.4, §4.3, §6): response rewrites and
// behaviour changes (the proxy swaps credentials or users before forwarding).
import type { Credential, Fault } from '../fault.ts';
import { withForm, withJson } from '../proxy.ts';
import { clientIdOf, errorBody, field, fields, grantOf, isToken, tokenBody } from './helpers.ts';

/** A fault that rewrites successful token responses of one grant (and region). */
const rewriteGrant = (
  id: string,
  title: string,
  breaks: string[],
  grant: string,
  edit: (body: Record<string, unknown>, kind: string) => Record<string, unknown> | undefined,
  collateral?: Fault['collateral'],
): Fault => ({
  id,
  title,
  breaks,
  ...(collateral ? { collateral } : {}),
  create: () => ({
    onResponse(res, req, ctx) {
      const body = isToken(ctx) && grantOf(req) === grant ? tokenBody(res) : undefined;
      const edited = body ? edit(body, ctx.kind) : undefined;
      return edited ? withJson(res, edited) : res;
    },
  }),
});

/** Replaces the client credentials of a form request. */
function withClient(fieldsIn: [string, string][], client: Credential): [string, string][] {
  const rest = fieldsIn.filter(([k]) => k !== 'client_id' && k !== 'client_secret');
  return [...rest, ['client_id', client.clientId], ['client_secret', client.clientSecret]];
}

export const grantFaults: Fault[] = [
  rewriteGrant(
    'cc-with-refresh-token',
    'client_credentials responses carry a refresh_token',
    ['GRANT-CC-001', 'GRANT-CC-002'],
    'client_credentials',
    (b) => ({ ...b, refresh_token: 'rt-added-by-broken-target-0123456789' }),
    {
      ids: ['GRANT-CC-006', 'GRANT-CC-008', 'SEC-TLS-005'],
      reason:
        "their setup obtains a client_credentials token and validates the response against the schema, which forbids refresh_token for client_credentials (GRANT-CC-006: the unregistered client's token; GRANT-CC-008: the US request with a scope; SEC-TLS-005: the US/EU token response whose HSTS header is read)",
    },
  ),
  rewriteGrant(
    'us-cc-with-scope',
    'US client_credentials responses carry a scope',
    ['GRANT-CC-001'],
    'client_credentials',
    (b, kind) => (kind === 'token-us' ? { ...b, scope: 'read' } : undefined),
    {
      ids: ['GRANT-CC-006', 'GRANT-CC-008'],
      reason:
        'both obtain a US client_credentials token in their setup and validate it against the schema, which forbids scope on US client_credentials responses',
    },
  ),
  rewriteGrant(
    'eu-scope-wrong',
    'EU client_credentials responses have scope "default" instead of empty_default',
    ['GRANT-CC-002'],
    'client_credentials',
    (b, kind) => (kind === 'token-eu' ? { ...b, scope: 'default' } : undefined),
  ),
  rewriteGrant(
    'pw-without-refresh-token',
    'password responses without refresh_token',
    ['GRANT-PW-001'],
    'password',
    (b) => Object.fromEntries(Object.entries(b).filter(([k]) => k !== 'refresh_token')),
    {
      ids: [
        'GRANT-RT-001',
        'GRANT-RT-002',
        'GRANT-RT-003',
        'GRANT-RT-004',
        'GRANT-RT-014',
        'GRANT-RT-005',
        'GRANT-RT-006',
        'GRANT-RT-008',
        'GRANT-RT-009',
        'GRANT-RT-010',
        'GRANT-RT-013',
        'GRANT-RT-011',
        'TOKEN-RESP-001',
        'TOKEN-REQ-005',
      ],
      reason:
        'every refresh check obtains its refresh token from a password grant (GRANT-RT-011: the EU refresh of the burnable user; TOKEN-RESP-001: its success samples include a refresh)',
    },
  ),
  rewriteGrant(
    'pw-scope-missing-value',
    'password responses lack the "company" scope value',
    ['GRANT-PW-002'],
    'password',
    (b) => ({
      ...b,
      scope: (typeof b.scope === 'string' ? b.scope : '')
        .split(' ')
        .filter((s) => s !== 'company')
        .join(' '),
    }),
    {
      ids: ['GRANT-RT-003', 'GRANT-RT-005'],
      reason: "the refresh scope checks compare with the password grant's declared scope",
    },
  ),
  rewriteGrant(
    'rt-without-refresh-token',
    'refresh responses without a new refresh_token',
    ['GRANT-RT-001'],
    'refresh_token',
    (b) => Object.fromEntries(Object.entries(b).filter(([k]) => k !== 'refresh_token')),
    { ids: ['GRANT-RT-002'], reason: 'GRANT-RT-002 compares the new refresh_token with the old one' },
  ),
  {
    id: 'rt-same-refresh-token',
    title: 'a refresh returns the refresh token it was given',
    breaks: ['GRANT-RT-002'],
    create: () => ({
      onResponse(res, req, ctx) {
        const body = isToken(ctx) && grantOf(req) === 'refresh_token' ? tokenBody(res) : undefined;
        const old = field(req, 'refresh_token');
        return body && old ? withJson(res, { ...body, refresh_token: old }) : res;
      },
    }),
  },
  rewriteGrant(
    'rt-scope-narrowed',
    'a refresh without scope returns only "openid"',
    ['GRANT-RT-003'],
    'refresh_token',
    (b) => ({ ...b, scope: 'openid' }),
    { ids: ['GRANT-RT-005'], reason: 'GRANT-RT-005 checks the refreshed scope too' },
  ),
  {
    // Issuing the original scope is a conformant choice (RFC 6749 §3.3), not the declared one: GRANT-RT-004 PASSes beside it.
    id: 'rt-scope-widening-ignored',
    title: 'a refresh asking for a scope not originally granted gets the original scope (scope dropped)',
    breaks: ['GRANT-RT-014'],
    alsoRun: ['GRANT-RT-004'],
    create: () => ({
      onRequest(req, ctx) {
        if (!isToken(ctx) || grantOf(req) !== 'refresh_token' || field(req, 'scope') === undefined) return req;
        const scope = field(req, 'scope')!.split(' ');
        if (scope.every((s) => ['email', 'openid', 'profile', 'company'].includes(s))) return req;
        return withForm(
          req,
          fields(req).filter(([k]) => k !== 'scope'),
        );
      },
    }),
  },
  {
    id: 'wrong-password-accepted',
    title: "any password accepted for the profile's users",
    breaks: ['GRANT-PW-005'],
    create: (env) => ({
      onRequest(req, ctx) {
        if (!isToken(ctx) || grantOf(req) !== 'password') return req;
        const user = Object.values(env.users).find((u) => u?.username === field(req, 'username'));
        if (!user || field(req, 'password') === undefined) return req;
        return withForm(
          req,
          fields(req).map(([k, v]) => (k === 'password' ? [k, user.password] : [k, v])),
        );
      },
    }),
  },
  {
    id: 'unknown-user-mapped',
    title: "an unknown tenant\\user is signed in as the profile's user",
    breaks: ['GRANT-PW-006'],
    create: (env) => ({
      onRequest(req, ctx) {
        const name = field(req, 'username');
        const known = Object.values(env.users).some((u) => u?.username === name);
        if (!isToken(ctx) || grantOf(req) !== 'password' || !name?.includes('\\') || known || !env.users.user)
          return req;
        return withForm(
          req,
          fields(req).map(([k, v]) =>
            k === 'username'
              ? [k, env.users.user!.username]
              : k === 'password'
                ? [k, env.users.user!.password]
                : [k, v],
          ),
        );
      },
    }),
  },
  {
    id: 'tenant-prefix-optional',
    title: "a username without tenant\\ gets the tenant of the profile's user prepended",
    breaks: ['GRANT-PW-007'],
    create: (env) => ({
      onRequest(req, ctx) {
        const name = field(req, 'username');
        const tenant = env.users.user?.username.split('\\')[0];
        if (!isToken(ctx) || grantOf(req) !== 'password' || !name || name.includes('\\') || !tenant) return req;
        return withForm(
          req,
          fields(req).map(([k, v]) => (k === 'username' ? [k, `${tenant}\\${v}`] : [k, v])),
        );
      },
    }),
  },
  {
    id: 'missing-username-error',
    title: 'a password request without username or password answered invalid_grant',
    breaks: ['GRANT-PW-004'],
    create: () => ({
      onResponse(res, req, ctx) {
        const err =
          isToken(ctx) &&
          grantOf(req) === 'password' &&
          (field(req, 'username') === undefined || field(req, 'password') === undefined)
            ? errorBody(res)
            : undefined;
        return err ? withJson(res, { ...err, error: 'invalid_grant' }) : res;
      },
    }),
  },
  {
    id: 'cc-only-client-password',
    title:
      "a client allowed only client_credentials may use the password grant (its credentials swapped for a password client's)",
    breaks: ['GRANT-PW-009'],
    create: (env) => ({
      onRequest(req, ctx) {
        const cc = env.clients.usCcOnlyClient;
        const pw = env.clients.usPasswordClient;
        if (!isToken(ctx) || grantOf(req) !== 'password' || !cc || !pw || field(req, 'client_id') !== cc.clientId)
          return req;
        return withForm(req, withClient(fields(req), pw));
      },
    }),
  },
  {
    id: 'rt-client-binding-ignored',
    title: "a refresh token is accepted from any client (the issuing client's credentials are substituted)",
    breaks: ['GRANT-RT-006', 'GRANT-RT-010'],
    create: () => ({
      onResponse(res, req, ctx) {
        // Remember which client each refresh token was issued to.
        const body = isToken(ctx) ? tokenBody(res) : undefined;
        const id = field(req, 'client_id');
        const secret = field(req, 'client_secret');
        if (body && typeof body.refresh_token === 'string' && id && secret)
          ctx.state.set(`rt:${body.refresh_token}`, { clientId: id, clientSecret: secret });
        return res;
      },
      onRequest(req, ctx) {
        if (!isToken(ctx) || grantOf(req) !== 'refresh_token') return req;
        const owner = ctx.state.get(`rt:${field(req, 'refresh_token') ?? ''}`) as Credential | undefined;
        if (!owner || clientIdOf(req) === owner.clientId) return req;
        return withForm(req, withClient(fields(req), owner));
      },
    }),
  },
  {
    id: 'rt-wrong-secret-accepted',
    title: 'a refresh with a wrong client_secret is accepted (the registered secret substituted)',
    breaks: ['GRANT-RT-009'],
    create: (env) => ({
      onRequest(req, ctx) {
        if (!isToken(ctx) || grantOf(req) !== 'refresh_token') return req;
        const client = Object.values(env.clients).find((c) => c?.clientId === field(req, 'client_id'));
        if (!client || field(req, 'client_secret') === client.clientSecret) return req;
        return withForm(req, withClient(fields(req), client));
      },
    }),
  },
  {
    id: 'rt-missing-error',
    title: 'a refresh without refresh_token answered invalid_grant',
    breaks: ['GRANT-RT-007'],
    create: () => ({
      onResponse(res, req, ctx) {
        const err =
          isToken(ctx) && grantOf(req) === 'refresh_token' && field(req, 'refresh_token') === undefined
            ? errorBody(res)
            : undefined;
        return err ? withJson(res, { ...err, error: 'invalid_grant' }) : res;
      },
    }),
  },
  {
    id: 'rt-garbage-error',
    title: 'a refresh with a token never issued answered invalid_request',
    breaks: ['GRANT-RT-008'],
    create: () => ({
      onResponse(res, req, ctx) {
        const body = isToken(ctx) ? tokenBody(res) : undefined;
        if (body && typeof body.refresh_token === 'string') ctx.state.set(`issued:${body.refresh_token}`, true);
        const rt = field(req, 'refresh_token');
        const err =
          isToken(ctx) && grantOf(req) === 'refresh_token' && rt !== undefined && !ctx.state.has(`issued:${rt}`)
            ? errorBody(res)
            : undefined;
        return err && err.error === 'invalid_grant' ? withJson(res, { ...err, error: 'invalid_request' }) : res;
      },
    }),
  },
  {
    id: 'other-environment-client-accepted',
    title: "credentials of the other environment's client are accepted (swapped for the sandbox client's)",
    breaks: ['GRANT-CC-009'],
    create: (env) => ({
      onRequest(req, ctx) {
        const other = env.clients.otherEnvironmentClient;
        const us = env.clients.usClient;
        if (!isToken(ctx) || !other || !us || field(req, 'client_id') !== other.clientId) return req;
        return withForm(req, withClient(fields(req), us));
      },
    }),
  },
];
