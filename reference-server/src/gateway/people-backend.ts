// The "upstream" behind the gateway: the people service, served from the store's people
// records. It knows nothing of tokens, versions or rate limits; it gets a principal the gateway
// accepted and a syntactically valid request, and answers, or refuses with a 50xx code:
//   5004  a route the gateway exposes that the backend does not implement (history)
//   5002  the principal's user or client is missing or inactive in the store now
//   5001  an identifier that is not well formed (^[A-Za-z0-9][A-Za-z0-9-]{0,63}$)
//   5003  a well-formed identifier with no record
import type { PersonRecord } from '../domain/model.ts';
import type { Clock } from '../domain/ports.ts';
import { bearerChallenge } from './bearer-challenge.ts';
import type { GatewayStore, PeopleSearch } from './gateway-deps.ts';
import { reject } from './gateway-rejection.ts';
import type { GatewayRejection } from './gateway-rejection.ts';
import { PersonNotes } from './person-notes.ts';
import type { Principal } from './principal.ts';
import type { DecisionLookups } from './request-lookups.ts';
import type { ApiRequest } from './request-syntax.ts';

export const identifierFormat = /^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/;

export interface BackendAnswer {
  status: 200 | 201;
  body: unknown;
}

export class PeopleBackend {
  readonly notes: PersonNotes;

  constructor(
    private readonly store: GatewayStore,
    private readonly clock: Clock,
    private readonly peopleSearch: PeopleSearch | undefined,
    notes?: PersonNotes,
  ) {
    this.notes = notes ?? new PersonNotes();
  }

  /** @param lookups  the store as this decision reads it (request-lookups.ts); the backend's store by default. */
  async handle(
    principal: Principal,
    request: ApiRequest,
    lookups: DecisionLookups = this.store,
  ): Promise<BackendAnswer | GatewayRejection> {
    if (request.api === 'person-history') return reject('000-5004', { detail: 'backend has no history route' });
    const identity = await this.checkIdentity(principal, lookups);
    if (identity !== undefined) return identity;
    switch (request.api) {
      case 'get-person': {
        const person = await this.findPerson(request.identifier, lookups);
        return 'code' in person ? person : { status: 200, body: personView(person) };
      }
      case 'search-people': {
        const found = (await this.peopleSearch?.(request.lastName, request.limit)) ?? [];
        const items = found.slice(0, request.limit).map(personView);
        return { status: 200, body: { items, count: items.length } };
      }
      case 'add-note': {
        const person = await this.findPerson(request.identifier, lookups);
        if ('code' in person) return person;
        return { status: 201, body: this.notes.add(person.identifier, request.text, this.clock.now()) };
      }
    }
  }

  private async checkIdentity(principal: Principal, lookups: DecisionLookups): Promise<GatewayRejection | undefined> {
    const client = await lookups.findClient(principal.clientId);
    const user = principal.kind === 'user' ? await lookups.findUser(principal.tenant, principal.userName) : undefined;
    const clientOk = client?.active === true;
    const userOk = principal.kind === 'client' || user?.active === true;
    if (clientOk && userOk) return undefined;
    return reject('000-5002', {
      headers: {
        'www-authenticate': bearerChallenge('invalid_token', "The token's user or client is no longer active"),
      },
      detail: `backend refused the ${clientOk ? 'user' : 'client'}`,
    });
  }

  private async findPerson(identifier: string, lookups: DecisionLookups): Promise<PersonRecord | GatewayRejection> {
    if (!identifierFormat.test(identifier)) return reject('000-5001', { detail: 'identifier not well formed' });
    const person = await lookups.findPerson(identifier);
    return person ?? reject('000-5003', { detail: 'no such person' });
  }
}

/** The view of each frozen record (a store's shared copy, store/row-cache.ts), built once. */
const viewsOfFrozenRecords = new WeakMap<PersonRecord, PersonRecord>();

function personView(person: PersonRecord): PersonRecord {
  const kept = viewsOfFrozenRecords.get(person);
  if (kept !== undefined) return kept;
  const { identifier, tenantId, givenName, familyName, email, employmentStatus, hireDate } = person;
  const view = { identifier, tenantId, givenName, familyName, email, employmentStatus, hireDate };
  if (!Object.isFrozen(person)) return view;
  viewsOfFrozenRecords.set(person, Object.freeze(view));
  return view;
}
