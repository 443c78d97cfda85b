// One client speaking for another (OAuthLib CVE-2026-118669, GHSA-7984-qgvg-3j9c), planted in front
// of the reference: the proxy rewrites the client credentials so that the target serves the client
// the broken server would have served.
// - the body's client served when HTTP Basic authenticated another (AUTH-CLI-012);
// - a secret taken for any client it belongs to, whichever client_id it came with (AUTH-CLI-013).
import type { Credential, Fault, FaultEnv } from '../fault.ts';
import { header, withForm, type ProxyRequest } from '../proxy.ts';
import { field, fields, isToken } from './helpers.ts';

/** RFC 6749 §2.3.1: each half form-encoded, then base64 (as the suite sends it). */
const formEncode = (s: string) => new URLSearchParams([['', s]]).toString().slice(1);
const formDecode = (s: string) => new URLSearchParams(`v=${s}`).get('v') ?? '';

function basicOf(req: ProxyRequest): Credential | undefined {
  const m = /^basic\s+(\S+)$/i.exec(header(req.headers, 'authorization') ?? '');
  if (!m?.[1]) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
}

function withBasic(req: ProxyRequest, client: Credential): ProxyRequest {
  const encoded = Buffer.from(`${formEncode(client.clientId)}:${formEncode(client.clientSecret)}`).toString('base64');
  return { ...req, headers: { ...req.headers, authorization: `Basic ${encoded}` } };
}

const profileClient = (env: FaultEnv, clientId: string | undefined): Credential | undefined =>
  clientId === undefined ? undefined : Object.values(env.clients).find((c) => c?.clientId === clientId);

/** Whether `secret` is the secret of a profile client other than `clientId`. */
const anotherClientsSecret = (env: FaultEnv, clientId: string, secret: string | undefined): boolean =>
  secret !== undefined &&
  Object.values(env.clients).some((c) => c && c.clientId !== clientId && c.clientSecret === secret);

export const clientIdentityFaults: Fault[] = [
  {
    id: 'basic-body-client-mismatch',
    title:
      "the body's client_id is served when HTTP Basic authenticated another client (the request is sent on as the body's client)",
    breaks: ['AUTH-CLI-012'],
    create: (env) => ({
      onRequest(req, ctx) {
        const basic = isToken(ctx) ? basicOf(req) : undefined;
        const authenticated = profileClient(env, basic?.clientId);
        const named = profileClient(env, field(req, 'client_id'));
        if (!basic || !authenticated || authenticated.clientSecret !== basic.clientSecret) return req;
        if (!named || named.clientId === authenticated.clientId) return req;
        // Basic authenticated one client; the body says which client the request is for.
        const rest = fields(req).filter(([k]) => k !== 'client_id');
        return withBasic(withForm(req, rest), named);
      },
    }),
  },
  {
    id: 'other-client-secret-accepted',
    title:
      "a client's secret authenticates any client_id it comes with (the named client's own secret is sent on instead), as form fields and by HTTP Basic",
    breaks: ['AUTH-CLI-013'],
    create: (env) => ({
      onRequest(req, ctx) {
        if (!isToken(ctx)) return req;
        const basic = basicOf(req);
        const basicClient = profileClient(env, basic?.clientId);
        if (basic && basicClient && anotherClientsSecret(env, basicClient.clientId, basic.clientSecret))
          return withBasic(req, basicClient);
        const formClient = profileClient(env, field(req, 'client_id'));
        if (!formClient || !anotherClientsSecret(env, formClient.clientId, field(req, 'client_secret'))) return req;
        return withForm(
          req,
          fields(req).map(([k, v]): [string, string] => [k, k === 'client_secret' ? formClient.clientSecret : v]),
        );
      },
    }),
  },
];
