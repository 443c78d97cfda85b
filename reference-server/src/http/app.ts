// buildApp(): the whole reference server as a Fastify instance, without listening, so that tests
// use inject(). The token side (token endpoints, JWKS, clock control) is registered first, each in
// its own encapsulated plugin, then the portal (/portal/…); the gateway then owns every other path.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Logger } from 'pino';
import { serveDefaults, type HttpTimeouts } from '../config.ts';
import type { RateLimitSettings } from '../gateway/gateway-deps.ts';
import {
  gatewayClientError,
  gatewayClientErrorWith,
  gatewayFrameworkError,
  registerGateway,
} from '../gateway/gateway-plugin.ts';
import { portalRoutes } from '../portal/portal-routes.ts';
import { handleEdgeEvents } from './edge-events.ts';
import type { Services } from '../services.ts';
import { healthRoutes } from './health-routes.ts';
import { testClockRoutes } from './test-clock-routes.ts';
import { testPurgeRoutes } from './test-purge-routes.ts';
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
  /** Slow clients (default DEFAULT_TIMEOUTS): see httpServerOptions. */
  timeouts?: HttpTimeouts;
  /** Request line + headers, bytes (default 16 KiB, Node's). */
  maxHeaderSize?: number;
  logger: Logger | false;
  /** PEM key and certificate for HTTPS; plain HTTP without. */
  https?: { key: string; cert: string };
}

export const DEFAULT_BODY_LIMIT = 64 * 1024;
/** The serve options' defaults (config.ts), for an app built without them (tests). */
export const DEFAULT_TIMEOUTS: HttpTimeouts = {
  headersMs: serveDefaults['headers-timeout'] * 1000,
  requestMs: serveDefaults['request-timeout'] * 1000,
};
export const DEFAULT_MAX_HEADER_SIZE: number = serveDefaults['max-header-size'];

/**
 * Node's server options against slow and oversized messages. A request whose header block has not
 * all arrived within `headersMs`, or which is not complete within `requestMs`, and a header block
 * over `maxHeaderSize`, reach the clientErrorHandler: 400 `000-1000` in the gateway's JSON format,
 * then the connection is closed. Node only looks for expired requests every
 * `connectionsCheckingInterval` (30 s by default), which would stretch a 10 s timeout to 40 s: the
 * interval follows the timeouts (a quarter of the shorter one, 50 ms to 1 s).
 */
export function httpServerOptions(
  timeouts: HttpTimeouts,
  maxHeaderSize: number,
): {
  headersTimeout: number;
  requestTimeout: number;
  connectionsCheckingInterval: number;
  maxHeaderSize: number;
  handshakeTimeout: number;
} {
  const shorter = Math.min(timeouts.headersMs, timeouts.requestMs);
  return {
    // TLS only (the plain HTTP server ignores it): a connection that has not finished its
    // handshake within the header timeout is closed, instead of after Node's 120 s.
    handshakeTimeout: timeouts.headersMs,
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(shorter / 4))),
    maxHeaderSize,
  };
}

/** RFC 6797 (SEC-TLS-005): one year; no includeSubDomains (the server is one host, often an IP or localhost). */
export const HSTS_VALUE = 'max-age=31536000';

export function allowedHosts(host: string): string[] {
  return [...new Set([host, 'localhost', '127.0.0.1', '::1'])];
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { services } = deps;
  const bodyLimit = deps.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const timeouts = deps.timeouts ?? DEFAULT_TIMEOUTS;
  const serverOptions = httpServerOptions(timeouts, deps.maxHeaderSize ?? DEFAULT_MAX_HEADER_SIZE);
  type NodeServerOptions = ReturnType<typeof httpServerOptions> & { requireHostHeader: boolean };
  const options: FastifyServerOptions & {
    https?: NodeServerOptions & { key: string; cert: string };
    http?: NodeServerOptions;
  } = {
    bodyLimit,
    // Idle sockets (no byte in either direction): never shorter than a whole request may take.
    connectionTimeout: Math.max(60_000, timeouts.requestMs),
    // Long enough that a client rarely holds a socket near its end: an idle socket's close races a
    // client's reuse of it (the client keeps it 2 s less than the advertised timeout, but a starved
    // client's timer fires late, and a short timeout shows as "other side closed" under load). Below
    // connectionTimeout.
    keepAliveTimeout: 30_000,
    requestTimeout: timeouts.requestMs,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // A message Node's HTTP parser rejects: 400 (000-1000) with Connection: close, written to the
    // socket directly (so with HSTS added here over HTTPS).
    clientErrorHandler: deps.https
      ? gatewayClientErrorWith({ 'Strict-Transport-Security': HSTS_VALUE })
      : gatewayClientError,
    // Router-level refusals skip the onSend hooks: they get HSTS here.
    frameworkErrors: deps.https
      ? (error, request, reply) => {
          reply.header('strict-transport-security', HSTS_VALUE);
          gatewayFrameworkError(error, request, reply);
        }
      : gatewayFrameworkError,
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: false }),
    // Node answers a request without Host with its own bare 400 unless told not to; the gateway
    // answers it with 000-1001 instead.
    ...(deps.https
      ? { https: { ...deps.https, ...serverOptions, requireHostHeader: false } }
      : { http: { ...serverOptions, requireHostHeader: false } }),
  };
  const app = Fastify(options) as unknown as FastifyInstance;
  // HSTS on every HTTPS answer (token endpoints, JWKS, clock control, the gateway's answers and
  // refusals, not-found): one root hook, added before any plugin so that every one inherits it
  // (plus the two answers Fastify sends without hooks: frameworkErrors and clientErrorHandler).
  // Never over plain HTTP (RFC 6797 §7.2: a host must not send it over non-secure transport).
  if (deps.https) {
    app.addHook('onSend', async (_request, reply) => {
      reply.header('strict-transport-security', HSTS_VALUE);
    });
  }
  // With test controls the clock can be moved: the Date header shows the server's clock, as a real
  // server's would, so that a suite without clock control (which records obligations) sees moved time.
  // A synchronous hook (no promise per answer) and one formatted string per clock second, as Node
  // does for its own Date header.
  if (deps.testControls && services.testClock) {
    const clock = services.testClock;
    let second = Number.NaN;
    let date = '';
    app.addHook('onSend', (_request, reply, payload, done) => {
      const now = Math.floor(clock.now() / 1000);
      if (now !== second) {
        second = now;
        date = new Date(now * 1000).toUTCString();
      }
      reply.header('date', date);
      done(null, payload);
    });
  }
  // Expect, CONNECT and the rest of a refused body (edge-events.ts): before any plugin, so that
  // every route inherits the bounded read after the answer.
  handleEdgeEvents(app, { bodyLimit, extraHeaders: deps.https ? { 'Strict-Transport-Security': HSTS_VALUE } : {} });

  // Replicas on a shared store: every request first reads the shared test clock (test-clock.ts).
  const { testClock } = services;
  if (deps.testControls && testClock?.isShared === true) app.addHook('onRequest', () => testClock.refresh());
  await app.register(healthRoutes, { ping: () => services.store.ping() });
  await app.register(tokenRoutes, { tokenService: services.tokenService, bodyLimit });
  await app.register(wellKnownRoutes, { signingKey: services.signingKey });
  if (deps.testControls && services.testClock) {
    await app.register(testClockRoutes, { clock: services.testClock });
    await app.register(testPurgeRoutes, {
      store: services.store,
      clock: services.clock,
      lockoutSeconds: services.throttle.settings.lockSeconds,
    });
  }
  // The portal (/portal/…): over HTTPS only, since its cookies are Secure.
  await app.register(portalRoutes, { portal: services.portal, secure: deps.https !== undefined });

  await registerGateway(app, {
    store: services.store,
    clock: services.clock,
    verifier: services.verifier,
    environment: services.environment,
    testControls: deps.testControls,
    rateLimits: deps.rateLimits,
    allowedHosts: allowedHosts(deps.host),
    peopleSearch: (familyName, limit) => services.store.searchPeople(familyName, limit),
    ...(services.store.sharedFault && { sharedFault: services.store.sharedFault }),
  });
  return app;
}
