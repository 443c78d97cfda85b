// `npm run bench`: in one run on this machine, the reference server's throughput and latency next
// to the ceilings (bare node:http; + jose sign; + jose verify) and the peers (oidc-provider,
// @node-oauth/oauth2-server), its memory and store, and the suite's wall time; prints the table
// and writes bench/RESULTS.md. Servers are pinned to CPU 0, this process (the load generator) to
// CPU 1. The peers are the benchmark's own dependencies (bench/package.json), installed here with
// `npm --prefix bench ci` when missing. Exit 0 when every row ran without errors, 1 otherwise, 2 for
// bad arguments. Timing goals are reported, never asserted.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { BenchUsageError, benchUsage, parseBenchArgs, type BenchOptions } from './bench-options.ts';
import { loadAverage, machineInfo, pinSelf } from './harness/machine.ts';
import { startReferenceServer } from './harness/reference-target.ts';
import {
  phaseLine,
  profileHasClockSandboxes,
  readSuiteReports,
  runDistantSuite,
  runHasTimings,
  sequentialChain,
  type SuiteRun,
} from './harness/suite-runs.ts';
import { defaultClockServers } from '../harness/commands/run.command.ts';
import { timeCommand } from './harness/suite-timing.ts';
import { foreignTargetName, runForeignSuite } from './harness/foreign-suite.ts';
import type { ForeignResult } from './foreign-results.ts';
import { startTarget, tasksetAvailable, type TargetProcess } from './harness/target-process.ts';
import { installedVersion } from './harness/versions.ts';
import { runLoad } from './load/load-generator.ts';
import { combineRounds, type RoundResult } from './load/rounds.ts';
import { measureMemory } from './memory.ts';
import { measureAuditHar } from './audit-har.ts';
import { runSuiteLoop } from './loop/suite-loop.ts';
import {
  cleanThroughput,
  goalLines,
  renderResults,
  type BenchRun,
  type DistantResult,
  type ThroughputRow,
} from './results-markdown.ts';
import { scenarios, type TargetName, type ThroughputScenario } from './scenarios.ts';

const benchDir = import.meta.dirname;
const root = join(benchDir, '..');
const SERVER_CPU = 0;
const LOAD_CPU = 1;

function ensureBenchDependencies(): void {
  if (
    installedVersion('oidc-provider', join(benchDir, 'targets')) !== 'not installed' &&
    installedVersion('@node-oauth/oauth2-server', join(benchDir, 'targets')) !== 'not installed'
  )
    return;
  console.log('bench: installing the peers (npm --prefix bench ci)…');
  const npm = spawnSync('npm', ['--prefix', benchDir, 'ci', '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (npm.status !== 0) throw new Error('npm --prefix bench ci failed');
}

async function startNamedTarget(name: TargetName, tempDir: string, cpu: number | undefined): Promise<TargetProcess> {
  if (name === 'reference' || name === 'reference-info-log') {
    return startReferenceServer({
      root,
      dataFile: join(tempDir, `${name}.sqlite`),
      cpu,
      logLevel: name === 'reference' ? 'warn' : 'info',
    });
  }
  return startTarget({ nodeArgs: ['--import', 'tsx', join(benchDir, 'targets', `${name}.ts`)], cwd: root, cpu });
}

/** Every selected row, in interleaved rounds, each target process started once and kept for all its rows. */
async function runThroughput(
  o: BenchOptions,
  selected: readonly ThroughputScenario[],
  tempDir: string,
  cpu: number | undefined,
): Promise<ThroughputRow[]> {
  const targets = new Map<TargetName, TargetProcess | Error>();
  for (const name of new Set(selected.map((s) => s.target))) {
    try {
      targets.set(name, await startNamedTarget(name, tempDir, cpu));
    } catch (error) {
      targets.set(name, error as Error);
    }
  }
  const rounds = new Map<string, RoundResult[]>(selected.map((s) => [s.id, []]));
  const failures = new Map<string, string>();
  const roundMs = (o.durationS * 1000) / o.rounds;
  try {
    for (let round = 0; round < o.rounds; round += 1) {
      for (const scenario of selected) {
        const target = targets.get(scenario.target)!;
        if (target instanceof Error) {
          failures.set(scenario.id, target.message.slice(0, 300));
          continue;
        }
        if (failures.has(scenario.id)) continue;
        process.stdout.write(`bench: round ${round + 1}/${o.rounds} ${scenario.label} … `);
        try {
          let cpuAtStart = Number.NaN;
          let cpuUsed = Number.NaN;
          let loadCpuAtStart = process.cpuUsage();
          let loadCpuUsed = Number.NaN;
          const load = await runLoad({
            origin: target.listening.baseUrl,
            connections: scenario.connections ?? o.connections,
            warmupMs: round === 0 ? o.warmupS * 1000 : Math.min(1000, o.warmupS * 1000),
            bound: { durationMs: roundMs },
            createWorker: (pool, index) => scenario.createWorker(target.listening, pool, index),
            onMeasuredPhase: (edge) => {
              if (edge === 'start') {
                cpuAtStart = target.cpuSeconds();
                loadCpuAtStart = process.cpuUsage();
              } else {
                cpuUsed = target.cpuSeconds() - cpuAtStart;
                const used = process.cpuUsage(loadCpuAtStart);
                loadCpuUsed = (used.user + used.system) / 1e6;
              }
            },
          });
          rounds.get(scenario.id)!.push({ load, serverCpuSeconds: cpuUsed, loadCpuSeconds: loadCpuUsed });
          const shares = `server CPU ${((cpuUsed * 100000) / load.elapsedMs).toFixed(0)}%, load generator CPU ${((loadCpuUsed * 100000) / load.elapsedMs).toFixed(0)}%`;
          console.log(
            load.errors > 0
              ? `${load.errors} ERRORS of ${load.requests}: ${load.errorSamples.join('; ')}`
              : `${load.throughput.toFixed(0)} req/s, p50 ${load.latency.p50.toFixed(2)} ms, p99 ${load.latency.p99.toFixed(2)} ms, ${shares}`,
          );
        } catch (error) {
          failures.set(scenario.id, (error as Error).message.slice(0, 300));
          console.log(`failed: ${(error as Error).message}`);
        }
      }
    }
  } finally {
    for (const target of targets.values()) if (!(target instanceof Error)) await target.stop();
  }
  return selected.map((s) => {
    const failure = failures.get(s.id);
    const done = rounds.get(s.id)!;
    return failure !== undefined || done.length === 0
      ? { id: s.id, label: s.label, kind: s.kind, failure: failure ?? 'no round ran' }
      : { id: s.id, label: s.label, kind: s.kind, result: combineRounds(done) };
  });
}

async function main(args: string[]): Promise<number> {
  let o: BenchOptions;
  try {
    o = parseBenchArgs(args, join(benchDir, 'RESULTS.md'));
  } catch (error) {
    if (error instanceof BenchUsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`bench: ${(error as Error).message}\n${benchUsage}`);
      return 2;
    }
    throw error;
  }
  if (o.help) {
    console.log(benchUsage);
    return 0;
  }
  if (o.loop)
    return runSuiteLoop({
      root,
      ...o.loop,
      outDir: join(root, 'reports', 'bench', `loop-${o.loop.target}`),
      resultsFile: o.out,
      command: `npm run bench -- ${args.join(' ')}`,
    });
  if (!o.suiteOnly) ensureBenchDependencies(); // the peers serve throughput rows only
  const machine = machineInfo();
  const pinned = machine.cpuCount >= 2 && tasksetAvailable() && pinSelf(LOAD_CPU);
  const cpu = pinned ? SERVER_CPU : undefined;
  const startedAt = new Date();
  const loadStart = loadAverage();
  console.log(
    `bench: ${machine.cpuCount} × ${machine.cpuModel}, load ${loadStart}, ${pinned ? 'servers on CPU 0, load generator on CPU 1' : 'NOT pinned'}`,
  );
  const selected =
    o.only.length === 0 ? scenarios : scenarios.filter((s) => o.only.some((part) => s.id.includes(part)));
  if (selected.length === 0) {
    console.error(`bench: --only matches no row (ids: ${scenarios.map((s) => s.id).join(', ')})`);
    return 2;
  }
  const tempDir = mkdtempSync(join(tmpdir(), 'tc-bench-'));
  const removeTempDir = (): void => rmSync(tempDir, { recursive: true, force: true });
  process.once('exit', removeTempDir); // also when interrupted (the targets are stopped first)
  try {
    const rows = o.suiteOnly ? [] : await runThroughput(o, selected, tempDir, cpu);

    let memory: BenchRun['memory'];
    if (o.only.length === 0 && !o.suiteOnly) {
      console.log(`bench: memory — ${o.tokens} tokens, then ${o.refreshes} refreshes …`);
      try {
        memory = await measureMemory({
          root,
          tempDir,
          cpu,
          connections: o.connections,
          tokens: o.tokens,
          refreshes: o.refreshes,
        });
        console.log(
          `bench: RSS idle ${memory.idleRssMiB.toFixed(1)} MiB, after tokens ${memory.afterTokensRssMiB.toFixed(1)} MiB, after refreshes ${memory.afterRefreshRssMiB.toFixed(1)} MiB; ${memory.bytesPerRefreshToken.toFixed(0)} bytes per refresh token; purge ${memory.purge.rowsBefore} → ${memory.purge.rowsAfter}`,
        );
      } catch (error) {
        memory = { failure: (error as Error).message.slice(0, 300) };
        console.log(`bench: memory failed: ${memory.failure}`);
      }
    }

    let auditHar: BenchRun['auditHar'];
    if (o.only.length === 0 && !o.suiteOnly) {
      try {
        auditHar = [];
        for (const mib of [Math.max(1, Math.round(o.auditHarMiB / 10)), o.auditHarMiB]) {
          console.log(`bench: audit of a ${mib} MiB HAR …`);
          const r = await measureAuditHar(root, tempDir, mib);
          console.log(
            `bench: audit of ${r.harMiB.toFixed(1)} MiB (${r.exchanges} exchanges): ${r.seconds.toFixed(1)} s, peak RSS ${r.peakRssMiB.toFixed(1)} MiB, exit ${r.exitCode}`,
          );
          auditHar.push(r);
        }
      } catch (error) {
        auditHar = { failure: (error as Error).message.slice(0, 300) };
        console.log(`bench: the audit row failed: ${auditHar.failure}`);
      }
    }

    // The suite gets every CPU back (children inherit this process's pinning); logs go to reports/bench/.
    const unpinned = (command: readonly string[]): [string, string[]] =>
      pinned ? ['taskset', ['-c', `0-${machine.cpuCount - 1}`, ...command]] : [command[0]!, command.slice(1)];
    // So does this process from here on: the distant run's servers (its children) and the latency
    // proxy (in this process) stand for a target elsewhere, not for a load generator on one CPU.
    if (pinned && (o.suite || !o.skipStart)) pinSelf(`0-${machine.cpuCount - 1}`);
    const logDir = join(root, 'reports', 'bench');
    mkdirSync(logDir, { recursive: true });
    const timings: SuiteRun[] = [];
    let distant: BenchRun['distant'];
    let distantClocks: BenchRun['distantClocks'];
    let foreign: ForeignResult[] | undefined;
    if (o.only.length === 0 && !o.skipStart) {
      console.log('bench: timing npm start …');
      // Its reports stay where npm start puts them (reports/): the self-validation plans from them and
      // checks that the clean run was clean.
      const reports = join(root, 'reports');
      // Where its time goes, when this version's `run` can say (--timings: one line of phases).
      const log = join(logDir, 'npm-start.log');
      const timing = await timeCommand(
        ...unpinned(['npm', 'start', ...(runHasTimings(root) ? ['--', '--timings'] : [])]),
        root,
        log,
      );
      const phases = phaseLine(log);
      // npm prints the script it runs; name the command itself in the results.
      timings.push({
        ...timing,
        ...readSuiteReports(reports),
        ...(phases !== undefined && { phases }),
        command: 'npm start (token-conformance run --target profiles/reference.json --start-reference)',
      });
    }
    if (o.only.length === 0 && o.suite) {
      if (!o.skipSelfValidation) {
        console.log('bench: timing the self-validation …');
        // It plans each fault's checks from the clean run's reports/checks.json (npm start's, as in CI).
        timings.push({
          ...(await timeCommand(...unpinned(['npm', 'run', 'self-validate']), root, join(logDir, 'self-validate.log'))),
          checks: [],
          command: 'npm run self-validate',
        });
      }
      // Twice: with clock sandboxes (npm start's topology: its clock servers, here behind the proxy
      // too, so like is compared with like), and with the target's one clock (a target that offers
      // no more). A version whose profile has no clock sandboxes runs the second alone.
      const local = timings.find((t) => t.command.startsWith('npm start'));
      const delayMs = o.delaysMs[0]!;
      const distantRun = async (clocks: number): Promise<DistantResult> => {
        const what = clocks > 0 ? `${clocks} clock sandboxes` : 'one clock';
        console.log(
          `bench: timing the suite against the reference server ${delayMs} ms away (latency proxy, ${what}) …`,
        );
        const name = clocks > 0 ? 'distant-clock-sandboxes' : 'distant';
        try {
          const run = await runDistantSuite({
            root,
            delayMs,
            reportsDir: join(logDir, name),
            logFile: join(logDir, `${name}.log`),
            command: unpinned,
            timings: runHasTimings(root),
            clockSandboxes: clocks,
          });
          const command = `token-conformance run --target <reference server behind the latency proxy${clocks > 0 ? `, with ${clocks} clock sandboxes behind it too` : ''}>`;
          return {
            delayMs,
            clocks,
            run: { ...run, command },
            ...(local && { chain: sequentialChain(local.checks, run.checks, delayMs) }),
          };
        } catch (error) {
          const failure = (error as Error).message.slice(0, 300);
          console.log(`bench: the distant run (${what}) failed: ${failure}`);
          return { delayMs, clocks, failure };
        }
      };
      if (profileHasClockSandboxes(root)) distantClocks = await distantRun(defaultClockServers);
      distant = await distantRun(0);
      // The QA team's case: an independent target with no clock control, locally and as far away.
      foreign = [];
      for (const delayMs of [0, ...o.delaysMs]) {
        const where = delayMs > 0 ? `${delayMs} ms away` : 'local';
        console.log(`bench: timing the suite against ${foreignTargetName}, ${where} (no clock control) …`);
        const name = delayMs > 0 ? `foreign-distant-${delayMs}ms` : 'foreign';
        try {
          foreign.push({
            delayMs,
            run: await runForeignSuite({
              root,
              delayMs,
              reportsDir: join(logDir, name),
              logFile: join(logDir, `${name}.log`),
              command: unpinned,
            }),
          });
        } catch (error) {
          foreign.push({ delayMs, failure: (error as Error).message.slice(0, 300) });
          console.log(
            `bench: the ${foreignTargetName} run (${where}) failed: ${(error as Error).message.slice(0, 300)}`,
          );
        }
      }
    }

    const versionsFrom = join(benchDir, 'targets');
    const run: BenchRun = {
      startedAt,
      finishedAt: new Date(),
      command: `npm run bench${args.length > 0 ? ` -- ${args.join(' ')}` : ''}`,
      machine,
      loadStart,
      loadEnd: loadAverage(),
      pinned,
      durationS: o.durationS,
      rounds: o.rounds,
      warmupS: o.warmupS,
      connections: o.connections,
      versions: Object.fromEntries(
        ['jose', 'fastify', 'better-sqlite3', 'pino', 'undici', 'oidc-provider', '@node-oauth/oauth2-server'].map(
          (n) => [n, installedVersion(n, n === 'undici' ? benchDir : versionsFrom)],
        ),
      ),
      rows,
      timings,
      ...(memory && { memory }),
      ...(auditHar && { auditHar }),
      ...(distant && { distant }),
      ...(distantClocks && { distantClocks }),
      ...(foreign && { foreign }),
    };
    const ours = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
    run.versions = { node: process.version, 'token-conformance': ours, ...run.versions };
    mkdirSync(dirname(o.out), { recursive: true });
    writeFileSync(o.out, renderResults(run));
    console.log('');
    for (const line of goalLines(run))
      console.log(`  ${line.met === undefined ? '?  ' : line.met ? 'ok ' : 'NO '} ${line.goal}: ${line.measured}`);
    for (const t of timings)
      if (t.exitCode !== 0) console.log(`  ${t.command} exited ${t.exitCode}: see ${relative(process.cwd(), t.log)}`);
    for (const d of [distantClocks, distant])
      if (d?.run && d.run.exitCode !== 0)
        console.log(`  the distant run exited ${d.run.exitCode}: see ${relative(process.cwd(), d.run.log)}`);
    for (const f of foreign ?? [])
      if (f.run && !f.run.pinned.same)
        console.log(
          `  the ${foreignTargetName} run (${f.delayMs} ms) did not give its pinned FAIL/WARN: see ${relative(process.cwd(), f.run.log)}`,
        );
    console.log(`\nbench: wrote ${relative(process.cwd(), o.out)} (load ${run.loadEnd} at the end)`);
    const memoryClean =
      memory === undefined ||
      (!('failure' in memory) &&
        memory.tokenRun.errors === 0 &&
        memory.refreshRun.errors === 0 &&
        memory.purge.rowsAfter === 0);
    const auditClean = auditHar === undefined || (Array.isArray(auditHar) && auditHar.every((a) => a.exitCode === 0));
    const clean =
      rows.every((r) => cleanThroughput(r) !== undefined) &&
      memoryClean &&
      auditClean &&
      timings.every((t) => t.exitCode === 0) &&
      (foreign ?? []).every((f) => f.run?.pinned.same === true);
    return clean ? 0 : 1;
  } finally {
    process.off('exit', removeTempDir);
    removeTempDir();
  }
}

process.exitCode = await main(process.argv.slice(2));
