// Shared helpers of the gateway and bearer checks: a token the gateway should accept, the
// profile's routes, and protected calls written byte by byte to the socket (for what an HTTP
// client cannot send: no Host, two Authorization headers, dot-segments, `OPTIONS *`, a
// Content-Length that does not match the body). Nothing here knows the reference server.
import type { TestInfo } from '@playwright/test';
import type { ApiResponse, RawHttp, Target, TokenClient } from '../../../fixtures/index.ts';
import { markNotApplicable } from '../../../fixtures/index.ts';
import { ApiResponse as ApiResponseClass } from '../../../fixtures/clients/responses.ts';
import { validateResponse } from '../../../fixtures/schema-check.ts';
import { normalizeHeaders, parseJson } from '../../../fixtures/http/exchange.ts';

/**
 * An access token the gateway should accept: client_credentials of usClient at US, else of
 * euClient at EU (a target with only the EU token server). `setup:` on failure.
 */
export async function gatewayToken(target: Target, tokenClient: TokenClient, testInfo: TestInfo): Promise<string> {
  if (target.authUrl('us')) return (await tokenClient.obtain.clientCredentials({ region: 'us', client: 'usClient' })).access_token;
  if (target.authUrl('eu')) return (await tokenClient.obtain.clientCredentials({ region: 'eu', client: 'euClient' })).access_token;
  return markNotApplicable(testInfo, 'target has no token server to obtain an access token from');
}

/** A route of the profile (`resources.jsonBodyRoute` …) with `{identifier}` replaced by the existing person. */
export function routePath(target: Target, route: { path: string }): string {
  const existing = target.profile.resources.people?.existing ?? '';
  return route.path.replace('{identifier}', encodeURIComponent(existing));
}

/** The path prefix of {base_url} ('' for an origin), so that a raw request-target lands under it. */
export function basePathPrefix(target: Target): string {
  return new URL(target.apiUrl('/')).pathname.replace(/\/+$/, '');
}

/** The authority of {base_url}, as a Host header names it. */
export function baseHost(target: Target): string {
  return new URL(target.apiUrl('/')).host;
}

export interface WireCall {
  method?: string;
  /** The request-target exactly as written on the request line (origin-form paths get the {base_url} prefix). */
  requestTarget: string;
  /** `undefined`: the Host of {base_url}; `null`: no Host header at all; a string: that value. */
  host?: string | null;
  /** Written in order, repeated names included. */
  headers?: [string, string][];
  /** Written as is; a Content-Length is added unless `headers` has one. */
  body?: string;
}

/** The bytes of a request as `call` describes it (HTTP/1.1, Connection: close). */
export function wireBytes(target: Target, call: WireCall): string {
  const requestTarget = call.requestTarget.startsWith('/') ? basePathPrefix(target) + call.requestTarget : call.requestTarget;
  const lines = [`${call.method ?? 'GET'} ${requestTarget} HTTP/1.1`];
  if (call.host !== null) lines.push(`Host: ${call.host ?? baseHost(target)}`);
  for (const [k, v] of call.headers ?? []) lines.push(`${k}: ${v}`);
  const hasLength = (call.headers ?? []).some(([k]) => k.toLowerCase() === 'content-length');
  if (call.body !== undefined && !hasLength) lines.push(`Content-Length: ${Buffer.byteLength(call.body, 'utf8')}`);
  lines.push('Connection: close');
  return `${lines.join('\r\n')}\r\n\r\n${call.body ?? ''}`;
}

function dechunk(body: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  while (at < body.length) {
    const eol = body.indexOf('\r\n', at, 'latin1');
    if (eol < 0) break;
    const size = Number.parseInt(body.subarray(at, eol).toString('latin1').split(';')[0]!.trim(), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out.push(body.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/**
 * Sends `call` straight to the socket of {base_url} (TLS verified) and reads the answer as an
 * ApiResponse (error bodies validated against the gateway error schema, like the api client's).
 * A request that gets no HTTP answer gives status 0 and the socket error as its text.
 */
export async function wireCall(rawHttp: RawHttp, target: Target, redact: (text: string) => string, call: WireCall): Promise<ApiResponse> {
  const result = await rawHttp.wire(target.apiUrl('/'), wireBytes(target, call), 5000);
  const raw = Buffer.from(result.raw, 'latin1');
  const split = raw.indexOf('\r\n\r\n', 0, 'latin1');
  if (result.status === undefined || split < 0) {
    return new ApiResponseClass({ status: 0, headers: {}, text: `no HTTP response${result.error ? ` (${result.error})` : ''}`, json: undefined, durationMs: 0 }, undefined, redact);
  }
  const headerLines = raw.subarray(0, split).toString('latin1').split('\r\n').slice(1);
  const headers: Record<string, string[]> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    (headers[line.slice(0, colon).trim().toLowerCase()] ??= []).push(line.slice(colon + 1).trim());
  }
  let body: Buffer = raw.subarray(split + 4);
  if (/chunked/i.test(headers['transfer-encoding']?.join(',') ?? '')) body = dechunk(body);
  else if (headers['content-length']?.[0] !== undefined) body = body.subarray(0, Number(headers['content-length'][0]));
  const text = body.toString('utf8');
  const json = parseJson(text);
  const data = { status: result.status, headers: normalizeHeaders(headers), text, json, durationMs: 0 };
  return new ApiResponseClass(data, result.status >= 400 ? validateResponse('gateway-error', json) : undefined, redact);
}

// The made-up and altered tokens take the real token's format (JWT or opaque): token-format.ts.
export { alterOneCharacter, unknownToken } from './token-format.ts';
