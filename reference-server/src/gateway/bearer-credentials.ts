// Reading the bearer credential (RFC 6750 §2.1) out of the Authorization header:
//   credentials = "Bearer" 1*SP b64token        (scheme compared case-insensitively, RFC 9110 §11.1)
// The spec tells clients to send exactly one space; the gateway accepts the RFC grammar, i.e.
// one or more spaces (never tabs). Only the header counts: `?access_token=` and form-body tokens
// are not read at all, so such a request has no credentials (000-1201).
// A credential that is present but not a b64token, or not a JWS compact serialization whose
// header and claims decode to JSON objects, is a parse error (000-1205).
import { decodeJwt, decodeProtectedHeader } from 'jose';

export type BearerCredential =
  | { kind: 'none'; reason: 'no Authorization header' | 'another scheme' }
  | { kind: 'malformed'; reason: string }
  | { kind: 'token'; token: string };

const b64token = /^[A-Za-z0-9\-._~+/]+=*$/;
const base64urlSegment = /^[A-Za-z0-9_-]+$/;

/**
 * @param knownWellFormed  tokens already known to parse (a verified-token cache hit): their
 *   structure is not decoded again, since it cannot have changed.
 */
export function readBearerCredential(
  authorization: string | undefined,
  knownWellFormed?: (token: string) => boolean,
): BearerCredential {
  if (authorization === undefined || authorization.trim() === '')
    return { kind: 'none', reason: 'no Authorization header' };
  const schemeEnd = authorization.search(/[ \t]/);
  const scheme = schemeEnd < 0 ? authorization : authorization.slice(0, schemeEnd);
  if (scheme.toLowerCase() !== 'bearer') return { kind: 'none', reason: 'another scheme' };
  if (schemeEnd < 0) return { kind: 'malformed', reason: 'Bearer without a token' };
  const afterScheme = authorization.slice(schemeEnd);
  const spaces = /^ +/.exec(afterScheme)?.[0].length ?? 0;
  if (spaces === 0) return { kind: 'malformed', reason: 'no space after Bearer' };
  const token = afterScheme.slice(spaces);
  if (token === '') return { kind: 'malformed', reason: 'Bearer without a token' };
  if (!b64token.test(token)) return { kind: 'malformed', reason: 'characters outside b64token' };
  if (knownWellFormed?.(token) === true) return { kind: 'token', token };
  const structure = jwtStructureProblem(token);
  return structure === undefined ? { kind: 'token', token } : { kind: 'malformed', reason: structure };
}

/** Why `token` is not a parseable JWT, or undefined when it is one (signature not checked). */
export function jwtStructureProblem(token: string): string | undefined {
  const segments = token.split('.');
  if (segments.length !== 3 || !segments.every((s) => base64urlSegment.test(s))) return 'not three base64url segments';
  try {
    decodeProtectedHeader(token);
  } catch {
    return 'undecodable JOSE header';
  }
  try {
    decodeJwt(token);
  } catch {
    return 'undecodable claims';
  }
  return undefined;
}
