// The last phases of `run`: Playwright as a child (its output redacted), and the verdict.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { repoRoot } from '../../../core/catalogue/catalogue.ts';
import { playwrightCommand } from '../../playwright/playwright-cli.ts';
import type { Redactor } from '../../../core/redaction/redact.ts';
import type { ConformanceReport } from '../../reporter/report.schema.ts';
import { exitCodeFor } from '../../reporter/verdict.ts';
import { applyWaiversToRun, type LoadedWaivers } from '../../waivers/waivers.ts';
import { scoreRunInCatalogue } from '../../reporter/catalogue-scoring.ts';
import { catalogueVersion } from '../../../requirements/catalogue-versions.ts';
import { lockSummary, type ClientLocks } from '../../../core/run/client-locks.ts';
import { allPasses, emptySelection, projectsArgs, type RunOptions } from './options.ts';
import type { PhaseIo, RunIo } from './phase-io.ts';
import type { RunEnvironment } from './environment.phase.ts';

/**
 * How long Playwright may take, past the deadline it was given, to stop its workers and write the
 * reports before it is stopped itself (its reporter writes them at once; a fixture's teardown may hang).
 */
export const deadlineGraceMs = 60_000;

/**
 * Runs Playwright as a child, its output redacted line by line on the way to the terminal. With
 * `killAfterMs`, a child still running then is stopped (SIGTERM, then SIGKILL): nothing the target
 * does holds the run past its deadline.
 */
export function runPlaywright(
  args: string[],
  env: NodeJS.ProcessEnv,
  redactor: () => Redactor,
  io: RunIo,
  killAfterMs?: number,
): Promise<number> {
  return new Promise((resolveExit, reject) => {
    const child = spawn(
      process.execPath,
      playwrightCommand(['test', '--config', join(repoRoot, 'playwright.config.ts'), ...args]),
      {
        // The user's directory, not the package's: paths printed by the reporters read from where the user stands.
        cwd: process.cwd(),
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const pipeThrough = (input: NodeJS.ReadableStream, write: (line: string) => void) => {
      createInterface({ input, crlfDelay: Infinity }).on('line', (line) => write(redactor().redact(line)));
    };
    pipeThrough(child.stdout, io.out);
    pipeThrough(child.stderr, io.err);
    let killTimer: NodeJS.Timeout | undefined;
    if (killAfterMs !== undefined)
      killTimer = setTimeout(() => {
        io.err('token-conformance run: Playwright did not stop at the run deadline; stopping it');
        child.kill('SIGTERM');
        killTimer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      }, killAfterMs);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(killTimer);
      resolveExit(code ?? (signal ? 1 : 0));
    });
  });
}

export function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/**
 * The checks: one Playwright invocation with both projects. With clock targets of their own the
 * time-travel checks run beside the conformance checks (playwright.config.ts spreads them over one
 * worker per clock target). Against one shared clock the time-travel project runs on one worker
 * after every conformance check ended: its worker starts once the conformance checks are all
 * handed out (the project is listed second) and waits at the pass gate (core/run/pass-gate.ts,
 * armed by the conformance reporter) — its start-up overlaps the last conformance checks instead
 * of a second Playwright run's start-up following them. Returns Playwright's exit code.
 */
export async function runChecks(
  options: RunOptions,
  run: RunEnvironment,
  io: PhaseIo,
  deadlineAt: number,
): Promise<number> {
  // Playwright's global timeout is what is left of the run's deadline: it stops the checks still
  // running and its reporters still write the reports (the conformance reporter marks them UNCHECKED).
  const remainingMs = Math.max(1_000, deadlineAt - Date.now());
  return runPlaywright(
    [
      ...run.playwrightArgs,
      '--global-timeout',
      String(remainingMs),
      ...projectsArgs(options.passes ?? allPasses, run.besideLanes),
    ],
    run.env,
    run.redactor,
    io,
    remainingMs + deadlineGraceMs,
  );
}

/** The verdict: the report (with the waivers applied), the clients the run stopped using, the exit code. */
export function judgeRun(
  options: RunOptions,
  reportsDir: string,
  waivers: LoadedWaivers | undefined,
  locks: { locks: ClientLocks },
  playwrightCode: number,
  io: PhaseIo,
): number {
  let report = readJson<ConformanceReport>(join(reportsDir, 'conformance.json'));
  if (report && options.catalogue !== undefined)
    report = scoreRunInCatalogue(reportsDir, report, catalogueVersion(options.catalogue), io.out);
  if (report && waivers) report = applyWaiversToRun(reportsDir, report, waivers, io.out);
  if (!report) {
    io.err(
      `token-conformance run: Playwright ended (code ${playwrightCode}) without a conformance report; see the output above.`,
    );
    return 1;
  }
  const stopped = lockSummary(locks.locks.all());
  if (stopped) io.err(`token-conformance run: ${stopped}`);
  const selection = emptySelection(options, report.checks.total);
  if (selection) return io.fail(`no check matches the selection (${selection}): nothing was verified`).code;
  return exitCodeFor(report.verdict, options.strict);
}
