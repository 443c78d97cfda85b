// examples/broken-target as a child process for tests: the reference server behind the
// self-validation's proxy with one planted fault, its profile written to `profile`.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const root = join(import.meta.dirname, '..', '..');

/** Resolves once the broken target printed its ready line; the caller stops it (SIGTERM). */
export function startBrokenTarget(fault: string, profile: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(root, 'examples', 'broken-target', 'serve-broken-target.ts'),
      '--fault',
      fault,
      '--profile',
      profile,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the broken target exited (${code}) before it was ready`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.includes('"event":"ready"')) resolve(child);
    });
  });
}
