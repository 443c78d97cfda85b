// What a test process started or created is stopped or removed when that process exits, on every
// path: after its tests, after a failure, after process.exit() from anywhere, and after SIGINT or
// SIGTERM (turned into an exit). Only synchronous work can run at exit: a SIGKILL and a rmSync.
// The test runner's sweep (scripts/node-test/run-leftovers.ts) catches what a SIGKILL of this
// process itself leaves behind.
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

const children = new Set<ChildProcess>();
const dirs = new Set<string>();
let installed = false;

function reapNow(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

function install(): void {
  if (installed) return;
  installed = true;
  process.once('exit', reapNow);
  // A signal's default action skips 'exit'; with a listener the process stays alive, so exit here.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      reapNow();
      process.exit(128 + ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1 } as const)[signal]);
    });
  }
}

/** Kills `child` (SIGKILL) if it still runs when this process exits. */
export function killOnExit(child: ChildProcess): void {
  install();
  children.add(child);
  child.once('exit', () => children.delete(child));
}

/** Removes `dir` when this process exits; the returned function removes it now. */
export function removeOnExit(dir: string): () => void {
  install();
  dirs.add(dir);
  return () => {
    dirs.delete(dir);
    rmSync(dir, { recursive: true, force: true });
  };
}
