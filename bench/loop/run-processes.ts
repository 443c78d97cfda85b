// The processes of one suite run, read from /proc: the run is started in a session of its own
// (setsid), so every process it starts carries that session id even after its parent is gone; its
// descendants by parent id are followed too, for one that starts a session of its own. Gives the
// run's resident memory (summed over its processes, sampled), the processes still alive after the
// run ended (left behind), and, for a run that does not end, what each of its processes is doing.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  session: number;
  /** Kernel start time (clock ticks since boot): with the pid, names one process even if the pid is reused. */
  startTime: number;
  state: string;
  rssBytes: number;
  command: string;
}

const PAGE_SIZE = Number(spawnSync('getconf', ['PAGESIZE'], { encoding: 'utf8' }).stdout?.trim()) || 4096;

function readProcess(pid: number): ProcessInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    let command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    if (command === '') command = `[${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}]`;
    return {
      pid,
      ppid: Number(fields[1]),
      session: Number(fields[3]),
      startTime: Number(fields[19]),
      state: fields[0] ?? '?',
      rssBytes: Number(fields[21]) * PAGE_SIZE,
      command: command.slice(0, 300),
    };
  } catch {
    return undefined; // ended between the listing and the read
  }
}

/** Every process of the machine this user can read. */
export function listProcesses(): ProcessInfo[] {
  const all: ProcessInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const info = readProcess(Number(entry));
    if (info) all.push(info);
  }
  return all;
}

export const processKey = (p: Pick<ProcessInfo, 'pid' | 'startTime'>): string => `${p.pid}@${p.startTime}`;

/** The run's processes among `all`: its session, and the descendants of its leader by parent id. */
export function runProcesses(all: readonly ProcessInfo[], leaderPid: number): ProcessInfo[] {
  const children = new Map<number, ProcessInfo[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const found = new Map<number, ProcessInfo>();
  for (const p of all) if (p.session === leaderPid || p.pid === leaderPid) found.set(p.pid, p);
  const queue = [...found.values()];
  while (queue.length > 0) {
    for (const child of children.get(queue.pop()!.pid) ?? []) {
      if (found.has(child.pid)) continue;
      found.set(child.pid, child);
      queue.push(child);
    }
  }
  return [...found.values()];
}

/**
 * The run's processes still alive after it ended, zombies excepted: those still in its session
 * (also one started and orphaned between two samples), and those seen during the run (by pid and
 * start time) that had left it.
 */
export function leftBehind(
  seen: ReadonlyMap<string, ProcessInfo>,
  all: readonly ProcessInfo[],
  leaderPid: number,
): ProcessInfo[] {
  return all.filter(
    (p) => p.state !== 'Z' && ((p.session === leaderPid && p.pid !== leaderPid) || seen.has(processKey(p))),
  );
}

function readOr(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (error) {
    return `(${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`;
  }
}

/**
 * What each process of a run that did not end is doing: its state, kernel wait channel and
 * system call, the kernel stack where readable, and every thread's native stack from gdb when
 * it is installed (bounded in time per process).
 */
export function hangEvidence(processes: readonly ProcessInfo[], nativeStacks = true): string {
  const gdb = nativeStacks && spawnSync('gdb', ['--version'], { encoding: 'utf8' }).status === 0;
  const parts: string[] = [];
  for (const p of processes) {
    parts.push(
      `=== pid ${p.pid} (parent ${p.ppid}, state ${p.state}, RSS ${(p.rssBytes / 2 ** 20).toFixed(1)} MiB): ${p.command}`,
      `wchan: ${readOr(`/proc/${p.pid}/wchan`)}`,
      `syscall: ${readOr(`/proc/${p.pid}/syscall`)}`,
      `kernel stack:\n${readOr(`/proc/${p.pid}/stack`)}`,
    );
    if (gdb) {
      const trace = spawnSync('gdb', ['-batch', '-p', String(p.pid), '-ex', 'thread apply all bt 30'], {
        encoding: 'utf8',
        timeout: 60_000,
        maxBuffer: 16 * 2 ** 20,
      });
      parts.push(
        `gdb (exit ${trace.status ?? trace.signal}):\n${trace.stdout ?? ''}${(trace.stderr ?? '').slice(-2000)}`,
      );
    }
  }
  return `${parts.join('\n')}\n`;
}
