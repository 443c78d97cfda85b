// The contract between the reference server's app builder (src/http/app.ts) and the gateway
// plugin (src/gateway/gateway-plugin.ts). The app builder owns the token endpoints, JWKS and the
// clock controls; the gateway owns every other path.
import type { AccessTokenVerifier, Clock, Store } from '../domain/ports.ts';
import type { Environment, PersonRecord } from '../domain/model.ts';

export interface RateLimitSettings {
  /** Per-client requests allowed within any one second before 000-2001. */
  spikePerSecond: number;
  /** Per-client requests allowed per quota window before 000-2000. */
  quotaPerWindow: number;
  windowSeconds: number;
}

/**
 * The part of the Store the gateway reads and writes (a full Store satisfies it). `isFamilyRevoked`
 * refuses access tokens of a revoked refresh-token family (000-1202).
 */
export type GatewayStore = Pick<
  Store,
  'findClient' | 'saveClient' | 'findUser' | 'saveUser' | 'findPerson' | 'isFamilyRevoked'
> & {
  /** Optional: the client, user and person reads of one decision, checked for changes once (store/sqlite-store.ts). */
  readsOfOneDecision?(): Pick<Store, 'findClient' | 'findUser' | 'findPerson'>;
};

/** Finds people by family name, case-insensitively, at most `limit` of them, in a stable order. */
export type PeopleSearch = (familyName: string, limit: number) => Promise<PersonRecord[]>;

export interface GatewayDeps {
  store: GatewayStore;
  clock: Clock;
  verifier: AccessTokenVerifier;
  environment: Environment;
  /** When true the gateway also registers its fault-switch control routes under /__test/. */
  testControls: boolean;
  rateLimits: RateLimitSettings;
  /** Host names (without port) the gateway answers for; anything else is 000-1001. */
  allowedHosts: string[];
  /**
   * Backs `GET /v1/people/search`. The Store port has no listing of people, so the app builder
   * passes one; without it the search answers an empty list.
   */
  peopleSearch?: PeopleSearch;
  /**
   * With test controls on a store several replicas share: the fault switch's setting lives there,
   * is written by the control route and read before every gateway request (every replica follows).
   */
  sharedFault?: { read(): Promise<string | null>; set(name: string | null): Promise<void> };
}

// The plugin module exports:
//   registerGateway(app: FastifyInstance, deps: GatewayDeps): Promise<void>
//   gatewayFrameworkError(error: Error, request: FastifyRequest, reply: FastifyReply): void
//     — wired by the app builder into Fastify's `frameworkErrors` option, so that URLs the
//       router cannot parse still get a gateway error body (000-1010) instead of Fastify's.
//   gatewayClientError(error: Error, socket: Duplex): void
//     — wired into Fastify's `clientErrorHandler` option, so that messages Node's HTTP parser
//       cannot frame get 000-1000 (or 000-1010 for a request-target with illegal bytes).
