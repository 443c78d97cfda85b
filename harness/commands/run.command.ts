// `npx token-conformance run --target FILE`: validate the profile, (optionally) start the bundled
// reference server, check that every address answers, then run Playwright Test as a child process
// and judge. Exit codes: 0 conformant (WARNs allowed unless --strict), 1 any FAIL (or WARN with
// --strict), 2 a bad profile, bad arguments or an unreachable target — before anything runs.
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { repoRoot } from '../../core/catalogue/catalogue.ts';
import { loadProfile, ProfileError, type LoadedProfile } from '../../core/profile/load-profile.ts';
import { passGateEnvVar } from '../../core/run/pass-gate.ts';
import { playwrightCommand } from '../playwright/playwright-cli.ts';
import { profileEnvVar, toWorkerProfile, withOtherEnvironmentToken, writeWorkerProfile } from '../../core/profile/worker-profile.ts';
import { checkReachability, unreachableProblem } from '../reference/reachability.ts';
import { clockSandboxLabel, clockSandboxProfile } from '../../core/profile/clock-sandboxes.ts';
import { profileErrorLine, runPreflight } from '../preflight/preflight.ts';
import { probeRegions } from '../parity/probe-regions.ts';
import { profileSha256 } from '../bundle/bundle.ts';
import { applyListening, ReferenceStartError, startClockServers, startReferenceServers, type ListeningLine, type ReferenceServer, type ReferenceServers } from '../reference/start-reference.ts';
import type { TargetProfile } from '../../core/profile/profile.schema.ts';
import type { PreflightResult } from '../preflight/preflight.ts';
import { clockTargetsEnvVar, writeClockTargets } from '../../core/run/clock-targets.ts';
import { PhaseTimes } from './phase-times.ts';
import type { Redactor } from '../../core/redaction/redact.ts';
import { endOfRunRedaction } from '../../core/redaction/end-of-run.ts';
import { knownSecretsRedactor, reporterEnv } from '../../core/run/run-contract.ts';
import type { ConformanceReport } from '../reporter/report.schema.ts';
import { exitCodeFor, type Level } from '../reporter/verdict.ts';
import { bothGreps, lastFailedSelection, listChecks, renderList, requirementGrep, requirementSelection } from './run-selection.ts';
import { applyWaiversToRun, loadWaivers, WaiversError, type LoadedWaivers } from '../waivers/waivers.ts';
import { ClientLocks, clientLocksEnvVar, lockSummary, profileLockKey } from '../../core/run/client-locks.ts';
import { runSeedHashCache } from '../reference/run-seed-hash-cache.ts';
import { openStatePhase, StateFileError, stateFileOf, type StatePhase } from '../obligations/state-phase.ts';

/** Where playwright.config.ts writes reports (default reports/). */
export const reportsDirEnvVar = 'TOKEN_CONFORMANCE_REPORTS_DIR';
export const seedEnvVar = 'TOKEN_CONFORMANCE_SEED';
/** When set, the tokens the run saw (one a line) are copied to this file at the end of the run. */
export const keepSeenTokensEnvVar = 'TOKEN_CONFORMANCE_KEEP_SEEN_TOKENS';
/** The arguments that select the same target again, for the replay command of a property failure. */
export const replayArgsEnvVar = 'TOKEN_CONFORMANCE_REPLAY_ARGS';

/** Clock targets `--start-reference` starts by default: two time-travel workers (bench/SUITE-TIMING.md; 1 and 3 not measured apart). */
export const defaultClockServers = 2;

const usage = `Usage: token-conformance run --target FILE [options]

  --target FILE        target profile (JSON or JSONC; see profiles/README.md)
  --start-reference    start the bundled reference server and run against it (its addresses
                       replace the profile's)
  --grep PATTERN       only checks whose title or tags match (e.g. @GRANT-CC-001, @gateway)
  --requirement ID     only the checks of these requirement IDs (repeatable or comma-separated;
                       an ID the catalogue does not know is exit 2)
  --last-failed        only the checks that failed in the previous run of --reports DIR
  --check-profile      validate the profile, check every address answers and run the preflight;
                       run no check (exit 0 ready, 2 a setup problem)
  --list               print the checks and requirement IDs the selection would run; run nothing
  --max-failures N     stop after N failed checks (the rest read UNCHECKED)
  --reporter NAME      terminal output: compact (default: progress on a terminal, then one line per
                       area and per failure), list (one line per check) or dot
  --level LEVEL        must | should | all (default all): which requirement levels to verify
  --strict             exit 1 on WARN as well as on FAIL
  --workers N          parallel workers (default: the config's)
  --shard I/N          run shard I of N (reports merge later)
  --passes LIST        conformance,time-travel (default both): which of the two projects to run
                       (against one shared clock they are two Playwright passes; leave one out
                       when the selection has no check of it: saves a Playwright start)
  --clock-servers N    with --start-reference: how many more reference servers to start for the
                       time-travel checks (@clock/@serial), each a clock of its own, so that they
                       run on N workers beside the other checks (default ${defaultClockServers});
                       0 runs them one at a time after every other check, as against a real target
                       without capabilities.clockSandboxes (which --start-reference ignores: a
                       profile's declared sandboxes spread them the same way, one worker each)
  --timings            print the wall time of each phase of the run at the end (stderr)
  --spec FILE          only load this spec file (repeatable; a path under specs/): with --grep,
                       spares Playwright loading every spec of the suite
  --reports DIR        output directory (default reports/)
  --seed N             seed for the property checks (default: a fixed seed per property)
  --fresh-seed         draw a new seed for the property checks (printed, and carried in the report)
  --state FILE         keep obligations between runs in FILE (encrypted; the profile's state.key names
                       the key's environment variable): without clock control, time-dependent
                       checks record what must hold later, and every run first settles the due ones
  --waivers FILE       apply a waivers file (schemas/waivers.schema.json) to the report and exit code
  --skip-preflight     judge the target even when the preflight sees a setup problem (every
                       client refused, every call rate-limited, the EU address answering like
                       the US one); without it such a run stops with exit 2 before any check
  --help

Exit codes: 0 conformant (WARN allowed unless --strict), 1 FAIL/UNCHECKED (or WARN with --strict),
2 a setup problem: bad arguments, a bad profile, an unreachable or untrusted address, or a
preflight finding ("setup problem: …", naming the profile field to fix); 2 also when the selection
(--grep, --level, --spec, --passes) matched no check: nothing was verified (an empty shard is fine),
and when the end-of-run verification of the reports found a secret it could not remove (file:line).`;

class UsageError extends Error {}

export interface RunOptions {
  target: string;
  startReference: boolean;
  grep?: string;
  level: Level;
  strict: boolean;
  workers?: number;
  shard?: string;
  reportsDir: string;
  seed?: string;
  freshSeed?: boolean;
  /** A waivers file applied to the run's report and exit code. */
  waivers?: string;
  /** Which Playwright passes to run (default both, in order). */
  passes?: Pass[];
  /** Spec files to load (Playwright file filters); default all. */
  specs?: string[];
  /** Judge the target even when the preflight finds a setup problem. */
  skipPreflight?: boolean;
  /** Validate and preflight the profile against the target; run no check. */
  checkProfile?: boolean;
  /** Print the selection instead of running it. */
  list?: boolean;
  /** Only the checks that failed in the previous run of reportsDir. */
  lastFailed?: boolean;
  maxFailures?: number;
  terminalReporter?: TerminalReporter;
  /** The obligations' state file (overrides the profile's state.file). */
  state?: string;
  /** With startReference: reference servers started for the time-travel checks (clock targets). */
  clockServers?: number;
  /** Print each phase's wall time at the end. */
  timings?: boolean;
}


export type TerminalReporter = 'compact' | 'list' | 'dot';
/** Which Playwright terminal reporter playwright.config.ts uses (compact: line on a terminal, none otherwise). */
export const terminalReporterEnvVar = 'TOKEN_CONFORMANCE_TERMINAL_REPORTER';

export type Pass = 'conformance' | 'time-travel';
const allPasses: Pass[] = ['conformance', 'time-travel'];

export function parseRunArgs(args: string[]): RunOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        target: { type: 'string' },
        'start-reference': { type: 'boolean', default: false },
        grep: { type: 'string' },
        level: { type: 'string', default: 'all' },
        strict: { type: 'boolean', default: false },
        workers: { type: 'string' },
        shard: { type: 'string' },
        reports: { type: 'string', default: 'reports' },
        seed: { type: 'string' },
        'fresh-seed': { type: 'boolean', default: false },
        waivers: { type: 'string' },
        state: { type: 'string' },
        passes: { type: 'string' },
        spec: { type: 'string', multiple: true },
        'skip-preflight': { type: 'boolean', default: false },
        requirement: { type: 'string', multiple: true },
        'last-failed': { type: 'boolean', default: false },
        list: { type: 'boolean', default: false },
        'check-profile': { type: 'boolean', default: false },
        'max-failures': { type: 'string' },
        reporter: { type: 'string', default: 'compact' },
        'clock-servers': { type: 'string' },
        timings: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const v = parsed.values;
  if (v.help) return 'help';
  if (!v.target) throw new UsageError('--target FILE is required');
  if (!['must', 'should', 'all'].includes(v.level)) throw new UsageError(`--level must be must, should or all (got '${v.level}')`);
  if (v.workers !== undefined && !/^[1-9]\d*$/.test(v.workers)) throw new UsageError(`--workers must be a positive integer (got '${v.workers}')`);
  if (v.shard !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(v.shard);
    if (!m || Number(m[1]) < 1 || Number(m[1]) > Number(m[2])) throw new UsageError(`--shard must be I/N with 1 ≤ I ≤ N (got '${v.shard}')`);
  }
  if (v.grep !== undefined) {
    try {
      new RegExp(v.grep);
    } catch {
      throw new UsageError(`--grep is not a valid regular expression: ${v.grep}`);
    }
  }
  if (v.seed !== undefined && !/^-?\d+$/.test(v.seed)) throw new UsageError(`--seed must be an integer (got '${v.seed}')`);
  if (v.state !== undefined && v.shard !== undefined) throw new UsageError('--state and --shard exclude each other: one unsharded run settles and records the obligations of a state file');
  if (v.seed !== undefined && v['fresh-seed']) throw new UsageError('--seed and --fresh-seed exclude each other');
  if (v['max-failures'] !== undefined && !/^[1-9]\d*$/.test(v['max-failures'])) throw new UsageError(`--max-failures must be a positive integer (got '${v['max-failures']}')`);
  if (v['clock-servers'] !== undefined && !/^\d+$/.test(v['clock-servers'])) throw new UsageError(`--clock-servers must be a whole number (got '${v['clock-servers']}')`);
  if (v['clock-servers'] !== undefined && !v['start-reference']) throw new UsageError('--clock-servers needs --start-reference (a real target has the one clock of its profile)');
  if (!['compact', 'list', 'dot'].includes(v.reporter)) throw new UsageError(`--reporter must be compact, list or dot (got '${v.reporter}')`);
  let grep = v.grep;
  if (v.requirement !== undefined) {
    const { ids, unknown } = requirementSelection(v.requirement);
    if (unknown.length > 0) throw new UsageError(`--requirement: unknown requirement ID${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (the IDs are those of requirements/requirements.json; run --list shows what a selection covers)`);
    if (ids.length === 0) throw new UsageError('--requirement needs at least one requirement ID');
    grep = bothGreps(grep, requirementGrep(ids));
  }
  let passes: Pass[] | undefined;
  if (v.passes !== undefined) {
    const named = v.passes.split(',').map((p) => p.trim());
    if (named.length === 0 || named.some((p) => !allPasses.includes(p as Pass))) throw new UsageError(`--passes must list conformance and/or time-travel (got '${v.passes}')`);
    passes = allPasses.filter((p) => named.includes(p));
  }
  return {
    target: v.target,
    startReference: v['start-reference'],
    level: v.level as Level,
    strict: v.strict,
    reportsDir: resolve(v.reports),
    ...(grep !== undefined ? { grep } : {}),
    ...(v.workers !== undefined ? { workers: Number(v.workers) } : {}),
    ...(v.shard !== undefined ? { shard: v.shard } : {}),
    ...(v.seed !== undefined ? { seed: v.seed } : {}),
    ...(v['fresh-seed'] ? { freshSeed: true } : {}),
    ...(v.waivers !== undefined ? { waivers: v.waivers } : {}),
    ...(v.state !== undefined ? { state: v.state } : {}),
    ...(passes !== undefined ? { passes } : {}),
    ...(v.spec !== undefined && v.spec.length > 0 ? { specs: v.spec } : {}),
    ...(v['skip-preflight'] ? { skipPreflight: true } : {}),
    ...(v.list ? { list: true } : {}),
    ...(v['check-profile'] ? { checkProfile: true } : {}),
    ...(v['last-failed'] ? { lastFailed: true } : {}),
    ...(v['max-failures'] !== undefined ? { maxFailures: Number(v['max-failures']) } : {}),
    terminalReporter: v.reporter as TerminalReporter,
    ...(v['clock-servers'] !== undefined ? { clockServers: Number(v['clock-servers']) } : {}),
    ...(v.timings ? { timings: true } : {}),
  };
}

/** The level selection and the user's --grep, as one Playwright --grep (both must match). */
export function combinedGrep(level: Level, grep?: string): string | undefined {
  const levelPattern = level === 'must' ? '@must|@interpretation' : level === 'should' ? '@must|@interpretation|@should' : undefined;
  if (!levelPattern && !grep) return undefined;
  if (!levelPattern) return grep;
  if (!grep) return levelPattern;
  return `^(?=[\\s\\S]*(?:${levelPattern}))(?=[\\s\\S]*(?:${grep}))`;
}

/**
 * The selection, as the user gave it, when it matched no check (a typo in a CI job must not be a
 * green build); undefined when checks ran, nothing was selected, or this is a shard (an empty shard is fine).
 */
export function emptySelection(options: Pick<RunOptions, 'grep' | 'level' | 'specs' | 'passes' | 'shard'>, checks: number): string | undefined {
  if (checks > 0 || options.shard !== undefined) return undefined;
  const parts = [
    ...(options.grep !== undefined ? [`--grep ${options.grep}`] : []),
    ...(options.level !== 'all' ? [`--level ${options.level}`] : []),
    ...(options.specs ?? []).map((f) => `--spec ${f}`),
    ...(options.passes !== undefined ? [`--passes ${options.passes.join(',')}`] : []),
  ];
  return parts.length > 0 ? parts.join(' ') : 'the whole suite';
}

/** Where `run` writes; injectable so that a test can search the terminal output for secrets. */
export interface RunIo {
  out: (line: string) => void;
  err: (line: string) => void;
}
const processIo: RunIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** The Playwright arguments of one invocation with these projects (no dependencies), an empty selection allowed. */
export function projectsArgs(projects: Pass[]): string[] {
  return ['--project', ...projects, '--pass-with-no-tests'];
}


/** Runs Playwright as a child, its output redacted line by line on the way to the terminal. */
function runPlaywright(args: string[], env: NodeJS.ProcessEnv, redactor: () => Redactor, io: RunIo): Promise<number> {
  return new Promise((resolveExit, reject) => {
    const child = spawn(process.execPath, playwrightCommand(['test', '--config', join(repoRoot, 'playwright.config.ts'), ...args]), {
      // The user's directory, not the package's: paths printed by the reporters read from where the user stands.
      cwd: process.cwd(), env, stdio: ['ignore', 'pipe', 'pipe'],
    });
    const pipeThrough = (input: NodeJS.ReadableStream, write: (line: string) => void) => {
      createInterface({ input, crlfDelay: Infinity }).on('line', (line) => write(redactor().redact(line)));
    };
    pipeThrough(child.stdout, io.out);
    pipeThrough(child.stderr, io.err);
    child.once('error', reject);
    child.once('close', (code, signal) => resolveExit(code ?? (signal ? 1 : 0)));
  });
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** A phase that ends the run early with this exit code (its lines already written). */
class Exit {
  constructor(readonly code: number) {}
}

/** What every phase may write to: the terminal, and the way out with exit 2. */
interface PhaseIo extends RunIo {
  /** Prints `token-conformance run: <message>` to stderr; the exit of a setup problem (2). */
  fail(message: string): Exit;
}

/**
 * `token-conformance run`: a sequence of named phases, each a function of what the ones before it
 * produced. The phases up to the target's start only read (a usage mistake never costs the
 * previous run's reports); from there on a temporary directory holds the run's private files and
 * the started servers, both removed at the end, also on Ctrl-C. `--timings` prints each phase's
 * wall time.
 */
/** The run's file of every token the checks saw (and the due obligations' credentials), in its private temp dir. */
const seenTokensFileName = 'seen-tokens.txt';

export async function runMain(args: string[], io: RunIo = processIo): Promise<number> {
  const phaseIo: PhaseIo = { ...io, fail: (message) => { io.err(`token-conformance run: ${message}`); return new Exit(2); } };
  const times = new PhaseTimes();
  const setup = await times.time('profile', () => prepareSelection(args, phaseIo));
  if (setup instanceof Exit) return setup.code;
  const { options, loaded, waivers } = setup;

  const temp = mkdtempSync(join(tmpdir(), 'token-conformance-'));
  let servers: ReferenceServers | undefined;
  let clockServers: Promise<ReferenceServer[]> | undefined;
  let obligations: StatePhase | undefined;
  const stopServers = async () => {
    const clocks = await clockServers?.catch(() => []);
    clockServers = undefined;
    await Promise.all([servers?.stop(), ...(clocks ?? []).map((c) => c.stop())]);
    servers = undefined;
  };
  const onSignal = () => void stopServers().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const started = await times.time('reference start', () => startTarget(options, loaded, temp, phaseIo));
    if (started instanceof Exit) return started.code;
    servers = started.servers;
    clockServers = started.clockServers;
    const target = started.target;
    const reachable = await times.time('reachability', () => checkTargetAnswers(options, target, phaseIo));
    if (reachable instanceof Exit) return reachable.code;
    const probed = await times.time('preflight and region parity', () => preflightAndParity(options, target, temp, phaseIo));
    if (probed instanceof Exit) return probed.code;
    const { preflight, parityFile } = probed;
    const locks = lockRefusedClients(preflight, temp);
    const clockTargets = await times.time('clock targets', () => writeClockTargetProfiles(options, started, temp, phaseIo));
    if (clockTargets instanceof Exit) return clockTargets.code;
    const opened = await times.time('obligations', () => openObligations(options, loaded, target.profile, temp, phaseIo));
    if (opened instanceof Exit) return opened.code;
    obligations = opened;
    const run = prepareRunEnvironment(options, target, clockTargets, { temp, locks, parityFile, extraEnv: obligations?.env }, phaseIo);
    const playwrightCode = await times.time('checks', () => runChecks(options, run, phaseIo));
    // The state file is written only after a run that produced its report (never by a failed run).
    if (existsSync(join(run.reportsDir, 'conformance.json'))) for (const line of obligations?.finish(true) ?? []) io.out(line);
    await times.time('server stop', stopServers);
    keepSeenTokens(run.seenTokens);
    const verified = await times.time('report verification', () => endOfRunRedaction(run.reportsDir, run.env));
    for (const line of verified.lines) io.err(line);
    const code = judgeRun(options, run.reportsDir, waivers, locks, playwrightCode, phaseIo);
    return verified.code !== 0 ? verified.code : code;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await stopServers();
    for (const line of obligations?.finish(false) ?? []) io.err(line);
    obligations?.release();
    rmSync(temp, { recursive: true, force: true });
    if (existsSync(temp)) io.err(`token-conformance run: could not remove ${temp}`);
    if (options.timings) io.err(`token-conformance run: ${times.render()}`);
  }
}

interface Selection {
  options: RunOptions;
  loaded: LoadedProfile;
  waivers: LoadedWaivers | undefined;
}

/**
 * Arguments, profile, `--last-failed`, `--list` and the waivers file: everything that is decided
 * before anything starts. `--help`, `--list` and nothing-to-re-run end here (exit 0).
 */
async function prepareSelection(args: string[], io: PhaseIo): Promise<Selection | Exit> {
  let options: RunOptions | 'help';
  try {
    options = parseRunArgs(args);
  } catch (error) {
    return io.fail(`${(error as Error).message}\n\n${usage}`);
  }
  if (options === 'help') {
    io.out(usage);
    return new Exit(0);
  }
  let loaded: LoadedProfile;
  try {
    loaded = loadProfile(options.target);
  } catch (error) {
    if (error instanceof ProfileError) {
      for (const line of error.message.split('\n')) io.err(line);
      io.err('token-conformance run: the profile is not valid; nothing was run.');
      return new Exit(2);
    }
    throw error;
  }
  // A state file settles and records obligations in one unsharded run (shards would each write it).
  const stateFile = options.shard !== undefined ? stateFileOf(loaded, options.state) : undefined;
  if (stateFile !== undefined) return io.fail(`the profile keeps a state file (${stateFile}) and --shard was given: they exclude each other, one unsharded run settles and records the obligations of a state file; run the shards with a profile without "state" and the obligations in one unsharded run`);
  // --last-failed: the previous run's failures, read before this run removes its reports.
  if (options.lastFailed) {
    const last = lastFailedSelection(options.reportsDir);
    if (!last) return io.fail(`--last-failed: no previous run in ${options.reportsDir} (checks.json); run once without it`);
    if (last.failed === 0) {
      io.out(`token-conformance run: no check failed in the previous run (${join(options.reportsDir, 'checks.json')}); nothing to run.`);
      return new Exit(0);
    }
    io.out(`token-conformance run: re-running the ${last.failed} check(s) that failed in the previous run`);
    options = { ...options, grep: bothGreps(options.grep, last.grep), specs: [...(options.specs ?? []), ...last.files] };
  }
  if (options.list) return listSelection(options, io);
  try {
    const waivers = options.waivers !== undefined ? loadWaivers(options.waivers) : undefined;
    return { options, loaded, waivers };
  } catch (error) {
    if (error instanceof WaiversError) return io.fail(error.message);
    throw error;
  }
}

/** `--list`: the checks and requirement IDs the selection would run; nothing runs. */
async function listSelection(options: RunOptions, io: PhaseIo): Promise<Exit> {
  const passes = options.passes ?? allPasses;
  const grep = combinedGrep(options.level, options.grep);
  // File filters before --project, which takes every following word as a project name.
  const listArgs = [...(options.specs ?? []), ...(grep !== undefined ? ['--grep', grep] : []), '--project', ...passes];
  let listed;
  try {
    listed = await listChecks(listArgs, process.env);
  } catch (error) {
    return io.fail((error as Error).message);
  }
  for (const line of renderList(listed)) io.out(line);
  if (listed.length === 0) return io.fail('the selection matches no check');
  return new Exit(0);
}

interface StartedTarget {
  /** The profile the checks run against (with `--start-reference`: the started server's addresses and the other environment's token). */
  target: LoadedProfile;
  servers?: ReferenceServers;
  /** Servers for the time-travel checks alone (clock-targets.ts), still starting while the phases after this one run. */
  clockServers?: Promise<ReferenceServer[]>;
  /** The started server's profile transformation, for the clock servers. */
  onServer?: (l: ListeningLine) => LoadedProfile;
}

/**
 * `--start-reference`: the bundled sandbox server and a production one (for the other
 * environment's token), concurrently; the profile then names their addresses. Once they listen,
 * the clock servers start (in the background, while reachability, preflight and region parity
 * run: no more servers start at once than before, which a loaded machine pays in start time).
 * Without `--start-reference` the profile's own target, untouched.
 */
async function startTarget(options: RunOptions, loaded: LoadedProfile, temp: string, io: PhaseIo): Promise<StartedTarget | Exit> {
  if (!options.startReference) return { target: loaded };
  const cacheFile = runSeedHashCache();
  const seedHashCache = cacheFile !== undefined ? { seedHashCache: cacheFile } : {};
  let servers: ReferenceServers;
  try {
    servers = await startReferenceServers({ logDir: temp, profile: loaded.profile, ...seedHashCache });
  } catch (error) {
    if (error instanceof ReferenceStartError) return io.fail(error.message);
    throw error;
  }
  // A run without the time-travel pass needs no clock of its own; `--check-profile` runs no check at all.
  const count = (options.passes ?? allPasses).includes('time-travel') && !options.checkProfile ? options.clockServers ?? defaultClockServers : 0;
  const clockServers = count > 0 ? startClockServers(count, { logDir: temp, profile: loaded.profile, ...seedHashCache }) : undefined;
  // Settled later (writeClockTargetProfiles); never an unhandled rejection meanwhile.
  clockServers?.catch(() => undefined);
  const onServer = (l: ListeningLine): LoadedProfile => {
    const withServer = { ...loaded, profile: applyListening(loaded.profile, l) };
    return servers.otherEnvironmentToken !== undefined ? withOtherEnvironmentToken(withServer, servers.otherEnvironmentToken) : withServer;
  };
  io.out(`token-conformance run: reference server listening at ${servers.server.listening.authUrlUs} (test controls on)`);
  const declared = loaded.profile.capabilities.clockSandboxes?.length ?? 0;
  if (declared > 0) io.err(`token-conformance run: note: --start-reference ignores the profile's ${declared} clock sandbox(es) (capabilities.clockSandboxes): the time-travel checks use the clock servers it starts (--clock-servers)`);
  if (servers.production) io.out(`token-conformance run: production reference server listening at ${servers.production.listening.authUrlUs} (issues credentials.tokens.otherEnvironment)`);
  if (servers.otherEnvironmentProblem) io.err(`token-conformance run: no access token of the other environment (BEARER-015 will be SKIPPED): ${servers.otherEnvironmentProblem}`);
  return { target: onServer(servers.server.listening), servers, onServer, ...(clockServers ? { clockServers } : {}) };
}

/** The clock servers' (or the declared clock sandboxes') worker profiles and the clock targets' file naming them; undefined when the run has none. */
async function writeClockTargetProfiles(options: RunOptions, started: StartedTarget, temp: string, io: PhaseIo): Promise<string | undefined | Exit> {
  const sandboxes = options.checkProfile ? [] : clockSandboxesOfRun(options, started.target);
  if (sandboxes.length > 0) {
    const profiles = sandboxes.map((s, i) => {
      const dir = join(temp, `clock-target-${i}`);
      mkdirSync(dir, { recursive: true });
      return writeWorkerProfile(toWorkerProfile(clockSandboxProfile(started.target, s)).profile, dir);
    });
    io.out(`token-conformance run: ${sandboxes.length} clock sandbox(es) of the profile for the time-travel checks, one worker each`);
    return writeClockTargets(temp, profiles);
  }
  if (!started.clockServers || !started.onServer) return undefined;
  let clockServers: ReferenceServer[];
  try {
    clockServers = await started.clockServers;
  } catch (error) {
    if (error instanceof ReferenceStartError) return io.fail(`a reference server for the time-travel checks: ${error.message} (--clock-servers 0 runs them on the one server)`);
    throw error;
  }
  const profiles = clockServers.map((s, i) => writeWorkerProfile(toWorkerProfile(started.onServer!(s.listening)).profile, join(temp, `clock-target-${i}`)));
  io.out(`token-conformance run: ${clockServers.length} more reference server(s) for the time-travel checks, a clock of their own each`);
  return writeClockTargets(temp, profiles);
}

/** Every address of the profile answers, and every clock sandbox the run will use (exit 2 naming the field, or the sandbox, when one does not). */
async function checkTargetAnswers(options: RunOptions, target: LoadedProfile, io: PhaseIo): Promise<undefined | Exit> {
  const profile = target.profile;
  const [unreachable, sandboxes] = await Promise.all([checkReachability(profile), checkClockSandboxesAnswer(options, target)]);
  if (unreachable.length === 0 && sandboxes.length === 0) return undefined;
  // A sandbox that does not answer: one line each, naming it.
  for (const line of sandboxes) io.err(`token-conformance run: setup problem: ${line}; nothing was run.`);
  if (unreachable.length === 0) return new Exit(2);
  for (const u of unreachable) io.err(`token-conformance run: ${u.field} ${u.url} is not reachable: ${u.problem}`);
  io.err(`token-conformance run: setup problem: ${unreachableProblem(unreachable)}; nothing was run.`);
  // The bundled server's profile names addresses of a server nobody started.
  if (!options.startReference && profile.name === 'reference') io.err('token-conformance run: hint: this is the bundled reference server\'s profile; add --start-reference to start one for the run (or start one yourself with `token-conformance serve --test-controls`)');
  return new Exit(2);
}

/** The declared clock sandboxes (capabilities.clockSandboxes) this run uses. */
function clockSandboxesOfRun(options: RunOptions, target: LoadedProfile) {
  // --start-reference starts clock servers of its own; a run without the time-travel pass uses none
  // (but --check-profile checks that they answer).
  if (options.startReference) return [];
  if (!(options.passes ?? allPasses).includes('time-travel') && !options.checkProfile) return [];
  return target.profile.capabilities.clockSandboxes ?? [];
}

/** One line per declared clock sandbox that does not answer at one of its addresses (reachability.ts, the target's rules). */
async function checkClockSandboxesAnswer(options: RunOptions, target: LoadedProfile): Promise<string[]> {
  const sandboxes = clockSandboxesOfRun(options, target);
  const answers = await Promise.all(sandboxes.map((s) => checkReachability(clockSandboxProfile(target, s).profile)));
  return answers.flatMap((unreachable, i) => unreachable.length === 0 ? [] : [
    `clock sandbox ${clockSandboxLabel(sandboxes[i]!, i)} does not answer: ${unreachable.map((u) => `${u.field} ${u.url} ${u.problem}`).join('; ')} — start it or remove it from the profile`,
  ]);
}

/**
 * Self-diagnosis (preflight.ts): a profile that does not fit the target is one line, not a wall of
 * FAILs. `--check-profile` ends here (exit 0).
 */
async function preflightTarget(options: RunOptions, target: LoadedProfile, io: PhaseIo): Promise<PreflightResult | Exit> {
  const preflight = await runPreflight({ profile: target.profile, secrets: target.secrets });
  for (const note of preflight.notes) io.err(`token-conformance run: note: ${note}`);
  const profileErrors = preflight.profileErrors ?? [];
  for (const e of profileErrors) io.err(`token-conformance run: ${profileErrorLine(e)}`);
  if (options.checkProfile && profileErrors.length > 0) {
    io.err(`token-conformance run: setup problem: the target refused ${profileErrors.length} credential(s) of the profile (above); fix them and check again. No check was run (--check-profile).`);
    return new Exit(2);
  }
  if (profileErrors.length > 0) io.err(`token-conformance run: the checks that need ${profileErrors.length === 1 ? 'this credential' : 'these credentials'} are BLOCKED by the profile (not FAILs of the target); the report opens with ${profileErrors.length === 1 ? 'it' : 'them'}.`);
  if (preflight.problem !== undefined) {
    if (!options.skipPreflight) {
      io.err(`token-conformance run: setup problem: ${preflight.problem}; nothing was run (--skip-preflight judges the target anyway).`);
      return new Exit(2);
    }
    io.err(`token-conformance run: preflight (skipped on request): ${preflight.problem}`);
  }
  if (options.checkProfile) {
    io.out(`token-conformance run: profile ${options.target} is valid, every address answers and the preflight found no setup problem; no check was run (--check-profile).`);
    return new Exit(0);
  }
  return preflight;
}

/**
 * Clients the target refuses or has locked out are not used in the run: the workers share the
 * locks (client-locks.ts), the preflight's first, then any a check's setup runs into.
 */
function lockRefusedClients(preflight: PreflightResult, temp: string): { dir: string; locks: ClientLocks } {
  const dir = join(temp, 'client-locks');
  const locks = new ClientLocks(dir);
  for (const c of preflight.refusedClients ?? []) {
    locks.lock({
      key: `${c.region}:${c.client}`, client: c.client, region: c.region, kind: c.answer.status === 429 ? '429' : 'invalid_client',
      ...(c.answer.retryAfter !== undefined ? { retryAfter: c.answer.retryAfter } : {}),
      response: `HTTP ${c.answer.status}${c.answer.error ? ` ${c.answer.error}` : ''}`, check: 'the preflight', at: new Date().toISOString(),
    });
  }
  for (const e of preflight.profileErrors ?? []) {
    locks.lock({
      key: profileLockKey(e.kind, e.name), client: e.client, ...(e.kind === 'user' ? { user: e.name } : {}), region: e.region, kind: 'profile',
      field: e.field, response: e.answer, check: 'the preflight', at: new Date().toISOString(),
    });
  }
  return { dir, locks };
}

/**
 * The preflight and the region parity probes at once: a dozen token requests each, none depending
 * on the other's answers (the parity probes use no client lock), so the run waits for the slower of
 * the two instead of both. The preflight's outcome comes first: a setup problem (or
 * `--check-profile`) ends the run as before, whatever the parity probes met; `--check-profile`
 * sends no parity probe at all.
 */
async function preflightAndParity(options: RunOptions, target: LoadedProfile, temp: string, io: PhaseIo): Promise<{ preflight: PreflightResult; parityFile: string } | Exit> {
  if (options.checkProfile) {
    const preflight = await preflightTarget(options, target, io);
    if (preflight instanceof Exit) return preflight;
    return { preflight, parityFile: await measureRegionParity(target, temp) };
  }
  const [preflight, parity] = await Promise.allSettled([preflightTarget(options, target, io), measureRegionParity(target, temp)]);
  if (preflight.status === 'rejected') throw preflight.reason;
  if (preflight.value instanceof Exit) return preflight.value;
  if (parity.status === 'rejected') throw parity.reason;
  return { preflight: preflight.value, parityFile: parity.value };
}

/** Region parity (parity/): measured once here, carried into the report by the reporter; returns its file. */
async function measureRegionParity(target: LoadedProfile, temp: string): Promise<string> {
  const file = join(temp, 'region-parity.json');
  writeFileSync(file, JSON.stringify(await probeRegions({ profile: target.profile, secrets: target.secrets })));
  return file;
}

interface RunEnvironment {
  /** The environment of every Playwright child (the worker profile, secrets, reporter settings). */
  env: NodeJS.ProcessEnv;
  /** Redacts the terminal output with every secret and every token seen so far (refreshed at most twice a second). */
  redactor: () => Redactor;
  /** Playwright arguments of every pass (selection, workers, shard, spec files). */
  playwrightArgs: string[];
  reportsDir: string;
  seenTokens: string;
  temp: string;
}

/**
 * The worker profile, the reports directory emptied of the previous run's files, and the
 * environment that tells Playwright's workers and reporters about the run.
 */
/**
 * Obligations (harness/obligations/): with a state file, its lock and its due obligations, handed to
 * the workers through the environment; undefined without one.
 */
async function openObligations(options: RunOptions, loaded: LoadedProfile, profile: TargetProfile, temp: string, io: PhaseIo): Promise<StatePhase | undefined | Exit> {
  let state: StatePhase | undefined;
  try {
    state = await openStatePhase({ loaded, profile, stateFlag: options.state, runTemp: temp, seenTokensFile: join(temp, seenTokensFileName) });
  } catch (error) {
    if (error instanceof StateFileError) return io.fail(error.message);
    throw error;
  }
  for (const line of state?.lines ?? []) io.out(line);
  return state;
}

function prepareRunEnvironment(options: RunOptions, target: LoadedProfile, clockTargets: string | undefined, files: { temp: string; locks: { dir: string }; parityFile: string; extraEnv?: Record<string, string> | undefined }, io: PhaseIo): RunEnvironment {
  const { temp } = files;
  const handoff = toWorkerProfile(target);
  const profileFile = writeWorkerProfile(handoff.profile, temp);
  const seenTokens = join(temp, seenTokensFileName);
  const reportsDir = options.reportsDir;
  mkdirSync(reportsDir, { recursive: true });
  for (const stale of ['allure-results', 'transcripts', 'blob-report', 'conformance.json', 'traceability.html', 'checks.json', 'junit.xml', 'junit-time-travel.xml']) {
    rmSync(join(reportsDir, stale), { recursive: true, force: true });
  }
  const seed = options.seed ?? (options.freshSeed ? String(randomInt(0, 2 ** 31 - 1)) : undefined);
  if (options.freshSeed) io.out(`token-conformance run: property seed ${seed} (replay with --seed ${seed})`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...handoff.env,
    [profileEnvVar]: profileFile,
    [reportsDirEnvVar]: reportsDir,
    [reporterEnv.level]: options.level,
    [reporterEnv.strict]: options.strict ? '1' : '0',
    [reporterEnv.seenTokens]: seenTokens,
    [reporterEnv.regionParity]: files.parityFile,
    [reporterEnv.profileSha256]: profileSha256(options.target),
    [clientLocksEnvVar]: files.locks.dir,
    [reporterEnv.verifiedByRun]: '1',
    ...(options.grep !== undefined ? { [reporterEnv.grep]: options.grep, [reporterEnv.filtered]: '1' } : {}),
    ...(options.specs !== undefined ? { [reporterEnv.filtered]: '1' } : {}),
    // A shard marks its own report filtered (the reporter); the merge of all shards is not.
    ...(options.shard !== undefined ? { [reporterEnv.shard]: options.shard, PWTEST_BLOB_DO_NOT_REMOVE: '1' } : {}),
    ...(seed !== undefined ? { [seedEnvVar]: seed } : {}),
    ...files.extraEnv,
    [replayArgsEnvVar]: `--target ${options.target}${options.startReference ? ' --start-reference' : ''}`,
    ...(process.stdout.isTTY ? { FORCE_COLOR: '1' } : {}),
    [terminalReporterEnvVar]: options.terminalReporter === 'compact' ? (process.stdout.isTTY ? 'line' : 'null') : (options.terminalReporter ?? 'list'),
  };
  delete env[reporterEnv.mergeChecks];
  delete env[passGateEnvVar]; // each pass's reporter arms its own gate (pass-gate.ts)
  delete env[clockTargetsEnvVar];
  if (clockTargets !== undefined) env[clockTargetsEnvVar] = clockTargets;
  const redactor = () => knownSecretsRedactor(env);
  let cached = redactor();
  let lastRefresh = Date.now();
  const liveRedactor = () => {
    if (Date.now() - lastRefresh > 500) {
      cached = redactor();
      lastRefresh = Date.now();
    }
    return cached;
  };
  const grep = combinedGrep(options.level, options.grep);
  const playwrightArgs = [
    ...(grep !== undefined ? ['--grep', grep] : []),
    ...(options.workers !== undefined ? ['--workers', String(options.workers)] : []),
    ...(options.shard !== undefined ? ['--shard', options.shard] : []),
    ...(options.maxFailures !== undefined ? ['--max-failures', String(options.maxFailures)] : []),
    ...(options.specs ?? []),
  ];
  return { env, redactor: liveRedactor, playwrightArgs, reportsDir, seenTokens, temp };
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
async function runChecks(options: RunOptions, run: RunEnvironment, io: PhaseIo): Promise<number> {
  return runPlaywright([...run.playwrightArgs, ...projectsArgs(options.passes ?? allPasses)], run.env, run.redactor, io);
}

/**
 * Opt-in: keep the list of tokens the run saw (it lives in the temporary directory), e.g. for a
 * test that searches the reference server's log for every one of them.
 */
function keepSeenTokens(seenTokens: string): void {
  const keepSeen = process.env[keepSeenTokensEnvVar];
  if (keepSeen && existsSync(seenTokens)) copyFileSync(seenTokens, keepSeen);
}

/** The verdict: the report (with the waivers applied), the clients the run stopped using, the exit code. */
function judgeRun(options: RunOptions, reportsDir: string, waivers: LoadedWaivers | undefined, locks: { locks: ClientLocks }, playwrightCode: number, io: PhaseIo): number {
  let report = readJson<ConformanceReport>(join(reportsDir, 'conformance.json'));
  if (report && waivers) report = applyWaiversToRun(reportsDir, report, waivers, io.out);
  if (!report) {
    io.err(`token-conformance run: Playwright ended (code ${playwrightCode}) without a conformance report; see the output above.`);
    return 1;
  }
  const stopped = lockSummary(locks.locks.all());
  if (stopped) io.err(`token-conformance run: ${stopped}`);
  const selection = emptySelection(options, report.checks.total);
  if (selection) return io.fail(`no check matches the selection (${selection}): nothing was verified`).code;
  return exitCodeFor(report.verdict, options.strict);
}
