// The contract between the reference server's app builder (src/http/app.ts) and the gateway
// plugin (src/gateway/gateway-plugin.ts). The app builder owns the token endpoints, JWKS and the
// clock controls; the gateway owns every other path.
import type { AccessTokenVerifier, Clock, Store } from '../domain/ports.ts';
import type { Environment } from '../domain/model.ts';

export interface RateLimitSettings {
  /** Per-client requests allowed within any one second before 000-2001. */
  spikePerSecond: number;
  /** Per-client requests allowed per quota window before 000-2000. */
  quotaPerWindow: number;
  windowSeconds: number;
}

export interface GatewayDeps {
  store: Store;
  clock: Clock;
  verifier: AccessTokenVerifier;
  environment: Environment;
  /** When true the gateway also registers its fault-switch control routes under /__test/. */
  testControls: boolean;
  rateLimits: RateLimitSettings;
  /** Host names (without port) the gateway answers for; anything else is 000-1001. */
  allowedHosts: string[];
}

// The plugin module exports:
//   registerGateway(app: FastifyInstance, deps: GatewayDeps): Promise<void>
//   gatewayFrameworkError(error: Error, request: FastifyRequest, reply: FastifyReply): void
//     — wired by the app builder into Fastify's `frameworkErrors` option, so that URLs the
//       router cannot parse still get a gateway error body (000-1010) instead of Fastify's.
