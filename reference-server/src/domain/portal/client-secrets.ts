// New client credentials: generated ids and secrets, and the hint shown instead of a secret.
import type { RandomSource } from '../ports.ts';

/** 32 random bytes, base64url: 43 characters of RFC 3986 unreserved characters. */
export const CLIENT_SECRET_BYTES = 32;
/** How many trailing characters of a secret the hint shows (24 of its 256 bits). */
export const SECRET_HINT_LENGTH = 4;

export function newClientSecret(random: RandomSource): string {
  return random.token(CLIENT_SECRET_BYTES);
}

/** `prefix-` + 16 base64url characters (96 random bits). */
export function newClientId(random: RandomSource, prefix: string): string {
  return `${prefix}-${random.token(12)}`;
}

export function secretHint(secret: string): string {
  return `…${secret.slice(-SECRET_HINT_LENGTH)}`;
}
