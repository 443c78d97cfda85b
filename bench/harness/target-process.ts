// A server under test as a child process: pinned to one CPU with taskset (when the machine has
// taskset and more than one CPU), started on a free loopback port, ready when it prints its
// `listening` JSON line on stdout; pinned, in a session of its own. Its stderr is kept (the last 4 KiB) for the error message of a
// failed start. `stop()` sends SIGTERM and waits for the exit.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

export interface TargetProcess {
  pid: number;
  /** The parsed `listening` line (baseUrl and anything else the target printed). */
  listening: Record<string, unknown> & { baseUrl: string };
  /** Resident set size now, MiB (from /proc; NaN where there is none). */
  rssMiB(): number;
  /** CPU time used so far, user + system, all threads, seconds (from /proc; NaN where there is none). */
  cpuSeconds(): number;
  stop(): Promise<number | null>;
}

export interface TargetStart {
  /** Arguments after `node` (e.g. `['--import', 'tsx', 'bench/targets/ceiling-jose-sign.ts']`). */
  nodeArgs: string[];
  cwd: string;
  /** CPU to pin the target to, when pinning is possible. */
  cpu: number | undefined;
  env?: NodeJS.ProcessEnv;
  startTimeoutMs?: number;
}

export function tasksetAvailable(): boolean {
  return spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Targets still running: stopped when this process exits or is interrupted, never left behind. */
const running = new Set<ChildProcess>();
let cleanupInstalled = false;

function installCleanup(): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGTERM');
  });
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => process.exit(code));
  }
}

export async function startTarget(start: TargetStart): Promise<TargetProcess> {
  installCleanup();
  const [command, args] =
    start.cpu === undefined
      ? [process.execPath, start.nodeArgs]
      : ['taskset', ['-c', String(start.cpu), process.execPath, ...start.nodeArgs]];
  // Pinned, a session of its own (setsid): where the kernel groups CPU time by session
  // (autogroup), a target in the load generator's session would share that session's weight with
  // the generator, which runs on the other CPU, and a target with more busy threads (a thread pool
  // that signs) would get a larger part of its CPU whenever other sessions compete for it. On its
  // own, every pinned target weighs the same against the rest of the machine. Unpinned targets
  // (tests, the fuzz stage) stay in the caller's process group, where a stage's sweep finds them.
  const child = spawn(command, args, {
    cwd: start.cwd,
    env: start.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: start.cpu !== undefined,
  });
  running.add(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4096);
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  const lines = createInterface({ input: child.stdout });
  const listening = await new Promise<TargetProcess['listening']>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no listening line within ${start.startTimeoutMs ?? 60_000} ms: ${stderr}`)),
      start.startTimeoutMs ?? 60_000,
    );
    lines.on('line', (line) => {
      try {
        const event = JSON.parse(line) as { event?: string; baseUrl?: unknown };
        if (event.event === 'listening' && typeof event.baseUrl === 'string') {
          clearTimeout(timer);
          resolve(event as TargetProcess['listening']);
        }
      } catch {
        // not the listening line
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${start.nodeArgs.join(' ')} exited with ${code} before listening: ${stderr}`));
    });
  });
  const pid = child.pid!;
  return {
    pid,
    listening,
    rssMiB: () => rssMiB(pid),
    cpuSeconds: () => cpuSeconds(pid),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

export function rssMiB(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? Number.NaN : Number(kb) / 1024;
  } catch {
    return Number.NaN;
  }
}

const CLOCK_TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

export function cpuSeconds(pid: number): number {
  try {
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15 of stat(5).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}
