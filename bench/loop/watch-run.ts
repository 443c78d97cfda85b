// One command watched from outside, as the loop runs each suite run: in a session of its own, its
// output to a log, its processes sampled once a second (resident memory, and every process it
// started), killed as a hang past a bound with what its processes were doing kept first, and after
// it ended the processes it left behind (killed too, so that they do not load the next run).
import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { reapedChildrenCpuSeconds } from '../harness/suite-timing.ts';
import {
  hangEvidence,
  leftBehind,
  listProcesses,
  processKey,
  runProcesses,
  type ProcessInfo,
} from './run-processes.ts';

const SAMPLE_MS = 1000;

export interface WatchOptions {
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  logFile: string;
  /** Still going this many seconds after its start: a hang. */
  hangAfterS: number;
  /** Where a hang's evidence goes (its processes' state and stacks, its log's end). */
  evidenceFile: string;
  /** Aborted: the command's processes get SIGTERM (the loop was interrupted). */
  abort?: AbortSignal;
  /** How long the command's processes get to go after it ended before they count as left behind (default 10 s). */
  leftBehindGraceMs?: number;
  /** Native stacks of a hung run's processes through gdb, where installed (default true). */
  nativeStacks?: boolean;
}

export interface Watched {
  exitCode: number | null;
  signal: string | null;
  hung: boolean;
  seconds: number;
  /** CPU seconds (user + system) of the command's whole tree; undefined without /proc. */
  cpuSeconds?: number;
  peakRssMiB: number;
  leftBehind: ProcessInfo[];
  evidence?: string;
}

export async function watchRun(o: WatchOptions): Promise<Watched> {
  const log = createWriteStream(o.logFile);
  const cpuBefore = reapedChildrenCpuSeconds();
  const started = performance.now();
  const child = spawn(o.argv[0]!, o.argv.slice(1), {
    cwd: o.cwd,
    env: o.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const leader = child.pid!;
  const seen = new Map<string, ProcessInfo>();
  let peakRss = 0;
  const sample = (): void => {
    const mine = runProcesses(listProcesses(), leader);
    for (const p of mine) seen.set(processKey(p), p);
    peakRss = Math.max(
      peakRss,
      mine.reduce((n, p) => n + p.rssBytes, 0),
    );
  };
  sample();
  const sampler = setInterval(sample, SAMPLE_MS);
  const killAll = (signal: NodeJS.Signals): void => {
    for (const p of runProcesses(listProcesses(), leader)) {
      try {
        process.kill(p.pid, signal);
      } catch {
        // already gone
      }
    }
  };
  // The command itself may exit while a process it started keeps its output open: the run has
  // not ended for whoever waits on it (a CI step), and the evidence says so.
  let leaderExit: string | undefined;
  child.once('exit', (code, sig) => (leaderExit = `exited with ${code ?? sig}`));
  let hung = false;
  let evidence: string | undefined;
  const hangTimer = setTimeout(() => {
    hung = true;
    const stuck = runProcesses(listProcesses(), leader);
    const logEnd = readFileSync(o.logFile, 'utf8').split('\n').slice(-200).join('\n');
    writeFileSync(
      o.evidenceFile,
      `A run still going ${o.hangAfterS} s after its start (its command ${leaderExit ?? 'still running'}); its processes, then its log's end.\n\n${hangEvidence(stuck, o.nativeStacks ?? true)}\n=== log (last 200 lines)\n${logEnd}\n`,
    );
    evidence = o.evidenceFile;
    killAll('SIGKILL');
  }, o.hangAfterS * 1000);
  const onAbort = (): void => killAll('SIGTERM');
  o.abort?.addEventListener('abort', onAbort, { once: true });
  const [exitCode, signal] = await new Promise<[number | null, string | null]>((resolve) =>
    child.once('close', (code, sig) => resolve([code, sig])),
  );
  o.abort?.removeEventListener('abort', onAbort);
  const seconds = (performance.now() - started) / 1000;
  clearTimeout(hangTimer);
  clearInterval(sampler);
  const cpuSeconds = reapedChildrenCpuSeconds() - cpuBefore;
  await new Promise<void>((resolve) => log.end(resolve));
  // A process of the run may still be on its way out: it gets a grace, looked at once a sample.
  let remaining = leftBehind(seen, listProcesses(), leader);
  const graceEnd = performance.now() + (o.leftBehindGraceMs ?? 10_000);
  while (remaining.length > 0 && performance.now() < graceEnd) {
    await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
    remaining = leftBehind(seen, listProcesses(), leader);
  }
  for (const p of remaining) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return {
    exitCode,
    signal,
    hung,
    seconds,
    ...(Number.isFinite(cpuSeconds) && { cpuSeconds }),
    peakRssMiB: peakRss / 2 ** 20,
    leftBehind: remaining,
    ...(evidence !== undefined && { evidence }),
  };
}
