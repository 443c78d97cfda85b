// The access token the ceilings and the oauth2-server peer sign: the reference server's shape
// (RFC 9068 `at+jwt`, Ed25519/EdDSA, the same registered and private claims, a random `jti`), so
// that a ceiling does the same cryptographic work per token as the reference server.
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { SignJWT, calculateJwkThumbprint } from 'jose';

export const ISSUER = 'urn:token-conformance:bench';
export const AUDIENCE = 'urn:token-conformance:data-services';
export const LIFETIME_SECONDS = 3600;

export interface BenchKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  kid: string;
}

export async function newBenchKey(): Promise<BenchKey> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, publicKey, kid: await calculateJwkThumbprint(publicKey.export({ format: 'jwk' })) };
}

export async function signAccessToken(key: BenchKey, clientId: string): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: clientId, client_id: clientId, region: 'us', env: 'sandbox', grant: 'client_credentials' })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: key.kid })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(iat + LIFETIME_SECONDS)
    .setJti(randomBytes(16).toString('base64url'))
    .sign(key.privateKey);
}
