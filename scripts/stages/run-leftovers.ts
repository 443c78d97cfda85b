// What a test run leaves behind. `npm test` gives its stages a temporary directory of their own
// (TMPDIR), so that what they create there and the processes they start are recognisable as this
// run's: a process whose environment holds that TMPDIR, or whose working directory is inside it (a
// PostgreSQL backend rewrites its environment area for its title, but works in its data directory).
// After each stage and at the end, such processes are killed and named, and temporary entries the
// tests create (`tc-*`, `token-conformance-*`) are removed and named: either makes the stage fail.
// The process sweep reads /proc: on systems without it only the directory check runs.
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Leftovers {
  processes: string[];
  paths: string[];
}

const TEST_ENTRY = /^(tc-|token-conformance-)/;
const KILL_WAIT_MS = 3000;

/** Processes of this run other than this one: `pid command line`. */
export function runProcesses(dir: string): { pid: number; command: string }[] {
  if (!existsSync('/proc')) return [];
  const marker = `TMPDIR=${dir}`;
  const found: { pid: number; command: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`);
      } catch {
        /* exited meanwhile, or not ours to read */
      }
      if (!environ.includes(marker) && !cwd.startsWith(`${dir}/`)) continue;
      const command = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim();
      if (command !== '') found.push({ pid, command }); // an empty command line: a zombie, already dead
    } catch {
      // exited meanwhile, or not readable
    }
  }
  return found;
}

async function killAll(pids: number[]): Promise<void> {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  const deadline = Date.now() + KILL_WAIT_MS;
  const alive = (pid: number): boolean => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'latin1') !== '';
    } catch {
      return false;
    }
  };
  while (pids.some(alive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

export interface RunScope {
  /** The run's temporary directory (the stages' TMPDIR). */
  dir: string;
  /** Kills the run's processes and removes the tests' temporary entries; names both. */
  sweep(): Promise<Leftovers>;
  /** A last sweep, then the directory itself goes. */
  close(): Promise<Leftovers>;
}

/**
 * Opens the run's temporary directory (the caller points its stages' TMPDIR to it). Mode 0711:
 * under root PostgreSQL runs as the `postgres` user, which must pass through it to its own
 * directories (it cannot list it).
 */
export function openRunScope(base = tmpdir()): RunScope {
  const dir = mkdtempSync(join(base, 'tc-run-'));
  chmodSync(dir, 0o711);
  const sweep = async (): Promise<Leftovers> => {
    const processes = runProcesses(dir);
    await killAll(processes.map((p) => p.pid));
    const paths = existsSync(dir) ? readdirSync(dir).filter((e) => TEST_ENTRY.test(e)) : [];
    for (const entry of paths) rmSync(join(dir, entry), { recursive: true, force: true });
    return {
      processes: processes.map((p) => `${p.pid} ${p.command.slice(0, 160)}`),
      paths: paths.map((e) => join(dir, e)),
    };
  };
  return {
    dir,
    sweep,
    async close() {
      const left = await sweep();
      rmSync(dir, { recursive: true, force: true });
      return left;
    },
  };
}
