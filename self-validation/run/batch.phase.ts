// Running the suite against the faulted target: one Playwright run for every group of faults.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../core/catalogue/catalogue.ts';
import { readRunManifest, writeRunManifest } from '../../core/run/run-manifest.ts';
import { playwrightCommand } from '../../harness/playwright/playwright-cli.ts';
import type { CheckOutcome } from '../../harness/reporter/verdict.ts';
import type { BatchPlan, BatchProject } from '../batch-plan.ts';
import { timingFileOf, type BatchOutcomes, type GroupTiming } from '../batch.reporter.ts';
import { startFaultSwitch } from '../fault-switch.ts';
import type { Out } from './options.ts';
import type { Group } from './proxies.phase.ts';
import type { Started } from './started.ts';

/** Runs one Playwright batch (batch.config.ts) as a child, its output to a log file; resolves with its exit code. */
function runBatch(plan: BatchPlan, dir: string, env: NodeJS.ProcessEnv, children: Set<ChildProcess>): Promise<number> {
  const planFile = join(dir, `batch-${plan.pass}.json`);
  writeFileSync(planFile, JSON.stringify(plan, null, 2), { mode: 0o600 });
  const log = createWriteStream(join(dir, `playwright-${plan.pass}.log`));
  return new Promise((resolveExit, reject) => {
    const child = spawn(
      process.execPath,
      playwrightCommand(['test', '--config', join(import.meta.dirname, '..', 'batch.config.ts')]),
      {
        cwd: repoRoot,
        env: {
          ...env,
          ...writeRunManifest(
            dir,
            { ...readRunManifest(env), selfValidationBatch: planFile },
            `run-manifest-${plan.pass}.json`,
          ),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.add(child);
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      children.delete(child);
      log.end(() => resolveExit(code ?? (signal ? 1 : 0)));
    });
  });
}

/**
 * One Playwright run for every fault: a project per group (one worker each), every fault's checks
 * run from its own spec wrappers with its fault put in force by the fault switch before each check.
 * Returns each fault's check outcomes, and the faults the run wrote no outcomes for.
 */
export async function runBatchOfGroups(
  groups: Group[],
  workers: number,
  runsDir: string,
  temp: string,
  specsDir: string,
  childEnv: NodeJS.ProcessEnv,
  started: Started,
  out: Out,
): Promise<{ outcomes: Map<string, CheckOutcome[]>; batchProblems: Map<string, string> }> {
  const prepared = groups.flatMap((g) => g.members.map((m) => m.prepared));
  const outcomes = new Map<string, CheckOutcome[]>(prepared.map((p) => [p.fault.id, []]));
  const batchProblems = new Map<string, string>();
  if (prepared.length === 0) return { outcomes, batchProblems };
  // A fault whose selection holds a @clock/@serial check has a server of its own or its group's (needsFresh), and
  // each group's checks run one at a time on its one worker, so no check that moves a server's
  // clock or faults runs beside another check of that server: `run`'s two passes are not needed.
  const pass = 'all';
  const outcomesFile = join(temp, `outcomes-${pass}.json`);
  started.faultSwitch = await startFaultSwitch(new Map(groups.map((g) => [g.name, g.proxy])));
  const t0 = Date.now();
  const projects: BatchProject[] = groups.map((g) => ({
    name: g.name,
    profileFile: g.profileFile,
    members: g.members.map((m) => ({ fault: m.prepared.fault.id, grep: m.prepared.plan.grep, specFiles: m.specFiles })),
  }));
  // One slot more than the groups: the faults that run alone pass through it while every group runs.
  const pooled = groups.filter((g) => g.members.length > 1).length;
  const slots = pooled > 0 ? pooled + (pooled < groups.length ? 1 : 0) : Math.min(groups.length, workers);
  const code = await runBatch(
    {
      pass,
      workers: slots,
      outcomesFile,
      outputDir: join(temp, `test-results-${pass}`),
      specsDir,
      faultSwitchUrl: started.faultSwitch.url,
      projects,
    },
    runsDir,
    childEnv,
    started.children,
  );
  const byFault = existsSync(outcomesFile)
    ? (JSON.parse(readFileSync(outcomesFile, 'utf8')) as BatchOutcomes)
    : undefined;
  out(
    `  batch: ${prepared.length} faults in ${groups.length} groups, ${Object.values(byFault ?? {}).reduce((n, o) => n + o.length, 0)} checks, ${((Date.now() - t0) / 1000).toFixed(1)} s (Playwright exit ${code}; log ${join(runsDir, `playwright-${pass}.log`)})`,
  );
  printGroupTimings(groups, timingFileOf(outcomesFile), out);
  for (const p of prepared) {
    const o = byFault?.[p.fault.id];
    if (o) outcomes.get(p.fault.id)!.push(...o);
    else
      batchProblems.set(
        p.fault.id,
        `the batch wrote no outcomes (Playwright exit ${code}; see ${join(runsDir, `playwright-${pass}.log`)})`,
      );
  }
  return { outcomes, batchProblems };
}

/**
 * Where the batch's wall time went, per group: when its worker ran its first check (Playwright's
 * start and the worker's), its last, and its checks' own time; the faults that run alone as one line.
 */
function printGroupTimings(groups: Group[], timingFile: string, out: Out): void {
  if (!existsSync(timingFile)) return;
  const timings = new Map((JSON.parse(readFileSync(timingFile, 'utf8')) as GroupTiming[]).map((t) => [t.project, t]));
  const s = (ms: number) => (ms / 1000).toFixed(1);
  const line = (label: string, ts: GroupTiming[], faults: number) => {
    if (ts.length === 0) return;
    out(
      `    ${label.padEnd(16)} ${String(faults).padStart(3)} faults ${String(ts.reduce((n, t) => n + t.checks, 0)).padStart(4)} checks, first at ${s(Math.min(...ts.map((t) => t.firstStartMs)))} s, last done at ${s(Math.max(...ts.map((t) => t.lastEndMs)))} s, checks' own time ${s(ts.reduce((n, t) => n + t.checksMs, 0))} s, ${ts.reduce((n, t) => n + t.workers, 0)} worker(s)`,
    );
  };
  const pooled = groups.filter((g) => g.members.length > 1);
  for (const g of pooled)
    line(
      g.name,
      [timings.get(g.name)].filter((t) => t !== undefined),
      g.members.length,
    );
  const alone = groups.filter((g) => g.members.length === 1);
  line(
    'alone',
    alone.flatMap((g) => [timings.get(g.name)].filter((t) => t !== undefined)),
    alone.length,
  );
}
