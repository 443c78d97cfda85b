// Real JWTs for the gateway tests: an Ed25519 key generated per test process, a signer, and an
// AccessTokenVerifier built on jose that reads the fake clock (the token engineer's verifier
// keeps the same contract: `malformed` for what cannot be parsed, a reason for the rest).
import { SignJWT, errors, generateKeyPair, jwtVerify } from 'jose';
import type { CryptoKey } from 'jose';
import type {
  AccessTokenClaims,
  AccessTokenVerification,
  AccessTokenVerifier,
  Clock,
} from '../../../src/domain/ports.ts';
import type { Environment } from '../../../src/domain/model.ts';

export const testAudience = 'data-services';
export const testIssuer = 'https://auth.test';

export interface TestTokens {
  issue(
    claims: Partial<AccessTokenClaims> & Pick<AccessTokenClaims, 'client_id'>,
    options?: { lifetimeSeconds?: number; issuedAt?: number; audience?: string; key?: CryptoKey },
  ): Promise<string>;
  verifier: AccessTokenVerifier;
  /** A key the verifier does not know, for bad-signature tokens. */
  foreignKey: CryptoKey;
}

export async function createTestTokens(clock: Clock, environment: Environment): Promise<TestTokens> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const foreign = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  let sequence = 0;

  const issue: TestTokens['issue'] = async (claims, options = {}) => {
    const issuedAt = Math.floor((options.issuedAt ?? clock.now()) / 1000);
    const lifetime = options.lifetimeSeconds ?? 3600;
    const grant = claims.grant ?? 'client_credentials';
    sequence += 1;
    const payload: AccessTokenClaims = {
      sub: claims.sub ?? claims.client_id,
      client_id: claims.client_id,
      region: claims.region ?? 'us',
      env: claims.env ?? environment,
      grant,
      ...(claims.scope === undefined ? {} : { scope: claims.scope }),
      ...(claims.fid === undefined ? {} : { fid: claims.fid }),
    };
    return new SignJWT({ ...payload })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt' })
      .setIssuer(testIssuer)
      .setAudience(options.audience ?? testAudience)
      .setJti(`jti-${sequence}`)
      .setIssuedAt(issuedAt)
      .setNotBefore(issuedAt)
      .setExpirationTime(issuedAt + lifetime)
      .sign(options.key ?? privateKey);
  };

  const verifier: AccessTokenVerifier = {
    async verify(token: string): Promise<AccessTokenVerification> {
      try {
        const { payload } = await jwtVerify(token, publicKey, {
          issuer: testIssuer,
          audience: testAudience,
          currentDate: new Date(clock.now()),
          clockTolerance: 0,
        });
        const claims = payload as unknown as AccessTokenClaims & { jti: string; iat: number; exp: number };
        if (claims.env !== environment) return { ok: false, reason: 'wrong-environment' };
        return { ok: true, token: claims };
      } catch (error) {
        if (error instanceof errors.JWTExpired) return { ok: false, reason: 'expired' };
        if (error instanceof errors.JWTClaimValidationFailed)
          return { ok: false, reason: error.claim === 'nbf' ? 'not-yet-valid' : 'wrong-audience' };
        if (error instanceof errors.JWSSignatureVerificationFailed) return { ok: false, reason: 'invalid-signature' };
        return { ok: false, reason: 'malformed' };
      }
    },
  };

  return { issue, verifier, foreignKey: foreign.privateKey };
}
