// Real server processes for the reliability tests: `node bin/token-conformance.js serve --http
// --port 0 --data FILE`, read the one `listening` line, talk HTTP over loopback, stop with SIGTERM
// or kill with SIGKILL. A store file can be seeded beforehand with a cheap scrypt cost (the cost is
// in each hash, so the server verifies it cheaply): a start then takes ~1.5 s instead of ~3 s.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { testScryptCost } from '../../../src/crypto/scrypt-hasher.ts';
import { BUNDLED_SEED } from '../../../src/config.ts';
import { createServices } from '../../../src/services.ts';
import { SqliteStore } from '../../../src/store/sqlite-store.ts';
import { killOnExit } from '../../support/exit-reaper.ts';

const root = join(import.meta.dirname, '..', '..', '..', '..');
const bin = join(root, 'bin', 'token-conformance.js');

export const US_TOKEN = '/api/v1/auth/oauth2/token';
const START_SAFETY_NET_MS = 180_000;

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  /** The CA of an HTTPS server (startServer's `https` option). */
  caFile?: string;
  stderr(): string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM and wait (SIGKILL after 5 s). */
  stop(): Promise<void>;
  /** SIGKILL and wait. */
  kill(): Promise<void>;
  alive(): boolean;
  /**
   * The CPU time the process has used so far, in ms (Linux /proc, 10 ms resolution): a cost that
   * does not grow with the machine's load, unlike a wall-clock duration. Undefined elsewhere.
   */
  cpuMs(): number | undefined;
}

/** clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on every Linux CI machine). */
const USER_HZ = 100;

function cpuMsOf(pid: number | undefined): number | undefined {
  const file = `/proc/${pid}/stat`;
  if (pid === undefined || !existsSync(file)) return undefined;
  // Fields after the command name (which is in parentheses and may hold spaces): utime is the
  // 14th field of the line, stime the 15th.
  const line = readFileSync(file, 'utf8');
  const fields = line.slice(line.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
}

export async function startServer(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  options: { https?: boolean } = {},
): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    [bin, 'serve', ...(options.https === true ? [] : ['--http']), '--port', '0', ...args],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TC_LOG_LEVEL: 'warn', ...env },
    },
  );
  killOnExit(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const listening = await new Promise<{ baseUrl: string; caFile?: string }>((resolve, reject) => {
    // The start is waited for by its events (the listening line, or the exit); this timer is only a
    // safety net against a start that never ends. It was 15 s and failed starts on a busy 2-core
    // machine (tsx compiles the server first), so it is now far above any real start.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no listening line within ${START_SAFETY_NET_MS / 1000} s: ${stderr}`));
    }, START_SAFETY_NET_MS);
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      resolve(JSON.parse(line) as { baseUrl: string; caFile?: string });
    });
    void exit.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening: ${stderr}`));
    });
  });
  const alive = () => child.exitCode === null && child.signalCode === null;
  const { baseUrl, caFile } = listening;
  return {
    child,
    baseUrl,
    exit,
    alive,
    ...(caFile !== undefined && { caFile }),
    stderr: () => stderr,
    cpuMs: () => cpuMsOf(child.pid),
    async stop() {
      if (!alive()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exit;
      clearTimeout(timer);
    },
    async kill() {
      if (!alive()) return;
      child.kill('SIGKILL');
      await exit;
    },
  };
}

/** A temporary directory with a store file seeded from the bundled seed at a cheap scrypt cost. */
export async function seededStoreFile(): Promise<{ dir: string; file: string; remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'tc-reliability-'));
  const file = join(dir, 'store.sqlite');
  const store = new SqliteStore(file);
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
  return { dir, file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Answer {
  status: number;
  body: string;
  json: Record<string, unknown> | undefined;
  headers: Record<string, string | string[] | undefined>;
  ms: number;
}

/** One HTTP request with a hard timeout; the answer's body as text (and JSON when it parses). */
export async function send(
  dispatcher: Agent,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; timeoutMs?: number } = {},
): Promise<Answer> {
  const started = performance.now();
  const res = await request(url, {
    method: (options.method ?? 'GET') as 'GET',
    dispatcher,
    ...(options.headers && { headers: options.headers }),
    ...(options.body !== undefined && { body: options.body }),
    signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
  });
  const body = await res.body.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(body) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, body, json, headers: res.headers, ms: Math.round(performance.now() - started) };
}

export const form = (params: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(params).toString(),
});

export function agent(connections = 128): Agent {
  return new Agent({ connections, pipelining: 1, keepAliveTimeout: 1000 });
}
