// What the domain core needs from the outside world, as small interfaces. The core never reads
// `Date`, `process` or a database directly: these come in, so that tests (and the test clock)
// control time, randomness and storage.
import type { Client, PersonRecord, RefreshTokenRecord, User } from './model.ts';

/** Epoch milliseconds. Every expiry decision reads this clock. */
export interface Clock {
  now(): number;
}

export interface RandomSource {
  /** `byteLength` cryptographically strong random bytes, base64url-encoded. */
  token(byteLength: number): string;
}

/** A one-way digest for high-entropy values (refresh tokens): SHA-256, base64url. */
export interface TokenDigest {
  digest(value: string): string;
}

/** Slow, salted hashing of client secrets and passwords, compared in constant time. */
export interface SecretHasher {
  hash(secret: string): Promise<string>;
  verify(secret: string, encodedHash: string): Promise<boolean>;
}

export interface AccessTokenClaims {
  /** The client id for client_credentials tokens; `tenant` + one backslash + `userName` for password and refresh_token tokens. */
  sub: string;
  client_id: string;
  scope?: string;
  /** Which token service region issued the token. */
  region: 'us' | 'eu';
  env: 'sandbox' | 'production';
  grant: 'client_credentials' | 'password' | 'refresh_token';
  /** The refresh-token family, for password-grant tokens. */
  fid?: string;
}

export interface SignedAccessToken {
  token: string;
  jti: string;
  /** Epoch milliseconds (whole seconds, as in the JWT's `iat`). */
  issuedAt: number;
  /** Epoch milliseconds (whole seconds, as in the JWT's `exp`). */
  expiresAt: number;
}

export interface AccessTokenSigner {
  sign(claims: AccessTokenClaims, issuedAt: number, lifetimeSeconds: number): Promise<SignedAccessToken>;
}

export type ConsumeRefreshTokenResult =
  | { outcome: 'consumed'; record: RefreshTokenRecord }
  | { outcome: 'unknown' }
  | { outcome: 'already-used'; record: RefreshTokenRecord }
  | { outcome: 'revoked'; record: RefreshTokenRecord }
  | { outcome: 'expired'; record: RefreshTokenRecord }
  | { outcome: 'wrong-client'; record: RefreshTokenRecord };

/**
 * Whose run of failed attempts: a client id, or a username exactly as presented (`tenant` +
 * backslash + `userName`), as tried from one source (the caller's network address, see
 * attempt-throttle.ts); no source is one shared source of its own.
 */
export type AttemptPrincipal = { kind: 'client' | 'user'; name: string; source?: string };

/** The consecutive failed attempts of one principal, and its lock. */
export interface FailedAttempts {
  /** Failures since the last success, the last lock, or a long enough quiet period. */
  failures: number;
  /** Epoch milliseconds of the last counted failure. */
  lastFailureAt: number;
  /** Epoch milliseconds until which the principal is locked; null when it is not. */
  lockedUntil: number | null;
}

/**
 * Persistence. Kept small so that a shared store can back several replicas (SQLite: processes on
 * one file; PostgreSQL: replicas on several machines). Every operation is asynchronous, so that a
 * store across the network fits; an embedded one answers at once (a resolved promise).
 * `consumeRefreshToken` is the one operation that must be atomic across processes; every other
 * write is one statement or one transaction. store-contract.test.ts is what a store must pass.
 */
export interface Store {
  findClient(clientId: string): Promise<Client | undefined>;
  saveClient(client: Client): Promise<void>;
  deleteClient(clientId: string): Promise<void>;
  findUser(tenant: string, userName: string): Promise<User | undefined>;
  saveUser(user: User): Promise<void>;
  saveRefreshToken(record: RefreshTokenRecord): Promise<void>;
  /** Reads a refresh token record without changing it (checks before the atomic consume). */
  findRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | undefined>;
  /** Marks the token used if it is unused, unrevoked, unexpired and bound to `clientId`; otherwise says why not. */
  consumeRefreshToken(tokenHash: string, clientId: string, now: number): Promise<ConsumeRefreshTokenResult>;
  revokeFamily(familyId: string, now: number): Promise<number>;
  /**
   * Revokes every outstanding refresh token of a user (password change) and marks every family of
   * the user revoked, so that the access tokens issued from them are refused too.
   */
  revokeUserTokens(tenant: string, userName: string, now: number): Promise<number>;
  /** Whether the family was revoked (reuse detection or a password change). */
  isFamilyRevoked(familyId: string): Promise<boolean>;
  /** Deletes refresh tokens expired before `before`, at most `limit` rows; returns how many. */
  purgeExpired(before: number, limit: number): Promise<number>;
  /** The failed-attempt state of a principal; undefined when it has none. */
  findFailedAttempts(principal: AttemptPrincipal): Promise<FailedAttempts | undefined>;
  /**
   * Counts one failure at `now`, atomically (also across processes sharing the store); a run whose
   * last failure is before `restartBefore` starts again at 1. Returns the state after the update.
   */
  recordFailedAttempt(principal: AttemptPrincipal, now: number, restartBefore: number): Promise<FailedAttempts>;
  /** Locks the principal until `until`; its failure count starts again from 0. */
  lockPrincipal(principal: AttemptPrincipal, until: number): Promise<void>;
  /** Forgets the principal's failures and lock (a successful attempt). */
  clearFailedAttempts(principal: AttemptPrincipal): Promise<void>;
  /** Deletes states whose last failure is before `before` and whose lock (if any) ended before it; at most `limit`. */
  purgeFailedAttempts(before: number, limit: number): Promise<number>;
  findPerson(identifier: string): Promise<PersonRecord | undefined>;
  savePerson(person: PersonRecord): Promise<void>;
  /** Small server-wide settings (the signing key, the seed marker). */
  getMeta(name: string): Promise<string | undefined>;
  /** Stores `value` unless `name` is already set, atomically; returns the value that is stored now. */
  putMetaIfAbsent(name: string, value: string): Promise<string>;
  close(): Promise<void>;
  /**
   * Present on a store that keeps the records it read (SQLite): the reads of one decision (one
   * request), which look for other processes' changes once, now, instead of before every read.
   * Exact: the decision reads the store as of this moment or later, as a change landing during a
   * decision lands before or after it. Absent on PostgreSQL, whose replicas keep nothing.
   */
  readsOfOneDecision?(): DecisionReads;
}

/** The reads one decision makes through `readsOfOneDecision`. */
export type DecisionReads = Pick<Store, 'findClient' | 'findUser' | 'findPerson' | 'findFailedAttempts'>;

/** A verified access token: the signed claims plus the registered JWT ones. */
export interface VerifiedAccessToken extends AccessTokenClaims {
  jti: string;
  iat: number;
  exp: number;
}

export type AccessTokenVerification =
  | { ok: true; token: VerifiedAccessToken }
  /** `malformed`: not a parseable JWT (gateway 000-1205); the others: a parseable but invalid token (000-1202). */
  | {
      ok: false;
      reason: 'malformed' | 'invalid-signature' | 'expired' | 'not-yet-valid' | 'wrong-environment' | 'wrong-audience';
    };

export interface AccessTokenVerifier {
  /** Verifies signature, audience, environment and expiry against the injected clock. */
  verify(token: string): Promise<AccessTokenVerification>;
}
