// The store as one gateway decision reads it: the principal's client and user are looked up once
// and shared by the steps that ask (authorization, step 11; the backend's identity check, step 15).
// Those steps run one after the other within one decision, so one reading serves both as two
// would: a change by another process (or replica) lands before or after the decision either way.
// The lookup's promise is kept, not its value, so that both steps share one store round trip.
// Nothing is kept here beyond the decision; the SQLite store keeps its own exact copy of the
// records it read (store/row-cache.ts), checked for other processes' commits once per decision
// (the pipeline builds this over `store.readsOfOneDecision()` when the store has it).
import type { Client, PersonRecord, User } from '../domain/model.ts';
import type { GatewayStore } from './gateway-deps.ts';

export type DecisionLookups = Pick<GatewayStore, 'findClient' | 'findUser' | 'findPerson'>;

export class LookupsOfOneDecision implements DecisionLookups {
  #clientId: string | undefined;
  #client: Promise<Client | undefined> | undefined;
  #userOf: { tenant: string; userName: string } | undefined;
  #user: Promise<User | undefined> | undefined;

  constructor(private readonly store: DecisionLookups) {}

  findClient(clientId: string): Promise<Client | undefined> {
    if (this.#client === undefined || this.#clientId !== clientId) {
      this.#client = this.store.findClient(clientId);
      this.#clientId = clientId;
    }
    return this.#client;
  }

  findUser(tenant: string, userName: string): Promise<User | undefined> {
    if (this.#user === undefined || this.#userOf?.tenant !== tenant || this.#userOf.userName !== userName) {
      this.#user = this.store.findUser(tenant, userName);
      this.#userOf = { tenant, userName };
    }
    return this.#user;
  }

  findPerson(identifier: string): Promise<PersonRecord | undefined> {
    return this.store.findPerson(identifier);
  }
}
