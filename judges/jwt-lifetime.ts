// What a JWT access token states of its own lifetime (RFC 7519 §4.1.4 exp, §4.1.6 iat; RFC 9068
// §2.2), read from the token response alone, without a clock. A live exchange reads it from the
// token; a recording keeps the two numbers beside the token's digest (the token itself is never
// stored), so that `audit` reads the same.

/** The lifetime claims of a JWT: each a number, or null when absent or not a NumericDate. */
export interface LifetimeClaims {
  iat: number | null;
  exp: number | null;
}

/** Three base64url segments whose first is a JSON JOSE header with `alg` (a JWS compact token). */
export function isJws(token: string): boolean {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p, i) => (i < 2 && p === '') || !/^[A-Za-z0-9_-]*$/.test(p))) return false;
  try {
    const header: unknown = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null && typeof (header as { alg?: unknown }).alg === 'string';
  } catch {
    return false;
  }
}

const numericDate = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The claims of a JWS whose payload is a JSON object; undefined for any other token (not a JWT). */
export function lifetimeClaimsOf(token: string): LifetimeClaims | undefined {
  if (!isJws(token)) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
    const claims = payload as Record<string, unknown>;
    return { iat: numericDate(claims.iat), exp: numericDate(claims.exp) };
  } catch {
    return undefined;
  }
}

/** What one token response says of its access token's lifetime. */
export type StatedLifetime =
  | { kind: 'not-jwt' }
  | { kind: 'no-exp' }
  | { kind: 'no-start' }
  | { kind: 'stated'; seconds: number; from: 'iat' | 'Date' };

/**
 * exp − iat of the access token. Without iat the issuance instant is the response's Date header
 * (the target's own clock, to the second): still no clock of ours.
 */
export function statedLifetime(claims: LifetimeClaims | undefined, date: string | undefined): StatedLifetime {
  if (!claims) return { kind: 'not-jwt' };
  if (claims.exp === null) return { kind: 'no-exp' };
  if (claims.iat !== null) return { kind: 'stated', seconds: claims.exp - claims.iat, from: 'iat' };
  const issued = Date.parse(date ?? '');
  if (Number.isNaN(issued)) return { kind: 'no-start' };
  return { kind: 'stated', seconds: claims.exp - Math.floor(issued / 1000), from: 'Date' };
}
