// Small helpers the faults share: what a token request is, how to answer a token error.
import {
  formOf,
  header,
  isTokenKind,
  jsonOf,
  type FaultContext,
  type ProxyRequest,
  type ProxyResponse,
} from '../proxy.ts';

export const isToken = (ctx: FaultContext): boolean => isTokenKind(ctx.kind);

/** The form fields of a token request (empty for non-form bodies). */
export function fields(req: ProxyRequest): [string, string][] {
  const type = header(req.headers, 'content-type') ?? '';
  return type.toLowerCase().startsWith('application/x-www-form-urlencoded') ? formOf(req.body) : [];
}

export function field(req: ProxyRequest, name: string): string | undefined {
  return fields(req).find(([k]) => k === name)?.[1];
}

export function grantOf(req: ProxyRequest): string | undefined {
  return field(req, 'grant_type');
}

/** The token-success body of a response (200 with access_token), else undefined. */
export function tokenBody(res: ProxyResponse): Record<string, unknown> | undefined {
  if (res.status !== 200) return undefined;
  const body = jsonOf(res.body);
  return body && typeof body.access_token === 'string' ? body : undefined;
}

/** The token-error body of a response (4xx with error), else undefined. */
export function errorBody(res: ProxyResponse): Record<string, unknown> | undefined {
  if (res.status < 400) return undefined;
  const body = jsonOf(res.body);
  return body && typeof body.error === 'string' ? body : undefined;
}

/** A token error as the reference answers it: JSON, no-store. */
export function tokenError(status: number, error: string, description = 'refused by the broken target'): ProxyResponse {
  return {
    status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      pragma: 'no-cache',
      'strict-transport-security': 'max-age=31536000',
    },
    body: Buffer.from(JSON.stringify({ error, error_description: description })),
  };
}

/** The bearer token of a request's Authorization header. */
export function bearerOf(req: ProxyRequest): string | undefined {
  const auth = header(req.headers, 'authorization');
  const m = auth ? /^bearer\s+(\S+)$/i.exec(auth) : null;
  return m?.[1];
}

/** The client id of a token request: Basic credentials or the form field. */
export function clientIdOf(req: ProxyRequest): string | undefined {
  const auth = header(req.headers, 'authorization');
  if (auth && /^basic\s/i.test(auth)) {
    const decoded = Buffer.from(auth.replace(/^basic\s+/i, ''), 'base64').toString('utf8');
    return decodeURIComponent(decoded.split(':')[0] ?? '');
  }
  return field(req, 'client_id');
}

/** Forwards a fresh client_credentials request with the given credentials and returns its access token. */
export async function freshToken(
  ctx: FaultContext,
  clientId: string,
  clientSecret: string,
): Promise<string | undefined> {
  const res = await ctx.forward({
    method: 'POST',
    path: '/api/v1/auth/oauth2/token',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
      host: ctx.upstreamHost,
    },
    body: Buffer.from(
      new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
      }).toString(),
    ),
  });
  const body = tokenBody(res);
  return typeof body?.access_token === 'string' ? body.access_token : undefined;
}

/** The target's clock now (epoch ms), read through its clock control; undefined without one. */
export async function targetNow(ctx: FaultContext): Promise<number | undefined> {
  const res = await ctx.forward({
    method: 'GET',
    path: '/__test/clock',
    headers: { accept: 'application/json', host: ctx.upstreamHost },
    body: Buffer.alloc(0),
  });
  const body = jsonOf(res.body);
  return res.status === 200 && typeof body?.epochMs === 'number' ? body.epochMs : undefined;
}

/** A gateway 401 as the reference answers an invalid token. */
export function gatewayUnauthorized(): ProxyResponse {
  return {
    status: 401,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'www-authenticate': 'Bearer error="invalid_token"',
      'strict-transport-security': 'max-age=31536000',
    },
    body: Buffer.from(JSON.stringify({ code: '000-1202', message: 'Unauthorized' })),
  };
}

/** Replaces the bearer token of a request. */
export function withBearer(req: ProxyRequest, token: string): ProxyRequest {
  return { ...req, headers: { ...req.headers, authorization: `Bearer ${token}` } };
}

/**
 * A gateway without a rate limit (for the calls `unlimited` picks): a 429 is replaced by the last
 * 200 the same call (method, path, bearer) got; every 200 is kept for that.
 */
export function replayLastOkOn429(
  res: ProxyResponse,
  req: ProxyRequest,
  ctx: FaultContext,
  unlimited: (req: ProxyRequest) => boolean = () => true,
): ProxyResponse {
  if (ctx.kind !== 'gateway') return res;
  const key = `ok:${req.method} ${req.path} ${bearerOf(req) ?? ''}`;
  if (res.status === 200) ctx.state.set(key, res);
  const ok = ctx.state.get(key) as ProxyResponse | undefined;
  return res.status === 429 && ok && unlimited(req) ? ok : res;
}
