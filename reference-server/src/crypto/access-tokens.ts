// Access tokens: JWTs (RFC 9068 `at+jwt`) signed with Ed25519 (JWS alg EdDSA). The key pair is
// generated on first start and kept in the store, so that tokens survive a restart and processes
// sharing one data file share one key. Verification reads the injected clock (jose `currentDate`).
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign as signBytes, type KeyObject } from 'node:crypto';
import {
  calculateJwkThumbprint,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  jwtVerify,
  type JWK,
  type JWTPayload,
} from 'jose';
import type {
  AccessTokenClaims,
  AccessTokenSigner,
  AccessTokenVerification,
  AccessTokenVerifier,
  Clock,
  RandomSource,
  SignedAccessToken,
  Store,
  VerifiedAccessToken,
} from '../domain/ports.ts';
import type { Environment } from '../domain/model.ts';

export const ACCESS_TOKEN_ALG = 'EdDSA';
export const ACCESS_TOKEN_TYP = 'at+jwt';
const META_NAME = 'signing-key.v1';

interface StoredKey {
  kid: string;
  privateKeyPem: string;
  createdAt: number;
}

export class SigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly publicJwk: JWK;

  private constructor(stored: StoredKey) {
    this.kid = stored.kid;
    this.privateKey = createPrivateKey(stored.privateKeyPem);
    this.publicKey = createPublicKey(this.privateKey);
    this.publicJwk = {
      ...(this.publicKey.export({ format: 'jwk' }) as JWK),
      kid: stored.kid,
      alg: ACCESS_TOKEN_ALG,
      use: 'sig',
    };
  }

  /** The stored key, or a new one stored now (the first writer wins across processes). */
  static async loadOrCreate(store: Store, now: number): Promise<SigningKey> {
    const existing = await store.getMeta(META_NAME);
    if (existing !== undefined) return new SigningKey(JSON.parse(existing) as StoredKey);
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const kid = await calculateJwkThumbprint(publicKey.export({ format: 'jwk' }));
    const candidate: StoredKey = {
      kid,
      privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      createdAt: now,
    };
    return new SigningKey(JSON.parse(await store.putMetaIfAbsent(META_NAME, JSON.stringify(candidate))) as StoredKey);
  }

  jwks(): { keys: JWK[] } {
    return { keys: [this.publicJwk] };
  }
}

export interface TokenIdentity {
  issuer: string;
  audience: string;
}

/**
 * Signs with node:crypto directly (Ed25519, synchronous, on the calling thread): jose 6 signs through
 * WebCrypto, a round trip through libuv's thread pool for every token that bounds the signing
 * throughput (bench/). The compact JWS is built as RFC 7515 §7.1 says (the protected header is
 * fixed per key, so it is encoded once); jose still verifies it (JoseAccessTokenVerifier, and the tests).
 */
export class JoseAccessTokenSigner implements AccessTokenSigner {
  readonly #encodedHeader: string;

  constructor(
    private readonly key: SigningKey,
    private readonly identity: TokenIdentity,
    private readonly random: RandomSource,
  ) {
    this.#encodedHeader = base64url(JSON.stringify({ alg: ACCESS_TOKEN_ALG, typ: ACCESS_TOKEN_TYP, kid: key.kid }));
  }

  sign(claims: AccessTokenClaims, issuedAt: number, lifetimeSeconds: number): Promise<SignedAccessToken> {
    const iat = Math.floor(issuedAt / 1000);
    const exp = iat + lifetimeSeconds;
    const jti = this.random.token(16);
    const payload = { ...claims, iss: this.identity.issuer, aud: this.identity.audience, iat, exp, jti };
    const signingInput = `${this.#encodedHeader}.${base64url(JSON.stringify(payload))}`;
    const signature = signBytes(null, Buffer.from(signingInput, 'ascii'), this.key.privateKey).toString('base64url');
    return Promise.resolve({ token: `${signingInput}.${signature}`, jti, issuedAt: iat * 1000, expiresAt: exp * 1000 });
  }
}

const base64url = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

const jwsCompact = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export class JoseAccessTokenVerifier implements AccessTokenVerifier {
  constructor(
    private readonly key: SigningKey,
    private readonly identity: TokenIdentity,
    private readonly clock: Clock,
    private readonly environment: Environment,
  ) {}

  async verify(token: string): Promise<AccessTokenVerification> {
    if (!jwsCompact.test(token)) return { ok: false, reason: 'malformed' };
    try {
      decodeProtectedHeader(token);
      decodeJwt(token);
    } catch {
      return { ok: false, reason: 'malformed' };
    }
    const now = this.clock.now();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.key.publicKey, {
        algorithms: [ACCESS_TOKEN_ALG],
        typ: ACCESS_TOKEN_TYP,
        issuer: this.identity.issuer,
        audience: this.identity.audience,
        requiredClaims: ['iat', 'exp', 'jti', 'sub'],
        currentDate: new Date(now),
      }));
    } catch (error) {
      return { ok: false, reason: reasonOf(error) };
    }
    const claims = asVerifiedClaims(payload);
    if (!claims) return { ok: false, reason: 'invalid-signature' };
    if (claims.iat * 1000 > now) return { ok: false, reason: 'not-yet-valid' };
    if (claims.env !== this.environment) return { ok: false, reason: 'wrong-environment' };
    return { ok: true, token: claims };
  }
}

function reasonOf(error: unknown): Exclude<AccessTokenVerification, { ok: true }>['reason'] {
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'wrong-audience';
    if (error.claim === 'nbf' || error.claim === 'iat') return 'not-yet-valid';
    return 'invalid-signature';
  }
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return 'malformed';
  // Bad signature, another algorithm, another issuer or `typ`: a parseable token that is not ours.
  return 'invalid-signature';
}

const isString = (v: unknown): v is string => typeof v === 'string';

function asVerifiedClaims(p: JWTPayload): VerifiedAccessToken | undefined {
  const { sub, client_id, scope, region, env, grant, fid, jti, iat, exp } = p as Record<string, unknown>;
  if (!isString(sub) || !isString(client_id) || !isString(jti) || typeof iat !== 'number' || typeof exp !== 'number')
    return undefined;
  if (region !== 'us' && region !== 'eu') return undefined;
  if (env !== 'sandbox' && env !== 'production') return undefined;
  if (grant !== 'client_credentials' && grant !== 'password' && grant !== 'refresh_token') return undefined;
  if ((scope !== undefined && !isString(scope)) || (fid !== undefined && !isString(fid))) return undefined;
  return {
    sub,
    client_id,
    region,
    env,
    grant,
    jti,
    iat,
    exp,
    ...(scope !== undefined && { scope }),
    ...(fid !== undefined && { fid }),
  };
}
