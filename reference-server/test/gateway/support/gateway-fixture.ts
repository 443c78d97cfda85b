// A bare Fastify app with only the gateway, wired the way the app builder must wire it
// (frameworkErrors, clientErrorHandler, requireHostHeader: false), over in-memory fakes.
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps, RateLimitSettings } from '../../../src/gateway/gateway-deps.ts';
import { gatewayClientError, gatewayFrameworkError, registerGateway } from '../../../src/gateway/gateway-plugin.ts';
import type { RegisteredGateway } from '../../../src/gateway/gateway-plugin.ts';
import { createLogger } from '../../../src/http/logging.ts';
import { FakeClock } from './fake-clock.ts';
import { seededStore } from './in-memory-store.ts';
import type { InMemoryGatewayStore } from './in-memory-store.ts';
import { createTestTokens } from './test-tokens.ts';
import type { TestTokens } from './test-tokens.ts';

export interface GatewayFixture {
  app: FastifyInstance;
  clock: FakeClock;
  store: InMemoryGatewayStore;
  tokens: TestTokens;
  gateway: RegisteredGateway;
  /** Every log line the app wrote. */
  logs: string[];
  /** Starts a real server on 127.0.0.1:0 and returns its port. */
  listen(): Promise<number>;
  close(): Promise<void>;
}

export const generousLimits: RateLimitSettings = {
  spikePerSecond: 10_000,
  quotaPerWindow: 1_000_000,
  windowSeconds: 3600,
};

export async function createGatewayFixture(
  overrides: Partial<Omit<GatewayDeps, 'store' | 'clock' | 'verifier'>> = {},
): Promise<GatewayFixture> {
  const clock = new FakeClock();
  const store = seededStore();
  const environment = overrides.environment ?? 'sandbox';
  const tokens = await createTestTokens(clock, environment);
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(chunk.toString('utf8'));
      callback();
    },
  });
  const app = Fastify({
    // The server's own logger (src/http/logging.ts): its serializers and redaction, into `logs`.
    loggerInstance: createLogger({ level: 'info', destination: stream }),
    frameworkErrors: gatewayFrameworkError,
    clientErrorHandler: gatewayClientError,
    http: { requireHostHeader: false },
  }) as unknown as FastifyInstance; // a pino Logger instance: typed as the base logger, as in src/http/app.ts
  const gateway = await registerGateway(app, {
    store,
    clock,
    verifier: tokens.verifier,
    environment,
    testControls: overrides.testControls ?? true,
    rateLimits: overrides.rateLimits ?? generousLimits,
    allowedHosts: overrides.allowedHosts ?? ['localhost', '127.0.0.1', 'api.example.test', '[::1]'],
    peopleSearch: store.searchPeople,
  });
  await app.ready();
  return {
    app,
    clock,
    store,
    tokens,
    gateway,
    logs,
    async listen() {
      await app.listen({ host: '127.0.0.1', port: 0 });
      return (app.server.address() as AddressInfo).port;
    },
    close: () => app.close(),
  };
}
