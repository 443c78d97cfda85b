// A bounded soak of the reference server: `node --import tsx bench/soak/soak.ts --seconds 120`
// (or `npm run soak -- --seconds 120`). Starts the server on loopback (plain HTTP, a new store file
// in a temporary directory, production scrypt cost, the gateway's rate limits lifted so that the
// load is not refused), drives a moderate mixed load at a fixed rate (client_credentials and
// password grants, refreshes along rotating chains, protected calls), samples the server's RSS and
// the latencies per window, stops by itself, prints a table, and exits
//   0  no error and RSS growth within the threshold,
//   1  an error (any answer other than the expected one, a failed request) or RSS grew too much,
//   2  bad arguments.
// RSS growth is measured from the end of the first window (after warm-up) to the highest RSS of
// the last two windows. Not part of `npm test`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { seedClient, seedUser } from '../harness/reference-seed.ts';

const root = join(import.meta.dirname, '..', '..');
const TOKEN = '/api/v1/auth/oauth2/token';

interface Options {
  seconds: number;
  windowSeconds: number;
  rps: number;
  concurrency: number;
  maxRssGrowthMb: number;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '120' },
      window: { type: 'string', default: '10' },
      rps: { type: 'string', default: '200' },
      concurrency: { type: 'string', default: '16' },
      'max-rss-growth-mb': { type: 'string', default: '40' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log('Usage: soak.ts [--seconds 120] [--window 10] [--rps 200] [--concurrency 16] [--max-rss-growth-mb 40]');
    process.exit(0);
  }
  const num = (name: string, v: string, min: number, max: number) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < min || n > max) {
      console.error(`soak: --${name} must be a number from ${min} to ${max} (got '${v}')`);
      process.exit(2);
    }
    return n;
  };
  return {
    seconds: num('seconds', values.seconds, 5, 3600),
    windowSeconds: num('window', values.window, 1, 600),
    rps: num('rps', values.rps, 1, 5000),
    concurrency: num('concurrency', values.concurrency, 1, 512),
    maxRssGrowthMb: num('max-rss-growth-mb', values['max-rss-growth-mb'], 1, 10_000),
  };
}

function rssMb(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? Number.NaN : Number(kb) / 1024;
  } catch {
    return Number.NaN;
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

interface Window {
  requests: number;
  errors: number;
  latencies: number[];
  byOp: Map<string, number>;
}
const newWindow = (): Window => ({ requests: 0, errors: 0, latencies: [], byOp: new Map() });

/** The reference server as the soak runs it: a child process on loopback, its store in a temporary directory. */
interface SoakServer {
  baseUrl: string;
  pid: number;
  /** What the server wrote to stderr so far. */
  stderr: () => string;
  stop: () => Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startServer(): Promise<SoakServer> {
  const dir = mkdtempSync(join(tmpdir(), 'tc-soak-'));
  const child = spawn(
    process.execPath,
    [
      join(root, 'bin', 'token-conformance.js'),
      'serve',
      '--http',
      '--port',
      '0',
      '--data',
      join(dir, 'soak.sqlite'),
      '--rate-spike',
      '1000000',
      '--rate-quota',
      '100000000',
      '--log-level',
      'warn',
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const baseUrl = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) =>
      resolve(String((JSON.parse(line) as { baseUrl: string }).baseUrl)),
    );
    void exited.then(({ code }) => reject(new Error(`the server exited with ${code} before listening: ${stderr}`)));
  });
  return {
    baseUrl,
    pid: child.pid!,
    stderr: () => stderr,
    stop: async () => {
      child.kill('SIGTERM');
      const exit = await exited;
      rmSync(dir, { recursive: true, force: true });
      return exit;
    },
  };
}

type Call = (
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
) => Promise<{ status: number; json: Record<string, unknown> | undefined }>;

function httpClient(baseUrl: string, http: Agent): Call {
  return async (path, init) => {
    const res = await request(`${baseUrl}${path}`, {
      method: (init.method ?? 'GET') as 'GET',
      dispatcher: http,
      ...(init.headers && { headers: init.headers }),
      ...(init.body !== undefined && { body: init.body }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.body.text();
    return {
      status: res.statusCode,
      json: (() => {
        try {
          return JSON.parse(text) as Record<string, unknown>;
        } catch {
          return undefined;
        }
      })(),
    };
  };
}

/** One operation of the mix: its name, its weight, and a run that resolves to whether the answer was the expected one. */
type Operation = [name: string, weight: number, run: () => Promise<boolean>];

/**
 * The mixed load (protected calls, client_credentials and password grants, refreshes along rotating
 * chains) and its warm-up (a token for the protected calls). The operations share that token and the chains.
 */
function mixedLoad(call: Call): { ops: Operation[]; warmUp: () => Promise<void> } {
  const formPost = (params: Record<string, string>) =>
    call(TOKEN, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params).toString(),
    });
  const pwClient = seedClient('us-pw-client');
  const ccClient = seedClient('us-cc-client');
  const users = ['acme\\alice', 'acme\\carol', 'acme\\dave', 'acme\\erin'].map(seedUser);
  let accessToken = '';
  const chains: string[] = [];

  const ops: Operation[] = [
    [
      'people',
      40,
      async () =>
        (
          await call('/v1/people/er/E-1001', {
            headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
          })
        ).status === 200,
    ],
    [
      'search',
      10,
      async () =>
        (
          await call('/v1/people/search?lastName=Lovelace&limit=5', {
            headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
          })
        ).status === 200,
    ],
    [
      'client-credentials',
      15,
      async () => {
        const r = await formPost({ grant_type: 'client_credentials', ...ccClient });
        if (r.status === 200) accessToken = String(r.json?.access_token);
        return r.status === 200;
      },
    ],
    [
      'password',
      15,
      async () => {
        const user = users[Math.floor(Math.random() * users.length)]!;
        const r = await formPost({ grant_type: 'password', ...pwClient, ...user });
        if (r.status === 200 && chains.length < 64) chains.push(String(r.json?.refresh_token));
        return r.status === 200;
      },
    ],
    [
      'refresh-token',
      20,
      async () => {
        const rt = chains.shift();
        if (rt === undefined) return true;
        const r = await formPost({ grant_type: 'refresh_token', ...pwClient, refresh_token: rt });
        if (r.status === 200) chains.push(String(r.json?.refresh_token));
        return r.status === 200;
      },
    ],
  ];
  const warmUp = async () => {
    const first = await formPost({ grant_type: 'client_credentials', ...ccClient });
    if (first.status !== 200) throw new Error(`warm-up token: HTTP ${first.status}`);
    accessToken = String(first.json?.access_token);
  };
  return { ops, warmUp };
}

type SampledWindow = Window & { rss: number; seconds: number };

/**
 * Drives the operations at `rps` (weighted at random, at most `concurrency` in flight, never
 * bursting to catch up more than a second) until `seconds` have passed, sampling the server's RSS
 * at the end of each window. Returns the windows; error samples go to `errorSamples` (at most 5).
 */
async function driveLoad(o: Options, ops: Operation[], pid: number, errorSamples: string[]): Promise<SampledWindow[]> {
  const totalWeight = ops.reduce((s, [, w]) => s + w, 0);
  const pick = () => {
    let x = Math.random() * totalWeight;
    for (const op of ops) {
      x -= op[1];
      if (x < 0) return op;
    }
    return ops[0]!;
  };
  const windows: SampledWindow[] = [];
  let current = newWindow();
  const started = performance.now();
  const endAt = started + o.seconds * 1000;
  const intervalMs = 1000 / o.rps;
  let next = started;
  let inFlight = 0;
  const sampler = setInterval(() => {
    windows.push({ ...current, rss: rssMb(pid), seconds: Math.round((performance.now() - started) / 1000) });
    current = newWindow();
  }, o.windowSeconds * 1000);

  const pending = new Set<Promise<void>>();
  while (performance.now() < endAt) {
    const now = performance.now();
    if (now < next || inFlight >= o.concurrency) {
      await new Promise((r) => setTimeout(r, Math.max(1, Math.min(5, next - now))));
      continue;
    }
    next += intervalMs;
    if (next < now - 1000) next = now; // never burst to catch up more than a second
    const [name, , run] = pick();
    const w = current;
    inFlight += 1;
    const t0 = performance.now();
    const p = run()
      .then(
        (ok) => {
          w.latencies.push(performance.now() - t0);
          w.requests += 1;
          w.byOp.set(name, (w.byOp.get(name) ?? 0) + 1);
          if (!ok) {
            w.errors += 1;
            if (errorSamples.length < 5) errorSamples.push(`${name}: unexpected status`);
          }
        },
        (error: unknown) => {
          w.requests += 1;
          w.errors += 1;
          if (errorSamples.length < 5) errorSamples.push(`${name}: ${(error as Error).message}`);
        },
      )
      .finally(() => {
        inFlight -= 1;
        pending.delete(p);
      });
    pending.add(p);
  }
  await Promise.all(pending);
  clearInterval(sampler);
  if (current.requests > 0)
    windows.push({ ...current, rss: rssMb(pid), seconds: Math.round((performance.now() - started) / 1000) });
  return windows;
}

const fmt = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');

function printWindows(o: Options, pid: number, windows: SampledWindow[]): void {
  console.log(
    `\nsoak: ${o.seconds} s at ${o.rps} req/s target, ${o.concurrency} connections, ${o.windowSeconds} s windows (server pid ${pid})\n`,
  );
  console.log('  t(s)   requests  req/s   errors  p50(ms)  p99(ms)  max(ms)  rss(MB)');
  for (const w of windows) {
    const sorted = [...w.latencies].sort((a, b) => a - b);
    console.log(
      `  ${String(w.seconds).padStart(4)}  ${String(w.requests).padStart(9)}  ${fmt(w.requests / o.windowSeconds, 0).padStart(5)}  ${String(w.errors).padStart(7)}  ${fmt(percentile(sorted, 50)).padStart(7)}  ${fmt(percentile(sorted, 99)).padStart(7)}  ${fmt(sorted.at(-1) ?? Number.NaN).padStart(7)}  ${fmt(w.rss).padStart(7)}`,
    );
  }
}

/** Prints the totals (requests, RSS growth, p99 range, the server's exit) and returns the errors and the RSS growth. */
function printTotals(
  o: Options,
  windows: SampledWindow[],
  exit: { code: number | null; signal: NodeJS.Signals | null },
  errorSamples: string[],
): { errors: number; growth: number } {
  const total = windows.reduce((s, w) => s + w.requests, 0);
  const errors = windows.reduce((s, w) => s + w.errors, 0);
  const full = windows.filter((w) => w.latencies.length > 0);
  const baseline = windows[0]?.rss ?? Number.NaN;
  const lastRss = Math.max(...windows.slice(-2).map((w) => w.rss));
  const peak = Math.max(...windows.map((w) => w.rss));
  const growth = lastRss - baseline;
  const p99s = full.map((w) =>
    percentile(
      [...w.latencies].sort((a, b) => a - b),
      99,
    ),
  );
  const byOp = new Map<string, number>();
  for (const w of windows) for (const [k, v] of w.byOp) byOp.set(k, (byOp.get(k) ?? 0) + v);
  console.log(`\n  total ${total} requests (${[...byOp].map(([k, v]) => `${k} ${v}`).join(', ')}), ${errors} errors`);
  console.log(
    `  RSS: ${fmt(baseline)} MB after the first window, ${fmt(lastRss)} MB at the end, peak ${fmt(peak)} MB: growth ${fmt(growth)} MB (threshold ${o.maxRssGrowthMb} MB)`,
  );
  console.log(`  p99 per window: min ${fmt(Math.min(...p99s))} ms, max ${fmt(Math.max(...p99s))} ms`);
  console.log(`  server exit after SIGTERM: ${exit.code ?? exit.signal}`);
  for (const s of errorSamples) console.log(`  error: ${s}`);
  return { errors, growth };
}

/** What fails the soak: an error, RSS growth over the threshold (or unreadable), an unclean exit, an error the server logged. */
function soakProblems(
  o: Options,
  totals: { errors: number; growth: number },
  exit: { code: number | null; signal: NodeJS.Signals | null },
  stderr: string,
): string[] {
  const problems: string[] = [];
  if (totals.errors > 0) problems.push(`${totals.errors} errors`);
  if (!Number.isFinite(totals.growth)) problems.push('RSS could not be read (/proc/<pid>/status)');
  else if (totals.growth > o.maxRssGrowthMb)
    problems.push(`RSS grew by ${fmt(totals.growth)} MB (> ${o.maxRssGrowthMb} MB)`);
  if (exit.code !== 0) problems.push(`the server exited with ${exit.code ?? exit.signal}: ${stderr.slice(-500)}`);
  if (/"level":(50|60)/.test(stderr)) problems.push('the server logged an error');
  return problems;
}

async function main(): Promise<number> {
  const o = options();
  const server = await startServer();
  const http = new Agent({ connections: o.concurrency, keepAliveTimeout: 10_000 });
  const { ops, warmUp } = mixedLoad(httpClient(server.baseUrl, http));
  await warmUp();
  const errorSamples: string[] = [];
  const windows = await driveLoad(o, ops, server.pid, errorSamples);
  await http.close();
  const exit = await server.stop();
  printWindows(o, server.pid, windows);
  const problems = soakProblems(o, printTotals(o, windows, exit, errorSamples), exit, server.stderr());
  console.log(problems.length === 0 ? '\nSOAK PASS' : `\nSOAK FAIL: ${problems.join('; ')}`);
  return problems.length === 0 ? 0 : 1;
}

process.exitCode = await main();
