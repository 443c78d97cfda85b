// Sandbox self-registration (spec §5.4: "For sandbox, the client registers itself on the portal").
// A tenant administrator registers a client application of the tenant, sees its secret once, can
// rotate the secret and delete the client. A portal registration is also the Data Services
// registration of the sandbox client (tenant = the administrator's, role chosen from the sandbox
// roles), so that its client_credentials tokens work on the APIs at once; production clients are
// registered by the Data Services team (spec §5.3), never here (operator-registration.ts).
// Administrators see and change only clients their tenant registered on the portal; another
// tenant's client, a seeded client and a missing one all read as "no such client".
import type { Client, GrantType, Region, User } from '../model.ts';
import { newClientId, newClientSecret, secretHint } from './client-secrets.ts';
import type { PortalDeps } from './portal-deps.ts';
import { PortalRefusal, portalMessages } from './portal-errors.ts';

export const CLIENT_NAME_MAX_LENGTH = 80;

export interface SandboxClientForm {
  name: string;
  region: string;
  /** Checked boxes: client_credentials, and/or password (which brings refresh_token along). */
  clientCredentials: boolean;
  password: boolean;
  role: string;
}

export interface IssuedCredentials {
  client: Client;
  /** Shown once; only its hash and hint are kept. */
  clientSecret: string;
}

export type SandboxClientDeps = Pick<PortalDeps, 'store' | 'clock' | 'random' | 'hasher' | 'environment' | 'settings'>;

function requireAdmin(deps: Pick<PortalDeps, 'environment'>, admin: User): void {
  if (deps.environment !== 'sandbox') throw new PortalRefusal('production-closed', portalMessages.productionClosed);
  if (!admin.tenantAdmin || !admin.active) throw new PortalRefusal('forbidden', portalMessages.notAdmin);
}

export async function listSandboxClients(deps: SandboxClientDeps, admin: User): Promise<Client[]> {
  requireAdmin(deps, admin);
  return await deps.store.listClientsManagedBy(admin.tenant);
}

/** The form's problems, in the order of its fields; the valid registration when there are none. */
export function validateSandboxClientForm(
  form: SandboxClientForm,
  roles: readonly string[],
): { problems: string[]; name: string; region: Region; grants: GrantType[]; role: string } {
  const problems: string[] = [];
  const name = form.name.trim();
  if (name === '') problems.push('Give the application a name.');
  else if ([...name].length > CLIENT_NAME_MAX_LENGTH)
    problems.push(`The name is longer than ${CLIENT_NAME_MAX_LENGTH} characters.`);
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  else if (/[\u0000-\u001f\u007f]/.test(name)) problems.push('The name contains control characters.');
  const region: Region = form.region === 'eu' ? 'eu' : 'us';
  if (form.region !== 'us' && form.region !== 'eu')
    problems.push('Choose the region: United States or European Union.');
  const grants: GrantType[] = [];
  if (form.clientCredentials) grants.push('client_credentials');
  if (form.password) grants.push('password', 'refresh_token');
  if (grants.length === 0) problems.push('Choose at least one grant.');
  if (form.password && region === 'eu')
    problems.push('The EU token endpoint offers client_credentials only: the password grant is for US clients.');
  if (!roles.includes(form.role)) problems.push('Choose one of the listed roles.');
  return { problems, name, region, grants, role: form.role };
}

export async function registerSandboxClient(
  deps: SandboxClientDeps,
  admin: User,
  form: SandboxClientForm,
): Promise<IssuedCredentials> {
  requireAdmin(deps, admin);
  const valid = validateSandboxClientForm(form, deps.settings.sandboxRoles);
  if (valid.problems.length > 0) throw new PortalRefusal('invalid-input', portalMessages.formProblems, valid.problems);
  if ((await deps.store.listClientsManagedBy(admin.tenant)).length >= deps.settings.maxSandboxClientsPerTenant) {
    throw new PortalRefusal('limit-reached', portalMessages.limitReached);
  }
  const clientSecret = newClientSecret(deps.random);
  const base = {
    secretHash: await deps.hasher.hash(clientSecret),
    secretHint: secretHint(clientSecret),
    name: valid.name,
    region: valid.region,
    environment: 'sandbox' as const,
    grants: valid.grants,
    registration: { tenantId: admin.tenant, role: valid.role },
    active: true,
    createdAt: deps.clock.now(),
    managedByTenant: admin.tenant,
  };
  // 96 random bits make a collision all but impossible; never overwrite another client if one happens.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const client: Client = { ...base, clientId: newClientId(deps.random, 'sandbox') };
    if (await deps.store.insertClientIfAbsent(client)) return { client, clientSecret };
  }
  throw new Error('could not find a free client id');
}

async function ownClient(deps: SandboxClientDeps, admin: User, clientId: string): Promise<Client> {
  requireAdmin(deps, admin);
  const client = await deps.store.findClient(clientId);
  if (!client || client.managedByTenant !== admin.tenant)
    throw new PortalRefusal('not-found', portalMessages.clientNotFound);
  return client;
}

/** A new secret replaces the old one at once (the old one stops working); access tokens already issued live until they expire. */
export async function rotateSandboxClientSecret(
  deps: SandboxClientDeps,
  admin: User,
  clientId: string,
): Promise<IssuedCredentials> {
  const client = await ownClient(deps, admin, clientId);
  const clientSecret = newClientSecret(deps.random);
  const rotated: Client = {
    ...client,
    secretHash: await deps.hasher.hash(clientSecret),
    secretHint: secretHint(clientSecret),
  };
  await deps.store.saveClient(rotated);
  return { client: rotated, clientSecret };
}

export async function findSandboxClient(deps: SandboxClientDeps, admin: User, clientId: string): Promise<Client> {
  return await ownClient(deps, admin, clientId);
}

export async function deleteSandboxClient(deps: SandboxClientDeps, admin: User, clientId: string): Promise<Client> {
  const client = await ownClient(deps, admin, clientId);
  await deps.store.deleteClient(client.clientId);
  return client;
}
