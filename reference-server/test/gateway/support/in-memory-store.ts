// The part of the Store the gateway uses, in memory, with the seed data the gateway tests share.
// The port is asynchronous; the maps answer at once.
/* eslint-disable @typescript-eslint/require-await */
import type { Client, PersonRecord, User } from '../../../src/domain/model.ts';
import type { GatewayStore } from '../../../src/gateway/gateway-deps.ts';

export class InMemoryGatewayStore implements GatewayStore {
  readonly clients = new Map<string, Client>();
  readonly users = new Map<string, User>();
  readonly people = new Map<string, PersonRecord>();
  readonly revokedFamilies = new Set<string>();

  async findClient(clientId: string): Promise<Client | undefined> {
    return this.clients.get(clientId);
  }
  async saveClient(client: Client): Promise<void> {
    this.clients.set(client.clientId, client);
  }
  async findUser(tenant: string, userName: string): Promise<User | undefined> {
    return this.users.get(`${tenant}\\${userName}`);
  }
  async saveUser(user: User): Promise<void> {
    this.users.set(`${user.tenant}\\${user.userName}`, user);
  }
  async isFamilyRevoked(familyId: string): Promise<boolean> {
    return this.revokedFamilies.has(familyId);
  }
  async findPerson(identifier: string): Promise<PersonRecord | undefined> {
    return this.people.get(identifier);
  }
  async savePerson(person: PersonRecord): Promise<void> {
    this.people.set(person.identifier, person);
  }
  /** What the app builder passes as `peopleSearch`. */
  searchPeople = async (familyName: string, limit: number): Promise<PersonRecord[]> =>
    [...this.people.values()]
      .filter((p) => p.familyName.toLowerCase() === familyName.toLowerCase())
      .sort((a, b) => a.identifier.localeCompare(b.identifier))
      .slice(0, limit);
}

const client = (clientId: string, registration: Client['registration'], region: Client['region'] = 'us'): Client => ({
  clientId,
  secretHash: 'not-used-by-the-gateway',
  name: clientId,
  region,
  environment: 'sandbox',
  grants: ['client_credentials', 'password', 'refresh_token'],
  registration,
  active: true,
  createdAt: 0,
  managedByTenant: null,
  secretHint: null,
});

const user = (userName: string, role: string): User => ({
  tenant: 'acme',
  userName,
  passwordHash: 'not-used-by-the-gateway',
  passwordChangedAt: 0,
  role,
  active: true,
  tenantAdmin: false,
});

const keyed = (c: Client): [string, Client] => [c.clientId, c];
const userKeyed = (u: User): [string, User] => [`${u.tenant}\\${u.userName}`, u];
const personKeyed = (p: PersonRecord): [string, PersonRecord] => [p.identifier, p];

export function seededStore(): InMemoryGatewayStore {
  const store = new InMemoryGatewayStore();
  store.clients.set(...keyed(client('reader-cc', { tenantId: 'acme', role: 'people-reader' })));
  store.clients.set(...keyed(client('writer-cc', { tenantId: 'acme', role: 'people-writer' })));
  store.clients.set(...keyed(client('eu-reader-cc', { tenantId: 'acme', role: 'people-reader' }, 'eu')));
  store.clients.set(...keyed(client('reporting-cc', { tenantId: 'acme', role: 'reporting' })));
  store.clients.set(...keyed(client('unregistered-cc', null)));
  store.clients.set(...keyed(client('app-pw', null)));
  store.users.set(...userKeyed(user('alice', 'people-reader')));
  store.users.set(...userKeyed(user('walter', 'people-writer')));
  store.users.set(...userKeyed(user('rita', 'reporting')));
  store.people.set(
    ...personKeyed({
      identifier: 'E1001',
      tenantId: 'acme',
      givenName: 'Ada',
      familyName: 'Lovelace',
      email: 'ada@acme.test',
      employmentStatus: 'active',
      hireDate: '2020-01-01',
    }),
  );
  store.people.set(
    ...personKeyed({
      identifier: 'E1002',
      tenantId: 'acme',
      givenName: 'Byron',
      familyName: 'Lovelace',
      email: 'byron@acme.test',
      employmentStatus: 'leave',
      hireDate: '2021-02-01',
    }),
  );
  store.people.set(
    ...personKeyed({
      identifier: 'E1003',
      tenantId: 'acme',
      givenName: 'Grace',
      familyName: 'Hopper',
      email: 'grace@acme.test',
      employmentStatus: 'active',
      hireDate: '2019-03-01',
    }),
  );
  return store;
}
