// Client authentication at the token endpoint (RFC 6749 §2.3): client_secret_post (the spec's form
// fields) and client_secret_basic (RFC 6749 requires it). Credentials in the query string are never
// looked at. Every failure after the syntax checks is the same invalid_client, so that an unknown
// client, a wrong secret, a deactivated client and a client of the other region or environment
// cannot be told apart. A client_id locked after too many consecutive failures (attempt-throttle.ts)
// is refused before its secret is verified.
import type { AttemptThrottle } from './attempt-throttle.ts';
import { isPlausibleClientId } from './credential-syntax.ts';
import { InvalidClient, InvalidRequest, descriptions } from './errors.ts';
import type { Client, Environment, Region } from './model.ts';
import type { SecretHasher, Store } from './ports.ts';

/** What the Authorization header carried, as decoded by the HTTP layer. */
export type PresentedAuthorization =
  | { kind: 'none' }
  | { kind: 'basic'; clientId: string; clientSecret: string }
  /** An Authorization header that is not usable Basic credentials (other scheme, bad base64, no colon). */
  | { kind: 'unusable' };

export type TokenParams = ReadonlyMap<string, string>;

/** A parameter with an empty value counts as absent (RFC 6749 §3.1). */
export function param(params: TokenParams, name: string): string | undefined {
  const value = params.get(name);
  return value === undefined || value === '' ? undefined : value;
}

/** Syntax-level conflicts between the two methods: checked before anything is authenticated. */
export function checkClientAuthSyntax(authorization: PresentedAuthorization, params: TokenParams): void {
  if (authorization.kind !== 'basic') return;
  if (param(params, 'client_secret') !== undefined) {
    throw new InvalidRequest(descriptions.twoClientAuthMethods, 'Basic header and client_secret in the body');
  }
  const bodyId = param(params, 'client_id');
  if (bodyId !== undefined && bodyId !== authorization.clientId) {
    throw new InvalidRequest(descriptions.clientIdMismatch, 'body client_id differs from the Basic client id');
  }
}

export interface ClientAuthDeps {
  store: Store;
  hasher: SecretHasher;
  environment: Environment;
  /** A hash of a random secret: verified against when the client is unknown, to keep timing uniform. */
  dummyHash: () => Promise<string>;
  throttle: AttemptThrottle;
}

export async function authenticateClient(
  deps: ClientAuthDeps,
  region: Region,
  authorization: PresentedAuthorization,
  params: TokenParams,
  now: number,
  /** The caller's network address (attempt-throttle.ts); undefined is one shared source. */
  source?: string,
): Promise<Client> {
  let clientId: string | undefined;
  let clientSecret: string | undefined;
  const viaHeader = authorization.kind !== 'none';
  if (authorization.kind === 'unusable') {
    throw new InvalidClient(descriptions.clientAuthFailed, true, 'unusable Authorization header');
  } else if (authorization.kind === 'basic') {
    clientId = authorization.clientId;
    clientSecret = authorization.clientSecret;
  } else {
    clientId = param(params, 'client_id');
    clientSecret = param(params, 'client_secret');
  }
  if (clientId === undefined || clientSecret === undefined) {
    throw new InvalidClient(
      descriptions.clientAuthRequired,
      viaHeader,
      clientId === undefined ? 'no client_id' : 'no client_secret',
    );
  }
  // Cannot be a client id: refused like an unknown one, at no cost (no lookup, hash or record).
  if (!isPlausibleClientId(clientId))
    throw new InvalidClient(descriptions.clientAuthFailed, viaHeader, 'client_id cannot be a client id');
  const principal = { kind: 'client', name: clientId, ...(source !== undefined && { source }) } as const;
  // The lock and the client are read as of one moment, after one look for other processes' changes.
  const reads = deps.store.readsOfOneDecision?.() ?? deps.store;
  const check = await deps.throttle.assertNotLocked(principal, now, reads);
  const client = await reads.findClient(clientId);
  const matches = await deps.hasher.verify(clientSecret, client?.secretHash ?? (await deps.dummyHash()));
  if (matches && client) await deps.throttle.recordSuccess(principal, check);
  else await deps.throttle.recordFailure(principal, now);
  if (!client) return refuse(viaHeader, 'unknown client');
  if (!matches) return refuse(viaHeader, 'wrong secret');
  if (!client.active) return refuse(viaHeader, 'client deactivated');
  if (client.region !== region) return refuse(viaHeader, `client of region ${client.region} at the ${region} endpoint`);
  if (client.environment !== deps.environment) return refuse(viaHeader, `client of environment ${client.environment}`);
  return client;
}

function refuse(viaHeader: boolean, detail: string): never {
  throw new InvalidClient(descriptions.clientAuthFailed, viaHeader, detail);
}
