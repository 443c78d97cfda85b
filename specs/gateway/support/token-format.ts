// The format of the target's access tokens, read from a real one. The spec never says access
// tokens are JWTs (§2.2 shows an opaque string), so every made-up or altered token the suite sends
// as "well-formed" takes the real token's format:
//   - jwt: three base64url segments whose first is a JSON JOSE header with `alg` (a JWS);
//   - opaque: anything else, described by its length and the smallest usual alphabet that holds
//     every character of it (lowercase hex, uppercase hex, lowercase alphanumerics, alphanumerics,
//     base64url, the b64token characters of RFC 6750 §2.1).
import { randomInt } from 'node:crypto';

export type TokenFormat =
  | { kind: 'jwt' }
  | { kind: 'opaque'; alphabet: string; alphabetName: string; length: number };

const lowerHex = '0123456789abcdef';
const upperHex = '0123456789ABCDEF';
const lowerAlnum = '0123456789abcdefghijklmnopqrstuvwxyz';
const alnum = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const base64url = `${alnum}-_`;
const b64token = `${alnum}-._~+/`;
const alphabets: [string, string][] = [
  ['lowercase hex', lowerHex], ['uppercase hex', upperHex], ['lowercase alphanumerics', lowerAlnum],
  ['alphanumerics', alnum], ['base64url', base64url], ['b64token', b64token],
];

function isJws(token: string): boolean {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p, i) => (i < 2 && p === '') || !/^[A-Za-z0-9_-]*$/.test(p))) return false;
  try {
    const header: unknown = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null && typeof (header as { alg?: unknown }).alg === 'string';
  } catch {
    return false;
  }
}

/** The format of `token` (a real access token of the target). */
export function tokenFormat(token: string): TokenFormat {
  if (isJws(token)) return { kind: 'jwt' };
  const body = token.replace(/=+$/, '');
  const found = alphabets.find(([, chars]) => [...body].every((c) => chars.includes(c)));
  const [alphabetName, alphabet] = found ?? ['b64token', b64token];
  return { kind: 'opaque', alphabet, alphabetName, length: token.length };
}

export function describeTokenFormat(f: TokenFormat): string {
  return f.kind === 'jwt' ? 'JWT (JWS compact)' : `opaque, ${f.length} characters of ${f.alphabetName}`;
}

const randomOf = (alphabet: string, length: number) => Array.from({ length }, () => alphabet[randomInt(alphabet.length)]!).join('');

/**
 * A well-formed bearer credential of the same format as `like` that no server issued: for a JWT
 * a made-up signed JWT (a JOSE header, JSON claims, a signature), so that it parses under any
 * reading and verifies under none; for an opaque token a random string of its length and alphabet.
 */
export function unknownToken(like: string): string {
  const format = tokenFormat(like);
  if (format.kind === 'opaque') {
    let token = randomOf(format.alphabet, format.length);
    while (token === like) token = randomOf(format.alphabet, format.length);
    return token;
  }
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const signature = Buffer.from(Array.from({ length: 256 }, () => randomInt(256))).toString('base64url');
  return `${b64({ alg: 'RS256', typ: 'JWT', kid: 'conformance-unknown-key' })}.${b64({ sub: 'conformance-unknown', iat: now, exp: now + 3600 })}.${signature}`;
}

/** `chars[i]` replaced by another character of `alphabet` (the next one, cyclically). */
function replaceAt(token: string, i: number, alphabet: string): string {
  const at = alphabet.indexOf(token[i]!);
  const replacement = alphabet[(at + 1) % alphabet.length]!;
  return token.slice(0, i) + replacement + token.slice(i + 1);
}

/**
 * `token` with the character at `index` (taken modulo the altered part) changed to another
 * character of the token's own alphabet, so that the result is still well-formed for its format.
 * For a JWT the character is taken from the signature, never its last character (whose low bits
 * may not count), so that the token still parses and only its verification fails.
 */
export function alterCharacterAt(token: string, index: number): string {
  const format = tokenFormat(token);
  if (format.kind === 'jwt') {
    const from = token.lastIndexOf('.') + 1;
    const span = Math.max(1, token.length - from - 1);
    return replaceAt(token, from + (index % span), base64url);
  }
  const body = token.replace(/=+$/, '').length; // never the padding
  return replaceAt(token, index % Math.max(1, body), format.alphabet);
}

/** A token altered in one character in its middle (of the signature, for a JWT). */
export function alterOneCharacter(token: string): string {
  const format = tokenFormat(token);
  const span = format.kind === 'jwt' ? token.length - token.lastIndexOf('.') - 2 : token.length;
  return alterCharacterAt(token, Math.floor(span / 2));
}
