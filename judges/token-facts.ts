// What the token-endpoint judges read of one exchange, worked out once per exchange: the body, the
// answer in a few words, the request's form and how it authenticated, and which of the rules'
// scopes the exchange falls in (a request that must issue nothing; a request whose shape is judged;
// a success or an error of a well-formed token request).
import type { Classified } from './classify.ts';
import { headerOf, jsonObjectOf, mediaTypeOf } from './exchange.ts';

export interface TokenFacts {
  status: number;
  body: Record<string, unknown> | undefined;
  /** A token in the body, whatever the status: what a request that must issue nothing must not get. */
  carriesToken: boolean;
  errorCode: string | undefined;
  /** `400 invalid_request`, `200 with an access_token`: the answer as messages quote it. */
  answer: string;
  /**
   * A POST to the US or EU endpoint read as a form: not JSON, and not a body of another type refused
   * with 415 (the gateway's refusal of a body that is not a form, OI-5, is no token error response).
   */
  formRequest: boolean;
  /** Its shape is judged: a form request whose client did not fail authentication (that answer comes first). */
  shapeJudged: boolean;
  count(name: string): number;
  /** The parameters the request repeats (of those a repetition must be refused for). */
  repeated: string[];
  /** No repeated parameter, one grant_type and one client authentication carrying id and secret. */
  wellFormed: boolean;
  /**
   * A grant_type value the spec does not know (one of several, where grant_type is repeated): a second
   * fault beside a malformed request's, whose refusal RFC 6749 lets come first.
   */
  unknownGrant: boolean;
  /** A token was issued (2xx with an access_token) to a form request. */
  issued: boolean;
  /** A form request was refused: an OAuth error, or a 4xx other than 429, or a 5xx (an error answer all the same). */
  refused: boolean;
  refused400(code: string): boolean;
}

/** The grants of spec §4. */
export const knownGrants: readonly string[] = ['client_credentials', 'password', 'refresh_token'];

const cache = new WeakMap<Classified, TokenFacts | undefined>();

/** The facts of a token-endpoint exchange with a response (undefined for any other exchange). */
export function tokenFacts(c: Classified): TokenFacts | undefined {
  if (cache.has(c)) return cache.get(c);
  const facts = compute(c);
  cache.set(c, facts);
  return facts;
}

function compute(c: Classified): TokenFacts | undefined {
  const res = c.exchange.response;
  if (!res || (c.kind !== 'token-us' && c.kind !== 'token-eu' && c.kind !== 'token-other-version')) return undefined;
  const body = jsonObjectOf(res.body);
  const carriesToken = body !== undefined && typeof body.access_token === 'string';
  const errorCode = typeof body?.error === 'string' ? body.error : undefined;
  const post = c.exchange.request.method === 'POST';
  const requestType = mediaTypeOf(headerOf(c.exchange.request.headers, 'content-type'));
  const notAForm = requestType !== undefined && requestType !== 'application/x-www-form-urlencoded';
  const formRequest =
    c.kind !== 'token-other-version' && post && requestType !== 'application/json' && !(notAForm && res.status === 415);
  const form = c.form ?? [];
  const grants = form.filter(([k]) => k === 'grant_type').map(([, v]) => v);
  const count = (name: string) => form.filter(([k]) => k === name).length;
  const repeated = ['grant_type', 'client_id', 'refresh_token'].filter((n) => count(n) > 1);
  // With Basic, a body client_id naming another client is a second identity (AUTH-CLI-012): the
  // request is then not one any single rule judges.
  const oneAuthentication = c.auth.basic
    ? !c.auth.formSecret && (c.bodyClientId === undefined || c.bodyClientId === c.clientId)
    : count('client_id') === 1 && count('client_secret') === 1;
  const issued = formRequest && carriesToken && res.status >= 200 && res.status < 300;
  return {
    status: res.status,
    body,
    carriesToken,
    errorCode,
    answer: `${res.status}${errorCode ? ` ${errorCode}` : ''}${carriesToken ? ' with an access_token' : ''}`,
    formRequest,
    // A client that failed authentication was refused before its request was read.
    shapeJudged: formRequest && c.form !== undefined && errorCode !== 'invalid_client',
    count,
    repeated,
    wellFormed: repeated.length === 0 && count('grant_type') === 1 && oneAuthentication,
    unknownGrant: grants.some((g) => g !== '' && !knownGrants.includes(g)),
    issued,
    refused: formRequest && !issued && (errorCode !== undefined || (res.status >= 400 && res.status !== 429)),
    refused400: (code) => res.status === 400 && errorCode === code,
  };
}

/** The directive names of a comma-separated header (Cache-Control, Pragma), lower-cased, every occurrence of it. */
export function directives(headers: [string, string][], name: string): string[] {
  const lower = name.toLowerCase();
  return headers
    .filter(([n]) => n.toLowerCase() === lower)
    .flatMap(([, v]) => v.split(','))
    .map((d) => d.split('=')[0]!.trim().toLowerCase())
    .filter((d) => d !== '');
}
