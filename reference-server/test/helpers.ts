// Shared test setup: an in-memory store seeded from the bundled seed file with a cheap scrypt, a
// clock that moves only when told, and the app built around them (no socket: inject()).
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Logger } from 'pino';
import { ManualClock } from '../src/clock/test-clock.ts';
import { BUNDLED_SEED, type HttpTimeouts } from '../src/config.ts';
import type { AttemptThrottleSettings } from '../src/domain/attempt-throttle.ts';
import type { PresentedAuthorization } from '../src/domain/client-auth.ts';
import { OAuthError } from '../src/domain/errors.ts';
import type { TokenResponseBody } from '../src/domain/issue.ts';
import { testScryptCost } from '../src/crypto/scrypt-hasher.ts';
import type { TokenSettings } from '../src/domain/settings.ts';
import { buildApp } from '../src/http/app.ts';
import { EU_TOKEN_PATH, US_TOKEN_PATH } from '../src/http/token-routes.ts';
import { createServices, type Services } from '../src/services.ts';
import { SqliteStore } from '../src/store/sqlite-store.ts';
import type { ServerStore } from '../src/store/server-store.ts';

export const T0 = Date.UTC(2026, 0, 15, 9, 0, 0);
export const HOUR = 3600;
export const DAY = 86_400;

/** Seed credentials, read from the bundled seed (demo-credentials.ts). */
export { seed } from './demo-credentials.ts';

export interface TestServices extends Services {
  manual: ManualClock;
}

/** Services over a :memory: store; the clock is a ManualClock at T0 (a TestClock over it with testControls). */
export async function testServices(
  options: {
    testControls?: boolean;
    tokens?: Partial<TokenSettings>;
    throttle?: Partial<AttemptThrottleSettings>;
    environment?: 'sandbox' | 'production';
    store?: ServerStore;
  } = {},
): Promise<TestServices> {
  const manual = new ManualClock(T0);
  const services = await createServices({
    store: options.store ?? new SqliteStore(':memory:'),
    environment: options.environment ?? 'sandbox',
    testControls: options.testControls ?? false,
    scryptCost: testScryptCost,
    seedFile: BUNDLED_SEED,
    baseClock: manual,
    ...(options.tokens && { tokens: options.tokens }),
    ...(options.throttle && { throttle: options.throttle }),
  });
  return { ...services, manual };
}

export interface TestApp {
  app: FastifyInstance;
  services: TestServices;
  token(
    body: Record<string, string> | string,
    options?: { eu?: boolean; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function testApp(
  options: {
    testControls?: boolean;
    logger?: Logger;
    tokens?: Partial<TokenSettings>;
    throttle?: Partial<AttemptThrottleSettings>;
    https?: { key: string; cert: string };
    environment?: 'sandbox' | 'production';
    timeouts?: HttpTimeouts;
  } = {},
): Promise<TestApp> {
  const services = await testServices(options);
  const app = await buildApp({
    ...(options.https && { https: options.https }),
    ...(options.timeouts && { timeouts: options.timeouts }),
    services,
    testControls: options.testControls ?? false,
    rateLimits: { spikePerSecond: 10_000, quotaPerWindow: 1_000_000, windowSeconds: 60 },
    host: '127.0.0.1',
    logger: options.logger ?? false,
  });
  return {
    app,
    services,
    token: (body, opts = {}) =>
      app.inject({
        method: 'POST',
        url: opts.eu ? EU_TOKEN_PATH : US_TOKEN_PATH,
        headers: { host: '127.0.0.1', 'content-type': 'application/x-www-form-urlencoded', ...opts.headers },
        payload: typeof body === 'string' ? body : new URLSearchParams(body).toString(),
      }),
    close: async () => {
      await app.close();
      await services.store.close();
    },
  };
}

export const cc = (
  client: { id: string; secret: string },
  extra: Record<string, string> = {},
): Record<string, string> => ({
  grant_type: 'client_credentials',
  client_id: client.id,
  client_secret: client.secret,
  ...extra,
});

export const pw = (
  client: { id: string; secret: string },
  user: { username: string; password: string },
  extra: Record<string, string> = {},
): Record<string, string> => ({
  grant_type: 'password',
  client_id: client.id,
  client_secret: client.secret,
  username: user.username,
  password: user.password,
  ...extra,
});

export const rt = (
  client: { id: string; secret: string },
  refreshToken: string,
  extra: Record<string, string> = {},
): Record<string, string> => ({
  grant_type: 'refresh_token',
  client_id: client.id,
  client_secret: client.secret,
  refresh_token: refreshToken,
  ...extra,
});

/** RFC 6749 §2.3.1: form-urlencode each half, then base64. */
export function basic(id: string, secret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${enc(id)}:${enc(secret)}`).toString('base64')}`;
}

export function json(response: LightMyRequestResponse): Record<string, unknown> {
  return JSON.parse(response.body) as Record<string, unknown>;
}

export type Attempt = { ok: true; body: TokenResponseBody } | { ok: false; error: OAuthError };

/** Calls the domain's token service directly (no HTTP). */
export async function attempt(
  services: Services,
  params: Record<string, string>,
  options: { region?: 'us' | 'eu'; authorization?: PresentedAuthorization; source?: string } = {},
): Promise<Attempt> {
  try {
    const result = await services.tokenService.handle({
      region: options.region ?? 'us',
      params: new Map(Object.entries(params)),
      authorization: options.authorization ?? { kind: 'none' },
      ...(options.source !== undefined && { source: options.source }),
    });
    return { ok: true, body: result.body };
  } catch (error) {
    if (error instanceof OAuthError) return { ok: false, error };
    throw error;
  }
}

/** The token body of a successful attempt; fails the test otherwise. */
export function issued(a: Attempt): TokenResponseBody {
  if (!a.ok) throw new Error(`setup: expected a token, got ${a.error.error} (${a.error.detail ?? ''})`);
  return a.body;
}

/** The error code of a failed attempt, or 'issued'. */
export const outcome = (a: Attempt): string => (a.ok ? 'issued' : a.error.error);
