// Wall time of a whole command (npm start, the self-validation), not pinned: the suite uses every
// core it gets. Its output goes to a log file; the exit code is recorded next to the time.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';

export interface CommandTiming {
  command: string;
  seconds: number;
  exitCode: number | null;
  log: string;
}

export async function timeCommand(command: string, args: string[], cwd: string, logFile: string, env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0' }): Promise<CommandTiming> {
  const log = createWriteStream(logFile);
  const started = performance.now();
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const exitCode = await new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const seconds = (performance.now() - started) / 1000;
  await new Promise<void>((resolve) => log.end(resolve));
  return { command: [command, ...args].join(' '), seconds, exitCode, log: logFile };
}
