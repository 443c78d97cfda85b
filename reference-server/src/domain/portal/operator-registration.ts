// The operator's registration of a client (spec §5.3: production clients, their tenant id and role
// are registered with the Data Services team, by e-mail). What the team does after that e-mail:
// the client gets an id (given or generated), a generated secret (shown once) and its Data
// Services registration. Such a client is managed by no tenant: the portal never lists it.
import type { Client, Environment, GrantType, Region } from '../model.ts';
import type { PortalDeps } from './portal-deps.ts';
import { newClientId, newClientSecret, secretHint } from './client-secrets.ts';
import { PortalRefusal, portalMessages } from './portal-errors.ts';

export interface OperatorRegistration {
  /** Letters, digits and -._~ (3 to 64); generated when absent. */
  clientId?: string;
  name: string;
  region: Region;
  environment: Environment;
  grants: GrantType[];
  tenantId: string;
  role: string;
}

export type OperatorRegistrationDeps = Pick<PortalDeps, 'store' | 'clock' | 'random' | 'hasher'>;

export function operatorRegistrationProblems(input: OperatorRegistration): string[] {
  const problems: string[] = [];
  if (input.clientId !== undefined && !/^[A-Za-z0-9\-._~]{3,64}$/.test(input.clientId)) {
    problems.push('the client id takes 3 to 64 letters, digits and -._~');
  }
  if (input.name.trim() === '') problems.push('the name must not be empty');
  if (input.grants.length === 0) problems.push('at least one grant is needed');
  if (input.region === 'eu' && input.grants.some((g) => g !== 'client_credentials')) {
    problems.push('the EU token endpoint offers client_credentials only');
  }
  if (input.grants.includes('password') !== input.grants.includes('refresh_token')) {
    problems.push('password and refresh_token go together');
  }
  if (input.tenantId.trim() === '') problems.push('the tenant id must not be empty');
  if (input.role.trim() === '') problems.push('the role must not be empty');
  return problems;
}

export async function registerClientByOperator(
  deps: OperatorRegistrationDeps,
  input: OperatorRegistration,
): Promise<{ client: Client; clientSecret: string }> {
  const problems = operatorRegistrationProblems(input);
  if (problems.length > 0) throw new PortalRefusal('invalid-input', portalMessages.formProblems, problems);
  const clientSecret = newClientSecret(deps.random);
  const client: Client = {
    clientId: input.clientId ?? newClientId(deps.random, input.environment === 'production' ? 'prod' : 'sandbox'),
    secretHash: await deps.hasher.hash(clientSecret),
    secretHint: secretHint(clientSecret),
    name: input.name.trim(),
    region: input.region,
    environment: input.environment,
    grants: [...new Set(input.grants)],
    registration: { tenantId: input.tenantId.trim(), role: input.role.trim() },
    active: true,
    createdAt: deps.clock.now(),
    managedByTenant: null,
  };
  if (!(await deps.store.insertClientIfAbsent(client))) {
    throw new PortalRefusal('invalid-input', portalMessages.formProblems, [
      `a client with the id ${client.clientId} already exists`,
    ]);
  }
  return { client, clientSecret };
}
