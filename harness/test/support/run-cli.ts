// The CLI (`bin/token-conformance.js`) as a child of a test, as CI runs it: its exit code and its
// stdout and stderr together.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../../../core/catalogue/catalogue.ts';

const cli = join(repoRoot, 'bin', 'token-conformance.js');

export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: repoRoot,
      env: { ...process.env, CI: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? 1, out }));
  });
}
