// A stage's command runs in a process group of its own, so that everything it starts without
// leaving the group (node:test's file processes, servers, PostgreSQL, HAProxy, browsers) can be
// stopped at once when `npm test` is interrupted.
import { spawn, type ChildProcess } from 'node:child_process';

const running = new Set<ChildProcess>();
const GRACE_MS = 5000;

/** Runs `command` in a new process group (no stdin; stdout and stderr shared unless `quiet`); its exit code. */
export function runInGroup(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; quiet?: boolean }): Promise<number> {
  return new Promise((resolve, reject) => {
    const output = options.quiet === true ? 'ignore' : 'inherit';
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', output, output], detached: true });
    running.add(child);
    child.on('error', (error) => { running.delete(child); reject(error); });
    child.on('exit', (code, signal) => { running.delete(child); resolve(code ?? (signal ? 128 : 1)); });
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

/** SIGTERM to every running stage's group, SIGKILL to what is left after a grace period. */
export async function stopStageGroups(): Promise<void> {
  const children = [...running];
  for (const child of children) signalGroup(child, 'SIGTERM');
  await Promise.all(children.map((child) => new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) { resolve(); return; }
    const timer = setTimeout(() => { signalGroup(child, 'SIGKILL'); resolve(); }, GRACE_MS);
    child.once('exit', () => { clearTimeout(timer); signalGroup(child, 'SIGKILL'); resolve(); });
  })));
}
