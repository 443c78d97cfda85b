// The part of the Store the gateway uses, in memory, with the seed data the gateway tests share.
import type { Client, PersonRecord, User } from '../../../src/domain/model.ts';
import type { GatewayStore } from '../../../src/gateway/gateway-deps.ts';

export class InMemoryGatewayStore implements GatewayStore {
  readonly clients = new Map<string, Client>();
  readonly users = new Map<string, User>();
  readonly people = new Map<string, PersonRecord>();
  readonly revokedFamilies = new Set<string>();

  findClient(clientId: string): Client | undefined {
    return this.clients.get(clientId);
  }
  saveClient(client: Client): void {
    this.clients.set(client.clientId, client);
  }
  findUser(tenant: string, userName: string): User | undefined {
    return this.users.get(`${tenant}\\${userName}`);
  }
  saveUser(user: User): void {
    this.users.set(`${user.tenant}\\${user.userName}`, user);
  }
  isFamilyRevoked(familyId: string): boolean {
    return this.revokedFamilies.has(familyId);
  }
  findPerson(identifier: string): PersonRecord | undefined {
    return this.people.get(identifier);
  }
  savePerson(person: PersonRecord): void {
    this.people.set(person.identifier, person);
  }
  /** What the app builder passes as `peopleSearch`. */
  searchPeople = (familyName: string, limit: number): PersonRecord[] =>
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

export function seededStore(): InMemoryGatewayStore {
  const store = new InMemoryGatewayStore();
  store.saveClient(client('reader-cc', { tenantId: 'acme', role: 'people-reader' }));
  store.saveClient(client('writer-cc', { tenantId: 'acme', role: 'people-writer' }));
  store.saveClient(client('eu-reader-cc', { tenantId: 'acme', role: 'people-reader' }, 'eu'));
  store.saveClient(client('reporting-cc', { tenantId: 'acme', role: 'reporting' }));
  store.saveClient(client('unregistered-cc', null));
  store.saveClient(client('app-pw', null));
  store.saveUser(user('alice', 'people-reader'));
  store.saveUser(user('walter', 'people-writer'));
  store.saveUser(user('rita', 'reporting'));
  store.savePerson({ identifier: 'E1001', tenantId: 'acme', givenName: 'Ada', familyName: 'Lovelace', email: 'ada@acme.test', employmentStatus: 'active', hireDate: '2020-01-01' });
  store.savePerson({ identifier: 'E1002', tenantId: 'acme', givenName: 'Byron', familyName: 'Lovelace', email: 'byron@acme.test', employmentStatus: 'leave', hireDate: '2021-02-01' });
  store.savePerson({ identifier: 'E1003', tenantId: 'acme', givenName: 'Grace', familyName: 'Hopper', email: 'grace@acme.test', employmentStatus: 'active', hireDate: '2019-03-01' });
  return store;
}
