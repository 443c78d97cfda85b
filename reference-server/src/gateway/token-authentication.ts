// Step 10 of the decision order: verifying a parseable bearer token. A token the verifier
// cannot parse is 000-1205; any other verification failure is 000-1202. A verifier that throws
// is a failed key source (000-1208), like the `key-source-failure` fault switch.
// Challenge descriptions are fixed strings; the token itself is never echoed or logged.
import type { Environment } from '../domain/model.ts';
import type { AccessTokenVerification, AccessTokenVerifier, VerifiedAccessToken } from '../domain/ports.ts';
import { bearerChallenge } from './bearer-challenge.ts';
import { reject } from './gateway-rejection.ts';
import type { GatewayRejection } from './gateway-rejection.ts';

type FailureReason = Extract<AccessTokenVerification, { ok: false }>['reason'];

const descriptions: Record<FailureReason, string> = {
  malformed: 'The access token is malformed',
  'invalid-signature': 'The access token is invalid',
  expired: 'The access token expired',
  'not-yet-valid': 'The access token is not yet valid',
  'wrong-environment': 'The access token was issued for another environment',
  'wrong-audience': 'The access token is not meant for this API',
};

export function invalidTokenRejection(reason: FailureReason): GatewayRejection {
  return reject(reason === 'malformed' ? '000-1205' : '000-1202', {
    headers: { 'www-authenticate': bearerChallenge('invalid_token', descriptions[reason]) },
    detail: `token verification failed: ${reason}`,
  });
}

export async function authenticateToken(token: string, verifier: AccessTokenVerifier, environment: Environment): Promise<VerifiedAccessToken | GatewayRejection> {
  let verification: AccessTokenVerification;
  try {
    verification = await verifier.verify(token);
  } catch (error) {
    return reject('000-1208', { detail: `token verifier failed: ${error instanceof Error ? error.name : 'unknown error'}` });
  }
  if (!verification.ok) return invalidTokenRejection(verification.reason);
  if (verification.token.env !== environment) return invalidTokenRejection('wrong-environment');
  return verification.token;
}
