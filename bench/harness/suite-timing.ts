// Wall time of a whole command (npm start, the self-validation), not pinned: the suite uses every
// core it gets. Its output goes to a log file; the exit code is recorded next to the time, and the
// CPU time of the command's whole process tree (user + system) where /proc has it.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';

export interface CommandTiming {
  command: string;
  seconds: number;
  exitCode: number | null;
  log: string;
  /** CPU seconds (user + system) of the command and every process under it that it waited for; undefined without /proc. */
  cpuSeconds?: number;
}

const CLOCK_TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

/**
 * CPU seconds of this process's children that ended and were waited for (cutime + cstime of
 * stat(5), fields 16 and 17): a child's figure includes its own waited-for children, so the
 * difference across one command is the CPU of its whole tree (servers it started and stopped,
 * Playwright's workers). NaN without /proc.
 */
export function reapedChildrenCpuSeconds(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

export async function timeCommand(
  command: string,
  args: string[],
  cwd: string,
  logFile: string,
  env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0' },
): Promise<CommandTiming> {
  const log = createWriteStream(logFile);
  const cpuBefore = reapedChildrenCpuSeconds();
  const started = performance.now();
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const exitCode = await new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const seconds = (performance.now() - started) / 1000;
  const cpuSeconds = reapedChildrenCpuSeconds() - cpuBefore;
  await new Promise<void>((resolve) => log.end(resolve));
  return {
    command: [command, ...args].join(' '),
    seconds,
    exitCode,
    log: logFile,
    ...(Number.isFinite(cpuSeconds) && { cpuSeconds }),
  };
}
