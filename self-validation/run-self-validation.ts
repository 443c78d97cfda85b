// The self-validation: the suite against each fault of the catalogue, through the fault-injecting
// proxy in front of a bundled reference server, and a check that the clean run is clean.
//
//   node --import tsx self-validation/run-self-validation.ts [--workers N] [--only id,id] [--clean-report FILE]
//
// Fast by construction (see README.md, "The run"): each fault runs only the checks of its own
// requirement IDs, its collateral and one sentinel check per path (selected by `@<ID>` tags and titles, and only their
// spec files loaded); faults run in groups, each group a project of one Playwright run (one worker)
// with one switching proxy that puts each check's fault in force, against the shared reference
// server unless the fault needs a server of its own (every fault with a @clock/@serial check does).
//
// Writes reports/self-validation/matrix.json and matrix.html (and one reports dir per fault under
// reports/self-validation/runs/). Exit 1 when a fault goes undetected, a false alarm appears, the
// clean run is not clean, a requirement is neither turned by a fault nor listed with a reason, or a
// property check caught no fault.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCatalogue, repoRoot } from '../core/catalogue/catalogue.ts';
import { loadProfile } from '../core/profile/load-profile.ts';
import { endOfRunRedaction } from '../core/redaction/end-of-run.ts';
import { writeRunManifest } from '../core/run/run-manifest.ts';
import type { Requirement } from '../requirements/types.ts';
import type { FaultResult } from './matrix.ts';
import { runBatchOfGroups } from './run/batch.phase.ts';
import { planGroups } from './run/grouping.phase.ts';
import { judgeFaults } from './run/judge.phase.ts';
import { buildMatrix, exitCodeOf, readCleanRun } from './run/matrix.phase.ts';
import { parseOptions, type Options, type Out } from './run/options.ts';
import { announce, planRuns, type Planning } from './run/planning.phase.ts';
import { prepareGroups } from './run/proxies.phase.ts';
import { printFaultLines, printSummary, writeMatrix } from './run/report.phase.ts';
import { freshServerProblems, startFreshServers, startServers, type Servers } from './run/servers.phase.ts';
import { stopAll, type Started } from './run/started.ts';

/**
 * Every fault against the reference server: start the servers, a proxy per fault, the two
 * Playwright passes, each fault's report judged; everything started is stopped on the way out
 * (and on Ctrl-C or the npm test stage being stopped). Returns each selected fault's result, in order.
 */
async function runFaults(
  options: Options,
  planning: Planning,
  requirements: Requirement[],
  startedAt: number,
  out: Out,
): Promise<FaultResult[]> {
  const loaded = loadProfile(join(repoRoot, 'profiles', 'reference.json'));
  const temp = mkdtempSync(join(tmpdir(), 'token-conformance-sv-'));
  const started: Started = {
    shared: undefined,
    servers: [],
    proxies: [],
    faultSwitch: undefined,
    children: new Set(),
    stopping: false,
  };
  const onSignal = () => void stopAll(started).finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const results = new Map<string, FaultResult>();
  let servers: Servers | undefined;
  try {
    const since = (t: number) => `${((Date.now() - t) / 1000).toFixed(1)} s`;
    const phase = Date.now();
    servers = await startServers(loaded, temp, started);
    out(`  shared servers up in ${since(phase)} (${since(startedAt)} after the start)`);
    const parts = planGroups(options.selected, planning, servers.env, options.workers, results);
    startFreshServers(parts, planning, loaded, temp, started, servers);
    // Beside the reports, not in the run's temporary directory: the wrappers keep their paths from
    // run to run, so Playwright compiles them from its cache (batch-specs.ts).
    const specsDir = join(options.outDir, 'specs');
    const prepared = Date.now();
    const { groups, handoffEnv } = await prepareGroups(parts, planning, servers, temp, specsDir, started, results);
    out(`  proxies and spec wrappers ready in ${since(prepared)}`);
    const childEnv: NodeJS.ProcessEnv = {
      ...process.env,
      ...handoffEnv,
      CI: '1',
      ...writeRunManifest(temp, { seenTokens: join(temp, 'seen-tokens.txt') }),
    };
    delete childEnv.FORCE_COLOR;
    const ran = await runBatchOfGroups(
      groups,
      options.workers,
      options.runsDir,
      temp,
      specsDir,
      childEnv,
      started,
      out,
    );
    judgeFaults(
      groups.flatMap((g) => g.members.map((m) => m.prepared)),
      ran,
      requirements,
      planning,
      options.runsDir,
      startedAt,
      results,
    );
    await freshServerProblems(servers, planning, options.selected, results);
    out(
      `  ${servers.freshStarts ?? 0} servers besides the shared ones for ${servers.freshOf.size} faults, the last up ${((servers.freshUpMs.length ? Math.max(...servers.freshUpMs) : 0) / 1000).toFixed(1)} s after the shared ones`,
    );
    for (const line of endOfRunRedaction(options.runsDir, childEnv, 'self-validation').lines) out(line);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await servers?.freshSettled;
    await stopAll(started);
    rmSync(temp, { recursive: true, force: true });
  }
  return options.selected.map((f) => results.get(f.id)!);
}

export async function main(argv: string[]): Promise<number> {
  const startedAt = Date.now();
  const options = parseOptions(argv);
  const out: Out = (line) => process.stdout.write(`${line}\n`);
  rmSync(options.runsDir, { recursive: true, force: true, maxRetries: 5 });
  mkdirSync(options.runsDir, { recursive: true });
  const requirements = loadCatalogue();
  const planning = planRuns(options);
  announce(options, planning, out);
  const ordered = await runFaults(options, planning, requirements, startedAt, out);
  printFaultLines(ordered, out);
  const matrix = buildMatrix(ordered, readCleanRun(options.cleanReportFile), requirements, options.mode, startedAt);
  writeMatrix(matrix, requirements, options.outDir);
  printSummary(matrix, options.outDir, out);
  return exitCodeOf(matrix, options.only === undefined);
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  try {
    process.exitCode = await main(process.argv.slice(2));
  } catch (error) {
    // A usage mistake (an unknown option or fault, a bad --workers): one line, exit 2.
    process.stderr.write(`self-validation: ${(error as Error).message}\n`);
    process.exitCode = 2;
  }
}
