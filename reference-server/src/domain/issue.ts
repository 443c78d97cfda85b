// Minting of access and refresh tokens, shared by the grants.
import type { Client, RefreshTokenRecord } from './model.ts';
import type {
  AccessTokenClaims,
  AccessTokenSigner,
  Clock,
  RandomSource,
  SignedAccessToken,
  Store,
  TokenDigest,
} from './ports.ts';
import type { Environment, Region } from './model.ts';
import type { TokenSettings } from './settings.ts';

export interface TokenResponseBody {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  /** draft-ietf-oauth-refresh-token-expiration-03: seconds the refresh token stays valid. */
  refresh_token_expires_in?: number;
  scope?: string;
}

export interface IssueDeps {
  store: Store;
  clock: Clock;
  random: RandomSource;
  digest: TokenDigest;
  signer: AccessTokenSigner;
  settings: TokenSettings;
  environment: Environment;
}

/** 32 random bytes: 256 bits, base64url (43 characters). */
export const REFRESH_TOKEN_BYTES = 32;

export function baseClaims(
  client: Client,
  region: Region,
  environment: Environment,
): Pick<AccessTokenClaims, 'client_id' | 'region' | 'env'> {
  return { client_id: client.clientId, region, env: environment };
}

export async function issueAccessToken(
  deps: IssueDeps,
  claims: AccessTokenClaims,
  now: number,
  lifetimeSeconds: number,
): Promise<SignedAccessToken> {
  return deps.signer.sign(claims, now, lifetimeSeconds);
}

export interface IssuedRefreshToken {
  token: string;
  /** Epoch milliseconds (whole seconds, like the access token's `exp`). */
  expiresAt: number;
}

/** Stores a new refresh token (its hash only) valid until the configured time after its access token expires. */
export async function issueRefreshToken(
  deps: IssueDeps,
  fields: Pick<RefreshTokenRecord, 'familyId' | 'clientId' | 'tenant' | 'userName' | 'scope'>,
  now: number,
  accessToken: SignedAccessToken,
): Promise<IssuedRefreshToken> {
  const token = deps.random.token(REFRESH_TOKEN_BYTES);
  const expiresAt = accessToken.expiresAt + deps.settings.refreshTokenValidityAfterAccessTokenSeconds * 1000;
  await deps.store.saveRefreshToken({
    ...fields,
    tokenHash: deps.digest.digest(token),
    issuedAt: now,
    expiresAt,
    usedAt: null,
    revokedAt: null,
  });
  return { token, expiresAt };
}

export const userSubject = (tenant: string, userName: string): string => `${tenant}\\${userName}`;

export interface UserTokenPair {
  client: Client;
  region: Region;
  tenant: string;
  userName: string;
  grant: 'password' | 'refresh_token';
  familyId: string;
  /** Scope of the access token (may be narrowed by the request). */
  scope: string;
  /** Scope the new refresh token carries: the family's original scope. */
  refreshScope: string;
}

/** The answer of the password and refresh_token grants: an access token and a refresh token of one family. */
export async function issueUserTokenPair(
  deps: IssueDeps,
  pair: UserTokenPair,
  now: number,
): Promise<TokenResponseBody> {
  const lifetime = deps.settings.passwordLifetimeSeconds;
  const accessToken = await issueAccessToken(
    deps,
    {
      sub: userSubject(pair.tenant, pair.userName),
      ...baseClaims(pair.client, pair.region, deps.environment),
      scope: pair.scope,
      grant: pair.grant,
      fid: pair.familyId,
    },
    now,
    lifetime,
  );
  const refreshToken = await issueRefreshToken(
    deps,
    {
      familyId: pair.familyId,
      clientId: pair.client.clientId,
      tenant: pair.tenant,
      userName: pair.userName,
      scope: pair.refreshScope,
    },
    now,
    accessToken,
  );
  return {
    access_token: accessToken.token,
    token_type: 'Bearer',
    expires_in: lifetime,
    refresh_token: refreshToken.token,
    // Counted from the access token's `iat`, as expires_in is: the refresh token is refused from
    // exactly this many seconds after it, and accepted until then.
    refresh_token_expires_in: (refreshToken.expiresAt - accessToken.issuedAt) / 1000,
    scope: pair.scope,
  };
}
