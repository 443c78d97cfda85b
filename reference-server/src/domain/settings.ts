// Tunables of the token service. Defaults follow spec §8 and DESIGN.md's interpretation table.
import { DEFAULT_PASSWORD_MAX_AGE_DAYS } from './password-policy.ts';

export interface TokenSettings {
  /** `expires_in` of client_credentials access tokens (spec sample: 3600). */
  clientCredentialsLifetimeSeconds: number;
  /** `expires_in` of password and refresh_token access tokens (spec sample: 604800). */
  passwordLifetimeSeconds: number;
  /** A refresh token stays valid this long after the access token it came with expires (OI-4). */
  refreshTokenValidityAfterAccessTokenSeconds: number;
  passwordMaxAgeDays: number;
  /** The password grant's scope (OI-3). */
  passwordScopes: readonly string[];
  /** The EU client_credentials scope (spec §2.2). */
  euDefaultScope: string;
  /** `iss` and `aud` of access tokens. */
  issuer: string;
  audience: string;
}

export const defaultTokenSettings: TokenSettings = {
  clientCredentialsLifetimeSeconds: 3600,
  passwordLifetimeSeconds: 604_800,
  refreshTokenValidityAfterAccessTokenSeconds: 604_800,
  passwordMaxAgeDays: DEFAULT_PASSWORD_MAX_AGE_DAYS,
  passwordScopes: ['email', 'openid', 'profile', 'company'],
  euDefaultScope: 'empty_default',
  issuer: 'urn:token-conformance:reference-server',
  audience: 'urn:token-conformance:data-services',
};
