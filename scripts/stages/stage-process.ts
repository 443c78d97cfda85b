// A stage's command runs in a process group of its own, so that everything it starts without
// leaving the group (node:test's file processes, servers, PostgreSQL, HAProxy, browsers) can be
// stopped at once when `npm test` is interrupted.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const running = new Set<ChildProcess>();
const GRACE_MS = 5000;
const GONE_WAIT_MS = 5000;

/** Runs `command` in a new process group (no stdin; stdout and stderr shared unless `quiet`); its exit code. */
export function runInGroup(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; quiet?: boolean },
): Promise<number> {
  return new Promise((resolve, reject) => {
    const output = options.quiet === true ? 'ignore' : 'inherit';
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', output, output],
      detached: true,
    });
    running.add(child);
    child.on('error', (error) => {
      running.delete(child);
      reject(error);
    });
    child.on('exit', (code, signal) => {
      running.delete(child);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is gone already
  }
}

/** Whether a live (not zombie) process of group `pgid` remains (Linux /proc; elsewhere: no knowing, false). */
function groupAlive(pgid: number): boolean {
  if (!existsSync('/proc')) return false;
  return readdirSync('/proc').some((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      // After the command name (in parentheses): state, ppid, pgrp.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(pgrp) === pgid && state !== 'Z';
    } catch {
      return false;
    }
  });
}

/** SIGTERM to every running stage's group, SIGKILL to what is left after a grace period; waits until they are gone. */
export async function stopStageGroups(): Promise<void> {
  const children = [...running];
  for (const child of children) signalGroup(child, 'SIGTERM');
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) {
            resolve();
            return;
          }
          const timer = setTimeout(resolve, GRACE_MS);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
        }),
    ),
  );
  for (const child of children) signalGroup(child, 'SIGKILL');
  const deadline = Date.now() + GONE_WAIT_MS;
  while (children.some((c) => c.pid !== undefined && groupAlive(c.pid)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
