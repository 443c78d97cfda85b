// buildApp(): the whole reference server as a Fastify instance, without listening, so that tests
// use inject(). The token side (token endpoints, JWKS, clock control) is registered first, each in
// its own encapsulated plugin; the gateway then owns every other path.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Logger } from 'pino';
import type { RateLimitSettings } from '../gateway/gateway-deps.ts';
import { gatewayClientError, gatewayFrameworkError, registerGateway } from '../gateway/gateway-plugin.ts';
import type { Services } from '../services.ts';
import { testClockRoutes } from './test-clock-routes.ts';
import { tokenRoutes } from './token-routes.ts';
import { wellKnownRoutes } from './well-known-routes.ts';

export interface AppDeps {
  services: Services;
  /** With --test-controls: the clock control routes (and the gateway's fault switches). */
  testControls: boolean;
  rateLimits: RateLimitSettings;
  /** The --host value; localhost, 127.0.0.1 and ::1 are always allowed too. */
  host: string;
  bodyLimit?: number;
  logger: Logger | false;
  /** PEM key and certificate for HTTPS; plain HTTP without. */
  https?: { key: string; cert: string };
}

export const DEFAULT_BODY_LIMIT = 64 * 1024;

export function allowedHosts(host: string): string[] {
  return [...new Set([host, 'localhost', '127.0.0.1', '::1'])];
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { services } = deps;
  const bodyLimit = deps.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const options: FastifyServerOptions & { https?: { key: string; cert: string } } = {
    bodyLimit,
    connectionTimeout: 60_000,
    keepAliveTimeout: 5_000,
    requestTimeout: 30_000,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // A message Node's HTTP parser rejects: 400 (000-1000) with Connection: close.
    clientErrorHandler: gatewayClientError,
    frameworkErrors: gatewayFrameworkError,
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: false }),
    ...(deps.https && { https: deps.https }),
  };
  const app = Fastify(options) as unknown as FastifyInstance;

  await app.register(tokenRoutes, { tokenService: services.tokenService, bodyLimit });
  await app.register(wellKnownRoutes, { signingKey: services.signingKey });
  if (deps.testControls && services.testClock) await app.register(testClockRoutes, { clock: services.testClock });

  await registerGateway(app, {
    store: services.store,
    clock: services.clock,
    verifier: services.verifier,
    environment: services.environment,
    testControls: deps.testControls,
    rateLimits: deps.rateLimits,
    allowedHosts: allowedHosts(deps.host),
    peopleSearch: (familyName, limit) => services.store.searchPeople(familyName, limit),
  });
  return app;
}
