// The request sequences the benchmark drives: the same fixed token request over and over, a
// refresh chain (each refresh uses the refresh token of the previous answer), and a protected call
// with one bearer token. Each worker checks every answer with response-checks.ts.
import type { Pool } from 'undici';
import { send, type LoadRequest, type LoadWorker } from './load-generator.ts';
import { checkTokenResponse, jsonRecordChecker, type TokenExpectation } from './response-checks.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

export function formPost(path: string, params: Record<string, string>): LoadRequest {
  return { method: 'POST', path, headers: FORM, body: new URLSearchParams(params).toString() };
}

/** The same token request every time; every answer must be a token response. */
export function tokenRequestWorker(
  path: string,
  params: Record<string, string>,
  expected: TokenExpectation,
): LoadWorker {
  const request = formPost(path, params);
  return {
    next: () => request,
    check: (response) => {
      const checked = checkTokenResponse(response, expected);
      return checked.ok ? undefined : checked.problem;
    },
  };
}

/** Sends one request through the pool and checks it as a token response (setup of a worker). */
export async function obtainToken(
  pool: Pool,
  request: LoadRequest,
  expected: TokenExpectation,
): Promise<{ access_token: string; refresh_token?: string }> {
  const response = await send(pool, request);
  const checked = checkTokenResponse(response, expected);
  if (!checked.ok) throw new Error(`setup: ${request.path}: ${checked.problem}`);
  return checked.value;
}

/**
 * A refresh chain: starts from the refresh token of one password grant; each answer's refresh token
 * is the next request's. A refused refresh breaks the chain: the next request reuses the old token,
 * which is refused too, so a broken chain shows as errors, never as speed.
 */
export function refreshChainWorker(
  path: string,
  client: Record<string, string>,
  firstRefreshToken: string,
  expected: TokenExpectation,
): LoadWorker {
  let refreshToken = firstRefreshToken;
  return {
    next: () => formPost(path, { grant_type: 'refresh_token', ...client, refresh_token: refreshToken }),
    check: (response) => {
      const checked = checkTokenResponse(response, { ...expected, refreshToken: true });
      if (!checked.ok) return checked.problem;
      refreshToken = checked.value.refresh_token!;
      return undefined;
    },
  };
}

/** GET `path` with a bearer token; every answer must be the JSON record whose `field` is `value`. */
export function protectedCallWorker(path: string, accessToken: string, field: string, value: string): LoadWorker {
  const request: LoadRequest = {
    method: 'GET',
    path,
    headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
  };
  return { next: () => request, check: jsonRecordChecker(field, value) };
}
