// Starts the bundled reference server as a child process, exactly as any target would run: no
// import of its code. Reads its one `listening` JSON line from stdout; its logs (stderr) go to a
// file outside reports/. stop() sends SIGTERM and waits.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, fetch as undiciFetch } from 'undici';
import { repoRoot } from '../../core/catalogue/catalogue.ts';
import type { TargetProfile } from '../../core/profile/profile.schema.ts';
import { withReferenceServerEnv } from './server-env.ts';

export interface ListeningLine {
  event: 'listening';
  authUrlUs: string;
  authUrlEu: string;
  baseUrl: string;
  caFile?: string;
  env?: string;
  testControls?: boolean | Record<string, unknown>;
}

export interface ReferenceServer {
  listening: ListeningLine;
  logFile: string;
  stop(): Promise<void>;
  /**
   * Stops the server (SIGTERM, as a deployment stops a process) and starts it again on the same
   * store, port and certificate; resolves once it listens again. Only a server started with a
   * `dataFile` has it (a `:memory:` store does not outlive its process).
   */
  restart?(): Promise<void>;
}

export class ReferenceStartError extends Error {}

/** The reference server's test-control paths (reference-server/src/http/test-clock-routes.ts, gateway/test-controls.ts). */
export const referenceControlPaths = { clock: '/__test/clock', faults: '/__test/faults' } as const;

export interface StartReferenceOptions {
  logDir: string;
  extraArgs?: string[];
  /** The safety net of the start (default referenceStartSafetyNetMs); the start is awaited on its events. */
  timeoutMs?: number;
  /** Default sandbox with --test-controls; production gets `--seed` and no test controls (it refuses them). */
  environment?: 'sandbox' | 'production';
  /** The seed file (required for production). */
  seed?: string;
  /**
   * `--seed-hash-cache FILE`: servers started with the same file hash the seed's secrets once
   * between them (the self-validation starts dozens); the file is the caller's to remove.
   */
  seedHashCache?: string;
  /** The store (`serve --data`): a file keeps everything across a restart (`restart()`); default `:memory:`. */
  dataFile?: string;
  /**
   * A copy of the server's log that outlives the run (the one in logDir is removed with the run's
   * temporary directory), e.g. for a test that searches it for secrets (`run --reference-log`).
   */
  logTee?: string;
}

/** The `serve` arguments of a started reference server. */
export function serveArgs(
  options: Pick<StartReferenceOptions, 'extraArgs' | 'environment' | 'seed' | 'seedHashCache' | 'dataFile'>,
  port = 0,
): string[] {
  const production = options.environment === 'production';
  return [
    'serve',
    '--port',
    String(port),
    '--data',
    options.dataFile ?? ':memory:',
    ...(production ? ['--env', 'production'] : ['--test-controls']),
    ...(options.seed !== undefined ? ['--seed', options.seed] : []),
    ...(options.seedHashCache !== undefined ? ['--seed-hash-cache', options.seedHashCache] : []),
    ...(options.extraArgs ?? []),
  ];
}

interface ServerProcess {
  child: ChildProcess;
  listening: ListeningLine;
  exited: Promise<number | null>;
}

/**
 * How long a start may take before it is given up: a safety net against a start that never ends,
 * not an estimate of a start. The start itself is awaited on its events (the `listening` line, the
 * exit, a spawn error); on a busy machine several servers compiling and hashing their seed at once
 * take many times their unloaded start, and a deadline near that figure fails healthy starts.
 */
export const referenceStartSafetyNetMs = 180_000;

/** The last lines a starting server printed (stdout lines that are not its JSON events, then stderr), for an error. */
class StartOutput {
  private stdout = '';
  private stderr = '';

  addStdout(line: string): void {
    this.stdout = `${this.stdout}${line}\n`.slice(-2000);
  }

  addStderr(chunk: string): void {
    this.stderr = (this.stderr + chunk).slice(-2000);
  }

  /** The last lines of each stream, or what it printed nothing on. */
  describe(): string {
    const last = (text: string) => text.trim().split('\n').slice(-10).join('\n');
    const parts = [
      this.stdout.trim() ? `stdout:\n${last(this.stdout)}` : 'nothing else on stdout',
      this.stderr.trim() ? `stderr:\n${last(this.stderr)}` : 'nothing on stderr',
    ];
    return parts.join('\n');
  }
}

/** One server process: spawned, its log appended to `log`, resolved once it reports `listening`. */
async function spawnServer(options: StartReferenceOptions, args: string[], log: WriteStream): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, [join(repoRoot, 'bin', 'token-conformance.js'), ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: withReferenceServerEnv(process.env),
  });
  const which = `the ${options.environment ?? 'sandbox'} reference server`;
  const started = Date.now();
  child.stderr!.pipe(log, { end: false });
  if (options.logTee) child.stderr!.pipe(createWriteStream(options.logTee, { flags: 'a', mode: 0o600 }));
  const output = new StartOutput();
  child.stderr!.on('data', (chunk: Buffer) => output.addStderr(chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const safetyNet = options.timeoutMs ?? referenceStartSafetyNetMs;
  const listening = await new Promise<ListeningLine>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(
        new ReferenceStartError(
          `${which} did not report 'listening' within ${safetyNet / 1000} s (waited for its {"event":"listening"} line on stdout; the process was still running, pid ${child.pid ?? '?'}, started with serve ${args.slice(1).join(' ')}); ${output.describe()}`,
        ),
      );
    }, safetyNet);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        log.write(`${line}\n`);
        output.addStdout(line);
        return;
      }
      if (parsed && typeof parsed === 'object' && (parsed as { event?: unknown }).event === 'listening') {
        clearTimeout(timer);
        resolve(parsed as ListeningLine);
      } else {
        log.write(`${line}\n`);
        output.addStdout(line);
      }
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(new ReferenceStartError(`could not start ${which}: ${e.message}`));
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(
        new ReferenceStartError(
          `${which} exited with code ${code} before listening (${((Date.now() - started) / 1000).toFixed(1)} s after its start); ${output.describe()}`,
        ),
      );
    });
  });
  return { child, listening, exited };
}

async function stopProcess(p: ServerProcess): Promise<void> {
  if (p.child.exitCode === null && p.child.signalCode === null) {
    p.child.kill('SIGTERM');
    const timer = setTimeout(() => p.child.kill('SIGKILL'), 10_000);
    await p.exited;
    clearTimeout(timer);
  }
}

export async function startReference(options: StartReferenceOptions): Promise<ReferenceServer> {
  const logFile = join(
    options.logDir,
    options.environment === 'production' ? 'reference-server-production.log' : 'reference-server.log',
  );
  const log = createWriteStream(logFile, { mode: 0o600 });
  let current = await spawnServer(options, serveArgs(options), log);
  const { listening } = current;
  const port = Number(new URL(listening.authUrlUs).port);
  const server: ReferenceServer = {
    listening,
    logFile,
    async stop() {
      await stopProcess(current);
      log.end();
    },
  };
  if (options.dataFile === undefined) return server;
  return {
    ...server,
    async restart() {
      await stopProcess(current);
      // The same port (the profile names it) and store (the certificate is kept beside it).
      current = await spawnServer(options, serveArgs(options, port), log);
      if (current.listening.authUrlUs !== listening.authUrlUs || current.listening.caFile !== listening.caFile) {
        await stopProcess(current);
        throw new ReferenceStartError(
          `the restarted reference server listens at ${current.listening.authUrlUs} (CA ${current.listening.caFile ?? 'none'}), not at ${listening.authUrlUs} (CA ${listening.caFile ?? 'none'}) as before`,
        );
      }
    },
  };
}

/** The origin of an https:// URL with the http: scheme (same host and port). */
export function plainHttpOrigin(url: string): string {
  const u = new URL(url);
  return `http://${u.host}`;
}

/** The profile with the started server's addresses, CA and test-control URLs (and its restart control, when it has one). */
export function applyListening(profile: TargetProfile, l: ListeningLine, restartControlUrl?: string): TargetProfile {
  const controls = l.testControls;
  const pick = (re: RegExp): string | undefined => {
    if (!controls || typeof controls !== 'object') return undefined;
    const hit = Object.entries(controls).find(([k, v]) => re.test(k) && typeof v === 'string');
    return hit?.[1] as string | undefined;
  };
  const withControls = controls !== false && controls !== undefined;
  return {
    ...profile,
    authUrlUs: l.authUrlUs,
    authUrlEu: l.authUrlEu,
    baseUrl: l.baseUrl,
    // The HTTPS port spoken to in plain HTTP: it must never issue a token (SEC-TLS-002), exactly
    // like a real target's plain-HTTP address.
    plainHttpUrl: plainHttpOrigin(l.authUrlUs),
    ...(l.caFile ? { caFile: l.caFile } : {}),
    ...(l.env === 'sandbox' || l.env === 'production' ? { environment: l.env } : {}),
    capabilities: {
      ...profile.capabilities,
      ...(withControls
        ? {
            clockControlUrl: pick(/clock/i) ?? `${l.authUrlUs.replace(/\/+$/, '')}${referenceControlPaths.clock}`,
            faultControlUrl: pick(/fault/i) ?? `${l.baseUrl.replace(/\/+$/, '')}${referenceControlPaths.faults}`,
          }
        : {}),
      ...(restartControlUrl !== undefined ? { restartControlUrl } : {}),
    },
  };
}

/** Server flags that make the started server match the profile's declared thresholds (others keep its defaults). */
export function referenceArgsFor(profile: TargetProfile): string[] {
  const r = profile.capabilities.rateLimit;
  const flags = [
    ['--rate-spike', r?.spikePerSecond],
    ['--rate-quota', r?.quotaPerWindow],
    ['--rate-window', r?.windowSeconds],
  ] as const;
  return flags.flatMap(([flag, value]) => (value === undefined ? [] : [flag, String(value)]));
}

/** The seed the reference servers start from, and the production client whose token BEARER-015 uses. */
export const referenceSeedFile = join(repoRoot, 'fixtures', 'reference-seed.json');
export const productionClientId = 'us-prod-client';

/** The client_secret of a client of the seed file. */
export function seedClientSecret(clientId: string, seedFile = referenceSeedFile): string {
  const seed = JSON.parse(readFileSync(seedFile, 'utf8')) as {
    clients?: { clientId?: string; clientSecret?: string }[];
  };
  const secret = seed.clients?.find((c) => c.clientId === clientId)?.clientSecret;
  if (!secret) throw new ReferenceStartError(`the seed ${seedFile} has no client ${clientId} with a clientSecret`);
  return secret;
}

/** A client_credentials access token from a started reference server (its US token endpoint, TLS verified against its CA). */
export async function obtainClientCredentialsToken(
  l: ListeningLine,
  clientId: string,
  clientSecret: string,
): Promise<string> {
  const agent = new Agent({ connect: l.caFile ? { ca: readFileSync(l.caFile, 'utf8') } : {} });
  try {
    const res = await undiciFetch(`${l.authUrlUs.replace(/\/+$/, '')}/api/v1/auth/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
      }).toString(),
      dispatcher: agent,
      // A safety net: the server answers as soon as it has hashed the secret, however busy the machine.
      signal: AbortSignal.timeout(referenceStartSafetyNetMs),
    });
    const body = (await res.json().catch(() => undefined)) as { access_token?: unknown; error?: unknown } | undefined;
    if (res.status !== 200 || typeof body?.access_token !== 'string') {
      // Never print the body: it may hold a token.
      throw new ReferenceStartError(
        `the production reference server gave ${clientId} no token (HTTP ${res.status}${typeof body?.error === 'string' ? ` ${body.error}` : ''})`,
      );
    }
    return body.access_token;
  } finally {
    await agent.close();
  }
}

export interface ReferenceServers {
  /** The sandbox server the run checks (test controls on). */
  server: ReferenceServer;
  /** The production server that only issues the other environment's token; undefined when it could not start. */
  production?: ReferenceServer;
  /** An access token issued by the production server (credentials.tokens.otherEnvironment). */
  otherEnvironmentToken?: string;
  /** Why there is no other-environment token (the run goes on: BEARER-015 is SKIPPED with its reason). */
  otherEnvironmentProblem?: string;
  stop(): Promise<void>;
}

/**
 * Starts, concurrently, the sandbox reference server the run checks and a production one
 * (`--env production --seed fixtures/reference-seed.json`, no test controls: production refuses
 * them) from which a client_credentials token of the seed's production client is obtained — an
 * access token of the other environment (BEARER-015). A failure of the production side is not
 * fatal: it is reported in `otherEnvironmentProblem`.
 */
export async function startReferenceServers(options: {
  logDir: string;
  profile: TargetProfile;
  timeoutMs?: number;
  seedHashCache?: string;
  extraArgs?: string[];
  logTee?: string;
  sandboxDataFile?: string;
}): Promise<ReferenceServers> {
  const common = {
    logDir: options.logDir,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.seedHashCache !== undefined ? { seedHashCache: options.seedHashCache } : {}),
    ...(options.logTee !== undefined ? { logTee: options.logTee } : {}),
  };
  const [sandbox, production] = await Promise.allSettled([
    startReference({
      ...common,
      extraArgs: [...referenceArgsFor(options.profile), ...(options.extraArgs ?? [])],
      ...(options.sandboxDataFile !== undefined ? { dataFile: options.sandboxDataFile } : {}),
    }),
    (async () => {
      const started = await startReference({
        ...common,
        environment: 'production',
        seed: referenceSeedFile,
        ...(options.extraArgs ? { extraArgs: options.extraArgs } : {}),
      });
      try {
        const token = await obtainClientCredentialsToken(
          started.listening,
          productionClientId,
          seedClientSecret(productionClientId),
        );
        return { started, token };
      } catch (error) {
        return { started, problem: (error as Error).message };
      }
    })(),
  ]);
  const productionServer = production.status === 'fulfilled' ? production.value.started : undefined;
  if (sandbox.status === 'rejected') {
    await productionServer?.stop();
    throw sandbox.reason;
  }
  const server = sandbox.value;
  let problem: string | undefined;
  let token: string | undefined;
  if (production.status === 'rejected') problem = (production.reason as Error).message;
  else if ('token' in production.value) token = production.value.token;
  else problem = production.value.problem;
  return {
    server,
    ...(productionServer ? { production: productionServer } : {}),
    ...(token !== undefined ? { otherEnvironmentToken: token } : {}),
    ...(problem !== undefined ? { otherEnvironmentProblem: problem } : {}),
    async stop() {
      await Promise.all([server.stop(), productionServer?.stop()]);
    },
  };
}

/**
 * More sandbox servers like the one startReferenceServers starts (the profile's thresholds, test
 * controls on), each in a log directory of its own: clocks of their own for the time-travel checks
 * (core/run/clock-targets.ts). All or none: when one fails, the others are stopped.
 */
export async function startClockServers(
  count: number,
  options: {
    logDir: string;
    profile: TargetProfile;
    timeoutMs?: number;
    seedHashCache?: string;
    logTee?: string;
    restartable?: boolean;
  },
): Promise<ReferenceServer[]> {
  const starts = await Promise.allSettled(
    Array.from({ length: count }, (_, i) => {
      const logDir = join(options.logDir, `clock-target-${i}`);
      mkdirSync(logDir, { recursive: true });
      return startReference({
        logDir,
        extraArgs: referenceArgsFor(options.profile),
        ...(options.restartable ? { dataFile: join(logDir, 'store.sqlite') } : {}),
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.seedHashCache !== undefined ? { seedHashCache: options.seedHashCache } : {}),
        ...(options.logTee !== undefined ? { logTee: options.logTee } : {}),
      });
    }),
  );
  const started = starts.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failure = starts.find((s) => s.status === 'rejected');
  if (failure) {
    await Promise.all(started.map((s) => s.stop()));
    throw failure.reason;
  }
  return started;
}
