// `npm run bench -- --loop N [--target NAME]`: N suite runs in a row against one start of an
// independent target, run as a user runs them (`token-conformance run --target <profile>`, each
// into a reports directory of its own). Every run is watched from outside: it must end by itself,
// with an exit code that matches its verdict, every report file whole, the target's pinned
// FAIL/WARN, the loop's usual request count, and none of its processes left behind. A run still
// going past the bound is a hang: its processes' stacks and its log stay, it is killed, and the
// loop goes on with the next run (never the same one again). Results go to bench/LOOP-RESULTS.md.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { loadAverage, machineInfo } from '../harness/machine.ts';
import { pinnedVerdicts, startForeignTarget, type ForeignTargetName } from '../harness/foreign-target.ts';
import {
  loopSection,
  readRunReports,
  runProblems,
  summarizeLoop,
  summaryLines,
  withSection,
  mostFrequent,
  type LoopRun,
} from './loop-records.ts';
import { watchRun } from './watch-run.ts';

export interface LoopOptions {
  root: string;
  target: ForeignTargetName;
  runs: number;
  /** The runs' own `--deadline`, minutes. */
  deadlineMinutes: number;
  /** A run still going this long after its start is killed as a hang. */
  hangAfterS: number;
  /** Where each run's reports and log go (a directory per run). */
  outDir: string;
  /** The results file; the target's section is replaced. */
  resultsFile: string;
  command: string;
}

function commitOf(root: string): string {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' });
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, encoding: 'utf8' });
  return `${head.stdout?.trim() || 'unknown'}${dirty.stdout?.trim() ? ' (with uncommitted changes)' : ''}`;
}

/** Runs the loop; resolves with the bench's exit code: 0 when every run was clean, 1 otherwise. */
export async function runSuiteLoop(o: LoopOptions): Promise<number> {
  const machine = machineInfo();
  const startedAt = new Date();
  const loadStart = loadAverage();
  const pinned = pinnedVerdicts(o.root, o.target);
  const commit = commitOf(o.root);
  rmSync(o.outDir, { recursive: true, force: true });
  mkdirSync(o.outDir, { recursive: true });
  const temp = mkdtempSync(join(tmpdir(), 'tc-bench-loop-'));
  console.log(
    `bench: ${o.runs} suite runs in a row against ${o.target} (started once), load ${loadStart}; a run still going after ${o.hangAfterS} s is a hang`,
  );
  const target = await startForeignTarget(o.root, o.target, temp);
  const runs: LoopRun[] = [];
  // Interrupted: the current run is stopped (SIGTERM to its processes), and what ran is written.
  const interrupt = new AbortController();
  const onSignal = (): void => interrupt.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const writeResults = (): void => {
    const summary = summarizeLoop(runs, o.runs);
    const section = loopSection(
      {
        target: o.target,
        command: o.command,
        startedAt,
        finishedAt: new Date(),
        loadStart,
        loadEnd: loadAverage(),
        machine: `${machine.cpuCount} × ${machine.cpuModel}`,
        commit,
        hangAfterS: o.hangAfterS,
        deadlineMinutes: o.deadlineMinutes,
      },
      runs,
      summary,
    );
    writeFileSync(
      o.resultsFile,
      withSection(existsSync(o.resultsFile) ? readFileSync(o.resultsFile, 'utf8') : '', o.target, section),
    );
  };
  try {
    for (let index = 1; index <= o.runs && !interrupt.signal.aborted; index++) {
      if (target.process.exitCode !== null || target.process.signalCode !== null) {
        console.log(
          `bench: the ${o.target} target ended (code ${target.process.exitCode}); the loop stops after ${runs.length} runs`,
        );
        break;
      }
      const name = `run-${String(index).padStart(String(o.runs).length, '0')}`;
      const reportsDir = join(o.outDir, name);
      const logFile = join(o.outDir, `${name}.log`);
      const watched = await watchRun({
        argv: [
          process.execPath,
          join(o.root, 'bin', 'token-conformance.js'),
          'run',
          '--target',
          target.profileFile,
          '--reports',
          reportsDir,
          '--deadline',
          String(o.deadlineMinutes),
          // Every reporter on, the Allure writer too: its attachment copying once hung a run.
          '--allure',
        ],
        env: { ...process.env, FORCE_COLOR: '0', ...target.env },
        cwd: o.root,
        logFile,
        hangAfterS: o.hangAfterS,
        evidenceFile: join(o.outDir, `${name}.hang.txt`),
        abort: interrupt.signal,
      });
      const run: LoopRun = {
        index,
        seconds: watched.seconds,
        ...(watched.cpuSeconds !== undefined && { cpuSeconds: watched.cpuSeconds }),
        exitCode: watched.exitCode,
        signal: watched.signal,
        hung: watched.hung,
        reports: readRunReports(reportsDir, pinned),
        peakRssMiB: watched.peakRssMiB,
        leftBehind: watched.leftBehind.map((p) => `${p.pid} ${p.command.slice(0, 120)}`),
        load: loadAverage().split(' ')[0] ?? '',
        log: logFile,
        ...(watched.evidence !== undefined && { evidence: watched.evidence }),
      };
      runs.push(run);
      const usual = mostFrequent(runs.flatMap((r) => (r.reports.requests === undefined ? [] : [r.reports.requests])));
      const problems = runProblems(run, usual);
      console.log(
        `bench: ${name} ${run.seconds.toFixed(1)} s, CPU ${run.cpuSeconds?.toFixed(1) ?? '?'} s, exit ${run.hung ? 'killed (hang)' : (run.exitCode ?? run.signal)}, ${run.reports.verdict ?? 'no verdict'} (${run.reports.counts ?? ''}), ${run.reports.requests ?? '?'} requests, ${run.reports.sentAgain ?? '?'} sent again, peak RSS ${run.peakRssMiB.toFixed(0)} MiB, load ${run.load}${problems.length > 0 ? ` — ${problems.join('; ')}` : ''}${run.evidence ? ` (stacks: ${relative(process.cwd(), run.evidence)})` : ''}`,
      );
      // A clean run's reports are not needed again (its log stays); the first is kept as a sample.
      if (problems.length === 0 && index > 1) rmSync(reportsDir, { recursive: true, force: true });
      writeResults();
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await target.stop();
    rmSync(temp, { recursive: true, force: true });
  }
  writeResults();
  const summary = summarizeLoop(runs, o.runs);
  console.log('');
  for (const line of summaryLines(summary)) console.log(`  ${line}`);
  for (const p of summary.problems) console.log(`  run ${p.index}: ${p.problems.join('; ')}`);
  console.log(`\nbench: wrote ${relative(process.cwd(), o.resultsFile)}; logs in ${relative(process.cwd(), o.outDir)}`);
  return summary.clean === o.runs ? 0 : 1;
}
