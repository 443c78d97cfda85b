// The reference server's domain records. Plain data: no HTTP, no storage, no clock.

export type Region = 'us' | 'eu';
export type Environment = 'sandbox' | 'production';
export type GrantType = 'client_credentials' | 'password' | 'refresh_token';

/** Registration with the Data Services team (spec §5.3): needed before client_credentials tokens work on the APIs. */
export interface DataServicesRegistration {
  tenantId: string;
  role: string;
}

export interface Client {
  clientId: string;
  /** Slow hash of the client secret (see SecretHasher); the secret itself is never stored. */
  secretHash: string;
  name: string;
  region: Region;
  environment: Environment;
  grants: GrantType[];
  registration: DataServicesRegistration | null;
  active: boolean;
  createdAt: number;
  /** Sandbox clients registered on the portal: the tenant whose administrators manage them; null otherwise (seed, operator). */
  managedByTenant: string | null;
  /** The last characters of the secret, shown on the portal instead of the secret; null when unknown (seed). */
  secretHint: string | null;
}

export interface User {
  /** tenant_system_name\user_name, as sent in the password grant. */
  tenant: string;
  userName: string;
  passwordHash: string;
  /** Epoch milliseconds of the last password change: the 45-day rule counts from here. */
  passwordChangedAt: number;
  role: string;
  active: boolean;
  /** A tenant administrator may register the tenant's sandbox clients on the portal. */
  tenantAdmin: boolean;
}

export interface RefreshTokenRecord {
  /** SHA-256 of the token, base64url: the token itself is never stored. */
  tokenHash: string;
  /** All refresh tokens descending from one password grant share a family. */
  familyId: string;
  clientId: string;
  tenant: string;
  userName: string;
  scope: string;
  issuedAt: number;
  expiresAt: number;
  usedAt: number | null;
  revokedAt: number | null;
}

export interface PersonRecord {
  identifier: string;
  tenantId: string;
  givenName: string;
  familyName: string;
  email: string;
  employmentStatus: 'active' | 'terminated' | 'leave';
  hireDate: string;
}
