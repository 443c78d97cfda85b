// What a good answer looks like, for every target alike: a token response (RFC 6749 §5.1) whose
// access token is a JWS signed with the expected algorithm, or a JSON resource naming the expected
// record. Each check returns what is wrong, so that the load generator can count and sample it.
import type { LoadResponse } from './load-generator.ts';

export interface TokenExpectation {
  /** The JWS `alg` the access token's protected header must carry. */
  alg: string;
  /** Whether the answer must carry a refresh_token (password, refresh) or must not (client_credentials). */
  refreshToken: boolean;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

export interface TokenBody {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token?: string;
  scope?: string;
}

const jwsCompact = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

function isJsonMediaType(response: LoadResponse): boolean {
  return (response.headers['content-type'] ?? '').startsWith('application/json');
}

function parseJsonAnswer(response: LoadResponse, status: number): Checked<Record<string, unknown>> {
  if (response.status !== status)
    return { ok: false, problem: `HTTP ${response.status} (expected ${status}): ${response.body.slice(0, 120)}` };
  if (!isJsonMediaType(response))
    return { ok: false, problem: `content-type '${response.headers['content-type'] ?? ''}' is not application/json` };
  try {
    const body: unknown = JSON.parse(response.body);
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return { ok: false, problem: 'the body is not a JSON object' };
    return { ok: true, value: body as Record<string, unknown> };
  } catch {
    return { ok: false, problem: 'the body is not JSON' };
  }
}

export function checkTokenResponse(response: LoadResponse, expected: TokenExpectation): Checked<TokenBody> {
  const parsed = parseJsonAnswer(response, 200);
  if (!parsed.ok) return parsed;
  const { access_token, token_type, expires_in, refresh_token, scope } = parsed.value;
  if (typeof access_token !== 'string' || !jwsCompact.test(access_token))
    return { ok: false, problem: 'access_token is not a compact JWS' };
  let alg: unknown;
  try {
    alg = (
      JSON.parse(Buffer.from(access_token.slice(0, access_token.indexOf('.')), 'base64url').toString('utf8')) as {
        alg?: unknown;
      }
    ).alg;
  } catch {
    return { ok: false, problem: 'the access token header is not JSON' };
  }
  if (alg !== expected.alg) return { ok: false, problem: `access token alg ${String(alg)} (expected ${expected.alg})` };
  if (token_type !== 'Bearer') return { ok: false, problem: `token_type ${String(token_type)} (expected Bearer)` };
  if (typeof expires_in !== 'number' || !(expires_in > 0))
    return { ok: false, problem: 'expires_in is not a positive number' };
  if (expected.refreshToken && typeof refresh_token !== 'string') return { ok: false, problem: 'no refresh_token' };
  if (!expected.refreshToken && refresh_token !== undefined)
    return { ok: false, problem: 'an unexpected refresh_token' };
  if (scope !== undefined && typeof scope !== 'string') return { ok: false, problem: 'scope is not a string' };
  return {
    ok: true,
    value: {
      access_token,
      token_type,
      expires_in,
      ...(typeof refresh_token === 'string' && { refresh_token }),
      ...(typeof scope === 'string' && { scope }),
    },
  };
}

/** A 200 JSON object whose `field` equals `value` (e.g. the person asked for). */
export function checkJsonRecord(response: LoadResponse, field: string, value: string): string | undefined {
  const parsed = parseJsonAnswer(response, 200);
  if (!parsed.ok) return parsed.problem;
  return parsed.value[field] === value
    ? undefined
    : `${field} is ${JSON.stringify(parsed.value[field])} (expected ${value})`;
}

/**
 * checkJsonRecord for a worker that asks for the same record again and again. An answer whose body
 * is byte for byte the last one accepted is the same JSON with the same field, so it is accepted
 * after its status and media type are checked, without parsing it again; any other body is checked
 * in full (and becomes the one remembered when it passes). Exactly the answers checkJsonRecord
 * accepts are accepted.
 */
export function jsonRecordChecker(field: string, value: string): (response: LoadResponse) => string | undefined {
  let accepted: string | undefined;
  return (response) => {
    if (response.body === accepted && response.status === 200 && isJsonMediaType(response)) return undefined;
    const problem = checkJsonRecord(response, field, value);
    if (problem === undefined) accepted = response.body;
    return problem;
  };
}
