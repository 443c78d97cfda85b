// The records a store reads on every protected call (the caller's client or user, the person asked
// for) and every token request (the client, its failed attempts), kept as last read so that a repeat costs a map lookup instead of a query and a row mapping.
// The cache knows nothing of when the store changes: its owner empties it (`clear`) whenever the
// records may have changed — on every write of its own and on every commit of another connection
// it detects (sqlite-store.ts) — so a cached record is always the one a query would return.
// Records are frozen: every caller shares one object, and none may change it behind the store.
// Bounded: past `capacity` entries the cache starts over (the working set of a test target is small).
import type { Client, PersonRecord, User } from '../domain/model.ts';
import type { AttemptPrincipal, FailedAttempts } from '../domain/ports.ts';

export const DEFAULT_ROW_CACHE_CAPACITY = 10_000;

export class RowCache {
  readonly #clients = new Map<string, Client>();
  readonly #users = new Map<string, User>();
  readonly #people = new Map<string, PersonRecord>();
  /** null: the principal has no failed attempts (the common case, kept as such). */
  readonly #failedAttempts = new Map<string, FailedAttempts | null>();
  readonly #capacity: number;

  constructor(capacity = DEFAULT_ROW_CACHE_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#clients.size + this.#users.size + this.#people.size + this.#failedAttempts.size;
  }

  clear(): void {
    this.#clients.clear();
    this.#users.clear();
    this.#people.clear();
    this.#failedAttempts.clear();
  }

  client(clientId: string): Client | undefined {
    return this.#clients.get(clientId);
  }

  /** Keeps `client`, the answer to a lookup of `clientId` (frozen, with its grants and registration), and returns it. */
  keepClient(clientId: string, client: Client): Client {
    Object.freeze(client.grants);
    if (client.registration !== null) Object.freeze(client.registration);
    return this.#keep(this.#clients, clientId, Object.freeze(client));
  }

  user(tenant: string, userName: string): User | undefined {
    return this.#users.get(userKey(tenant, userName));
  }

  keepUser(tenant: string, userName: string, user: User): User {
    return this.#keep(this.#users, userKey(tenant, userName), Object.freeze(user));
  }

  person(identifier: string): PersonRecord | undefined {
    return this.#people.get(identifier);
  }

  keepPerson(identifier: string, person: PersonRecord): PersonRecord {
    return this.#keep(this.#people, identifier, Object.freeze(person));
  }

  /** The principal's failed attempts as last read: null for none, undefined when not kept. */
  failedAttempts(principal: AttemptPrincipal): FailedAttempts | null | undefined {
    return this.#failedAttempts.get(principalKey(principal));
  }

  keepFailedAttempts(principal: AttemptPrincipal, state: FailedAttempts | undefined): FailedAttempts | undefined {
    return (
      this.#keep(this.#failedAttempts, principalKey(principal), state === undefined ? null : Object.freeze(state)) ??
      undefined
    );
  }

  #keep<T>(map: Map<string, T>, key: string, value: T): T {
    if (this.size >= this.#capacity) this.clear();
    map.set(key, value);
    return value;
  }
}

/** An unambiguous key for (kind, name, source), as the store's key: lengths first, so no separator can collide. */
function principalKey(principal: AttemptPrincipal): string {
  const source = principal.source ?? '';
  return `${principal.kind}:${principal.name.length}:${principal.name}${source}`;
}

/** An unambiguous key for (tenant, userName): the tenant's length first, so no separator can collide. */
function userKey(tenant: string, userName: string): string {
  return `${tenant.length}:${tenant}${userName}`;
}
