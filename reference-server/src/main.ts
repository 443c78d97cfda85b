// `npx token-conformance serve`: start the reference server, print one `listening` JSON line on
// stdout when ready (logs go to stderr), and shut down cleanly on SIGTERM/SIGINT: stop accepting,
// finish in-flight requests, close the store, exit 0. A bad option: one line on stderr, exit 2.
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { parseServeArgs, serveUsage, UsageError, type ServeConfig } from './config.ts';
import { sharedCertificate } from './crypto/shared-certificate.ts';
import { generateCertificate, persistentCertificate, type GeneratedCertificate } from './crypto/tls.ts';
import { buildApp } from './http/app.ts';
import { createLogger } from './http/logging.ts';
import { defaultPortalSettings } from './domain/portal/portal-settings.ts';
import { createServices } from './services.ts';
import { PURGE_BATCH, purgeCutoffs } from './store/purge.ts';
import { SeedFileError } from './store/seed.ts';
import { describeStore, isPostgresUrl, openStore } from './store/open-store.ts';
import type { ServerStore } from './store/server-store.ts';

/** How long SIGTERM waits for in-flight requests before it closes the remaining connections. */
const SHUTDOWN_GRACE_MS = 2_000;

const PURGE_INTERVAL_MS = 60_000;

export interface ListeningEvent {
  event: 'listening';
  authUrlUs: string;
  authUrlEu: string;
  baseUrl: string;
  caFile?: string;
  env: ServeConfig['environment'];
  testControls: boolean;
}

/** The address clients use for the listening socket (a wildcard becomes loopback). */
export function originFor(config: Pick<ServeConfig, 'host' | 'http'>, port: number): string {
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host;
  return `${config.http ? 'http' : 'https'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Phases: the options (or the exit code of a bad option or --help), the production guard, the
 * start (store, services, certificate, app, listen; a failure becomes its exit code), the one
 * `listening` line, then the purge timer until a stop signal, and the shutdown.
 */
export async function serveMain(args: string[]): Promise<number> {
  const config = readServeConfig(args);
  if (typeof config === 'number') return config;

  // Production never starts from the bundled demo data: a new production store needs --seed.
  if (config.environment === 'production' && !config.seedExplicit && !(await isSeededStore(config.dataFile))) {
    process.stderr.write(
      'token-conformance serve: --env production refuses the bundled demo seed; pass --seed FILE for a new store\n',
    );
    return 2;
  }

  // Listen for the stop signal before anything starts: a supervisor may send it the moment it reads
  // the listening line (or during the start, which then completes and shuts down at once).
  const stop = listenForStop();
  const logger = createLogger({ level: config.logLevel });
  let store: ServerStore | undefined;
  let certificate: GeneratedCertificate | undefined;
  let app: FastifyInstance | undefined;
  try {
    store = await openStore(config.dataFile, { synchronous: config.synchronous });
    const services = await createServices({
      store,
      environment: config.environment,
      testControls: config.testControls,
      seedFile: config.seedFile,
      ...(config.seedHashCache !== undefined ? { seedHashCache: config.seedHashCache } : {}),
      tokens: {
        clientCredentialsLifetimeSeconds: config.clientCredentialsLifetimeSeconds,
        passwordLifetimeSeconds: config.passwordLifetimeSeconds,
      },
      throttle: config.lockout,
    });
    if (services.seeded) logger.info({ seedFile: config.seedFile }, 'new store seeded');
    // A store file keeps its certificate next to it (trusted once, trusted across restarts).
    // Replicas on PostgreSQL share one, kept in the database (crypto/shared-certificate.ts).
    if (!config.http) {
      certificate =
        config.dataFile === ':memory:'
          ? await generateCertificate(config.host, new Date())
          : isPostgresUrl(config.dataFile)
            ? await sharedCertificate(store, config.host, new Date())
            : await persistentCertificate(config.dataFile, config.host, new Date());
      logger.info({ caFile: certificate.caFile, generated: certificate.generated }, 'TLS certificate ready');
    }
    app = await buildApp({
      services,
      testControls: config.testControls,
      rateLimits: config.rateLimits,
      host: config.host,
      timeouts: config.timeouts,
      maxHeaderSize: config.maxHeaderSize,
      logger,
      ...(certificate && { https: { key: certificate.key, cert: certificate.cert } }),
    });
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    stop.dispose();
    await app?.close();
    await store?.close();
    await certificate?.dispose();
    return startFailureExit(error, config, logger);
  }

  const { port } = app.server.address() as AddressInfo;
  const origin = originFor(config, port);
  const event = listeningEvent(config, origin, certificate);
  process.stdout.write(`${JSON.stringify(event)}\n`);
  logger.info(
    {
      origin,
      env: config.environment,
      testControls: config.testControls,
      data: describeStore(config.dataFile),
      store: store.kind,
    },
    'listening',
  );

  // System time, not the test clock: a clock moved forward by a test must not delete tokens that
  // become valid again when the clock is reset.
  const purge = startPurge(
    store,
    () => Date.now(),
    config.lockout.lockSeconds * 1000,
    defaultPortalSettings.sessionAbsoluteSeconds * 1000,
    logger,
  );
  const signal = await stop.signal;
  logger.info({ signal }, 'shutting down');
  clearInterval(purge);
  // In-flight requests get a grace period; then the connections still open are cut. Once closing,
  // Node stops enforcing the header and request timeouts, so one client that sent half a request
  // would otherwise hold the shutdown until the socket timeout (60 s).
  const cut = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
  await app.close();
  clearTimeout(cut);
  await store.close();
  await certificate?.dispose();
  logger.info('stopped');
  return 0;
}

/** The validated options, or the exit code when they are bad (2, one line on stderr) or ask for --help (0). */
function readServeConfig(args: string[]): ServeConfig | number {
  let config: ServeConfig;
  try {
    config = parseServeArgs(args, process.env, process.cwd());
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`token-conformance serve: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (config.help) {
    process.stdout.write(`${serveUsage()}\n`);
    return 0;
  }
  return config;
}

/** A start that failed: the user's to fix (a bad seed file, a taken port) exits 2 with one line; anything else 1. */
function startFailureExit(error: unknown, config: ServeConfig, logger: ReturnType<typeof createLogger>): number {
  if (error instanceof SeedFileError) {
    process.stderr.write(`token-conformance serve: ${error.message}\n`);
    return 2;
  }
  // A taken port is the user's to fix, not a crash: one line naming the option, exit 2.
  if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    process.stderr.write(
      `token-conformance serve: --port ${config.port}: ${config.host}:${config.port} is already in use; stop what listens there or choose another port (--port 0 picks a free one; see serve --help)\n`,
    );
    return 2;
  }
  process.stderr.write(`token-conformance serve: could not start: ${(error as Error).message}\n`);
  logger.error({ err: error }, 'start failed');
  return 1;
}

/** The one line on stdout that says the server is ready, and where. */
function listeningEvent(
  config: ServeConfig,
  origin: string,
  certificate: GeneratedCertificate | undefined,
): ListeningEvent {
  return {
    event: 'listening',
    authUrlUs: origin,
    authUrlEu: origin,
    baseUrl: origin,
    ...(certificate && { caFile: certificate.caFile }),
    env: config.environment,
    testControls: config.testControls,
  };
}

function listenForStop(): { signal: Promise<NodeJS.Signals>; dispose(): void } {
  let onSignal: (s: NodeJS.Signals) => void = () => undefined;
  const dispose = (): void => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
  const signal = new Promise<NodeJS.Signals>((resolve) => {
    onSignal = (s) => {
      dispose();
      resolve(s);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  return { signal, dispose };
}

async function isSeededStore(dataFile: string): Promise<boolean> {
  if (dataFile === ':memory:' || (!isPostgresUrl(dataFile) && !existsSync(dataFile))) return false;
  const store = await openStore(dataFile);
  try {
    return (await store.getMeta('seeded')) !== undefined;
  } finally {
    await store.close();
  }
}

/**
 * Deletes expired refresh tokens, failed-attempt counts that can no longer lock anyone (no
 * failure and no lock within the lock window) and ended portal sessions, in small batches, yielding between batches, from an
 * unref'd interval: it never keeps the process alive and never holds the database for long.
 */
function startPurge(
  store: ServerStore,
  now: () => number,
  lockoutMs: number,
  sessionLifetimeMs: number,
  logger: ReturnType<typeof createLogger>,
): NodeJS.Timeout {
  const timer = setInterval(() => {
    const at = now();
    const cutoffs = purgeCutoffs(at, lockoutMs);
    purgeInBatches(
      'expired refresh tokens',
      (limit) => store.purgeExpired(cutoffs.refreshTokensExpiredBefore, limit),
      logger,
    );
    purgeInBatches(
      'stale failed-attempt counts',
      (limit) => store.purgeFailedAttempts(cutoffs.failedAttemptsBefore, limit),
      logger,
    );
    // Unused for longer than a session may last at all: over whatever the idle timeout.
    purgeInBatches(
      'ended portal sessions',
      (limit) => store.purgePortalSessions(at - sessionLifetimeMs, limit),
      logger,
    );
  }, PURGE_INTERVAL_MS);
  timer.unref();
  return timer;
}

function purgeInBatches(
  what: string,
  purge: (limit: number) => Promise<number>,
  logger: ReturnType<typeof createLogger>,
): void {
  let total = 0;
  const batch = async (rounds: number): Promise<void> => {
    try {
      const deleted = await purge(PURGE_BATCH);
      total += deleted;
      if (deleted === PURGE_BATCH && rounds > 1) {
        setImmediate(() => void batch(rounds - 1));
      } else if (total > 0) {
        logger.info({ purged: total }, `${what} purged`);
      }
    } catch (error) {
      logger.warn({ err: error }, `purge of ${what} failed`);
    }
  };
  void batch(20);
}
