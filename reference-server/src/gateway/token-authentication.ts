// Step 10 of the decision order: verifying a parseable bearer token. A token the verifier
// cannot parse is 000-1205; any other verification failure is 000-1202. A verifier that throws
// is a failed key source (000-1208), like the `key-source-failure` fault switch.
// A valid token whose refresh-token family (`fid`) was revoked, for reuse of a refresh token or by a
// password change, is 000-1202 too (STATE-RT-FAMILY-002, RFC 9700 §4.14.2): one indexed lookup in
// the shared store per such token, no cache, so a revocation by any process sharing the store
// counts from its next request on. Tokens without `fid` (client_credentials) need no lookup.
// Challenge descriptions are fixed strings; the token itself is never echoed or logged.
import type { Environment } from '../domain/model.ts';
import type { AccessTokenVerification, AccessTokenVerifier, Store, VerifiedAccessToken } from '../domain/ports.ts';
import { bearerChallenge } from './bearer-challenge.ts';
import { reject } from './gateway-rejection.ts';
import type { GatewayRejection } from './gateway-rejection.ts';

type FailureReason = Extract<AccessTokenVerification, { ok: false }>['reason'] | 'revoked';

const descriptions: Record<FailureReason, string> = {
  malformed: 'The access token is malformed',
  'invalid-signature': 'The access token is invalid',
  expired: 'The access token expired',
  'not-yet-valid': 'The access token is not yet valid',
  'wrong-environment': 'The access token was issued for another environment',
  'wrong-audience': 'The access token is not meant for this API',
  revoked: 'The access token was revoked',
};

export function invalidTokenRejection(reason: FailureReason): GatewayRejection {
  return reject(reason === 'malformed' ? '000-1205' : '000-1202', {
    headers: { 'www-authenticate': bearerChallenge('invalid_token', descriptions[reason]) },
    detail: `token verification failed: ${reason}`,
  });
}

export async function authenticateToken(
  token: string,
  verifier: AccessTokenVerifier,
  environment: Environment,
  revocations: Pick<Store, 'isFamilyRevoked'>,
): Promise<VerifiedAccessToken | GatewayRejection> {
  let verification: AccessTokenVerification;
  try {
    verification = await verifier.verify(token);
  } catch (error) {
    return reject('000-1208', {
      detail: `token verifier failed: ${error instanceof Error ? error.name : 'unknown error'}`,
    });
  }
  if (!verification.ok) return invalidTokenRejection(verification.reason);
  if (verification.token.env !== environment) return invalidTokenRejection('wrong-environment');
  const { fid } = verification.token;
  if (fid !== undefined && (await revocations.isFamilyRevoked(fid))) return invalidTokenRejection('revoked');
  return verification.token;
}
