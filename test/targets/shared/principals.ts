// The target's clients and users, with secrets drawn at each start (never written to a file).
// Each one stands for one profile credential name (profiles/README.md); the Data Services
// registry (clientId → role) is the gateway's, the user roles are the backend's.
import { randomBytes } from 'node:crypto';

export type Region = 'us' | 'eu';

export interface TargetClient {
  /** The profile's credential name (credentials.clients.<name>). */
  name: string;
  clientId: string;
  clientSecret: string;
  region: Region;
  grantTypes: string[];
  /** Whether the provider knows the client: a deactivated or other-environment client is absent. */
  registeredWithProvider: boolean;
  /** The Data Services role the gateway knows the client by; undefined: not registered. */
  dataServicesRole?: string;
}

export interface TargetUser {
  name: string;
  /** tenant_system_name\user_name */
  username: string;
  password: string;
  role: string;
  /**
   * When the password was last changed. Data only: neither the library nor this adapter has a
   * password-age rule (spec §5.5, 45 days), a listed deviation (LIMIT-PWD-001).
   */
  passwordChangedAt: Date;
}

/** The role that grants GET /v1/people/er/{identifier}. */
export const peopleReaderRole = 'people-reader';

const secret = () => randomBytes(24).toString('base64url');

export function generatePrincipals(): { clients: TargetClient[]; users: TargetUser[] } {
  const client = (
    name: string,
    clientId: string,
    region: Region,
    grantTypes: string[],
    dataServicesRole: string | undefined,
    registeredWithProvider = true,
  ): TargetClient => ({
    name,
    clientId,
    clientSecret: secret(),
    region,
    grantTypes,
    registeredWithProvider,
    dataServicesRole,
  });
  const clients = [
    client('usClient', 'us-cc-client', 'us', ['client_credentials'], peopleReaderRole),
    client('usClient2', 'us-pw-client-2', 'us', ['password', 'refresh_token'], peopleReaderRole),
    client('usPasswordClient', 'us-pw-client', 'us', ['password', 'refresh_token'], peopleReaderRole),
    client('usCcOnlyClient', 'us-cc-only-client', 'us', ['client_credentials'], peopleReaderRole),
    client('usUnregisteredClient', 'us-unregistered-client', 'us', ['client_credentials'], undefined),
    client('usWrongRoleClient', 'us-reporting-client', 'us', ['client_credentials'], 'reporting'),
    // Deactivated: removed from the provider's client list, as an operator would.
    client('usInactiveClient', 'us-inactive-client', 'us', ['client_credentials'], peopleReaderRole, false),
    client('euClient', 'eu-cc-client', 'eu', ['client_credentials'], peopleReaderRole),
    // Registered in the other environment (production): this (sandbox) provider does not know it.
    client('otherEnvironmentClient', 'us-prod-client', 'us', ['client_credentials'], peopleReaderRole, false),
  ];
  const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000);
  const user = (
    name: string,
    username: string,
    role = peopleReaderRole,
    passwordChangedAt = daysAgo(1),
  ): TargetUser => ({ name, username, password: secret(), role, passwordChangedAt });
  const users = [
    user('user', 'acme\\alice'),
    user('expiredUser', 'acme\\bob-expired', peopleReaderRole, daysAgo(50)),
    // The library has no lockout or throttling: the brute-force check may hammer this one.
    user('lockableUser', 'acme\\hank-lockable'),
    user('burnableUser', 'acme\\dave'),
    user('wrongRoleUser', 'acme\\frank', 'reporting'),
    // Form-encoding-sensitive characters, a space and a non-ASCII letter (profiles/README.md).
    { ...user('specialCharsUser', 'acme\\erin'), password: `p+a&s=s%w rd é ${secret()}` },
  ];
  return { clients, users };
}
