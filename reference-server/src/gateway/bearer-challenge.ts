// The `WWW-Authenticate` challenges of RFC 6750 §3 that gateway 401s and 403s carry.
// 1201 (no credentials) gets a bare challenge, as RFC 6750 §3.1 asks when the request had no
// authentication information; invalid tokens get `invalid_token`, role failures
// `insufficient_scope`. Descriptions are fixed strings: nothing from the request is echoed.

export const bearerRealm = 'data-services';

export type BearerChallengeError = 'invalid_token' | 'insufficient_scope';

export function bearerChallenge(error?: BearerChallengeError, description?: string): string {
  const parts = [`Bearer realm="${bearerRealm}"`];
  if (error !== undefined) parts.push(`error="${error}"`);
  if (description !== undefined) parts.push(`error_description="${description.replace(/["\\]/g, '')}"`);
  return parts.join(', ');
}
