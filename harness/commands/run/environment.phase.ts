// The hand-over phase of `run`: the obligations' state, the worker profile, the reports directory
// and the run manifest that tell Playwright's config, workers and reporters about the run.
import { randomInt } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import type { LoadedProfile } from '../../../core/profile/load-profile.ts';
import { toWorkerProfile, writeWorkerProfile } from '../../../core/profile/worker-profile.ts';
import { profileSha256 } from '../../bundle/bundle.ts';
import type { TargetProfile } from '../../../core/profile/profile.schema.ts';
import { runManifestEnvVar, writeRunManifest } from '../../../core/run/run-manifest.ts';
import {
  checkWorkers,
  distantRoundTripMs,
  lanesPay,
  moreWorkersPay,
  type WorkerSituation,
} from '../../../core/run/check-workers.ts';
import { allLanes, lanesBesideConformance, ownPrincipalLanes, sharedStateOf } from '../../../core/run/serial-lanes.ts';
import type { Redactor } from '../../../core/redaction/redact.ts';
import { knownSecretsRedactor } from '../../../core/run/run-contract.ts';
import { openStatePhase, StateFileError, type StatePhase } from '../../obligations/state-phase.ts';
import { combinedGrep, type RunOptions } from './options.ts';
import type { Exit, PhaseIo } from './phase-io.ts';

/**
 * The environment a run hands down, without a run manifest the parent process may itself have
 * been started with (a run inside a test of a run): the child's manifest is this run's alone.
 */
export function withoutRunVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const rest = { ...env };
  delete rest[runManifestEnvVar];
  return rest;
}

/** The run's file of every token the checks saw (and the due obligations' credentials), in its private temp dir. */
export const seenTokensFileName = 'seen-tokens.txt';

export interface RunEnvironment {
  /** The environment of every Playwright child (the worker profile, secrets, reporter settings). */
  env: NodeJS.ProcessEnv;
  /** Redacts the terminal output with every secret and every token seen so far (refreshed at most twice a second). */
  redactor: () => Redactor;
  /** Playwright arguments of every pass (selection, workers, shard, spec files). */
  playwrightArgs: string[];
  reportsDir: string;
  seenTokens: string;
  temp: string;
  /** The time-travel pass has the project of the lanes beside the conformance checks (playwright.config.ts). */
  besideLanes: boolean;
}

/**
 * Obligations (harness/obligations/): with a state file, its lock and its due obligations, handed to
 * the workers through the environment; undefined without one.
 */
export async function openObligations(
  options: RunOptions,
  loaded: LoadedProfile,
  profile: TargetProfile,
  temp: string,
  io: PhaseIo,
): Promise<StatePhase | undefined | Exit> {
  let state: StatePhase | undefined;
  try {
    state = await openStatePhase({
      loaded,
      profile,
      stateFlag: options.state,
      runTemp: temp,
      seenTokensFile: join(temp, seenTokensFileName),
    });
  } catch (error) {
    if (error instanceof StateFileError) return io.fail(error.message);
    throw error;
  }
  for (const line of state?.lines ?? []) io.out(line);
  return state;
}

/**
 * The conformance project's workers (core/run/check-workers.ts): `--workers`, else twice the usual
 * against a distant target while a core is idle. Undefined: the config's.
 */
function conformanceWorkers(options: RunOptions, situation: WorkerSituation, io: PhaseIo): number | undefined {
  if (options.workers !== undefined) return options.workers;
  if (situation.roundTripMs === undefined) return undefined;
  const workers = checkWorkers(situation);
  if (situation.roundTripMs >= distantRoundTripMs)
    io.out(
      moreWorkersPay(situation)
        ? `token-conformance run: round trip to the target ${situation.roundTripMs} ms: ${workers} workers, as the checks mostly wait on the network (--workers sets them)`
        : `token-conformance run: round trip to the target ${situation.roundTripMs} ms, but no core idle (${situation.idleCores.toFixed(1)} of ${availableParallelism()} idle just now): ${workers} workers, as more would cost more to start than they save (--workers sets them)`,
    );
  return workers;
}

/**
 * The time-travel checks in lanes (core/run/serial-lanes.ts): against a distant target whose serial
 * checks share nothing but principals, while a core is idle to start their workers or the target
 * is so far that their round trips outweigh the starts anyway. Returns the lanes' lock directory and
 * whether the lanes of a principal of their own run beside the conformance checks, or undefined.
 */
function serialLanesOfRun(
  target: LoadedProfile,
  clockTargets: string | undefined,
  situation: WorkerSituation,
  temp: string,
  io: PhaseIo,
): { dir: string; beside: boolean } | undefined {
  if (clockTargets !== undefined || !lanesPay(situation)) return undefined;
  if (sharedStateOf(target.profile) !== undefined) return undefined;
  const dir = join(temp, 'serial-lanes');
  mkdirSync(dir, { mode: 0o700 });
  io.out(
    `token-conformance run: the time-travel checks run in ${allLanes.length} lanes (one per principal they exhaust) beside each other: the target has no clock, fault, restart or principal control and no declared rate limit`,
  );
  const beside = lanesBesideConformance(target.profile);
  io.out(
    beside
      ? `token-conformance run: the lanes of a principal of their own (${[...ownPrincipalLanes].join(', ')}) start with the conformance checks, not after them: the profile declares capabilities.lockout '${target.profile.capabilities.lockout}'`
      : `token-conformance run: the lanes wait for the conformance checks, as their failed logins could throttle them; a target whose lockout touches only the principal named (or nothing) can say so: capabilities.lockout 'per-principal' or 'none'`,
  );
  return { dir, beside };
}

/**
 * The worker profile, the reports directory emptied of the previous run's files, and the run
 * manifest (core/run/run-manifest.ts) that tells Playwright's config, workers and reporters about
 * the run; the environment carries the manifest's name and the secrets, nothing else of ours.
 */
export function prepareRunEnvironment(
  options: RunOptions,
  target: LoadedProfile,
  clockTargets: string | undefined,
  files: {
    temp: string;
    locks: { dir: string };
    parityFile: string;
    obligations?: StatePhase | undefined;
    /** The round trip the reachability phase measured (ms): a distant target gets more workers. */
    roundTripMs?: number;
    /** The idle cores the reachability phase measured (a distant target only; else from the load average). */
    idleCores?: number;
  },
  io: PhaseIo,
): RunEnvironment {
  const { temp } = files;
  const handoff = toWorkerProfile(target);
  const profileFile = writeWorkerProfile(handoff.profile, temp);
  const seenTokens = join(temp, seenTokensFileName);
  const reportsDir = options.reportsDir;
  mkdirSync(reportsDir, { recursive: true });
  for (const stale of [
    'allure-results',
    'transcripts',
    'blob-report',
    'conformance.json',
    'traceability.html',
    'ctrf.json',
    'checks.json',
    'junit.xml',
    'junit-time-travel.xml',
  ]) {
    rmSync(join(reportsDir, stale), { recursive: true, force: true });
  }
  const seed = options.seed ?? (options.freshSeed ? String(randomInt(0, 2 ** 31 - 1)) : undefined);
  if (options.freshSeed) io.out(`token-conformance run: property seed ${seed} (replay with --seed ${seed})`);
  const situation: WorkerSituation = {
    ci: !!process.env.CI,
    ...(files.roundTripMs !== undefined ? { roundTripMs: files.roundTripMs } : {}),
    idleCores: files.idleCores ?? Math.max(0, availableParallelism() - loadavg()[0]!),
  };
  // Obligations (a state file) are recorded and settled by time-travel checks on the target's clock: no lanes.
  const lanes =
    files.obligations === undefined ? serialLanesOfRun(target, clockTargets, situation, temp, io) : undefined;
  const workers = conformanceWorkers(options, situation, io);
  const manifest = writeRunManifest(temp, {
    profile: profileFile,
    reportsDir,
    level: options.level,
    strict: options.strict,
    seenTokens,
    regionParity: files.parityFile,
    profileSha256: profileSha256(options.target),
    clientLocks: files.locks.dir,
    passGate: join(temp, 'conformance-ended'),
    verifiedByRun: true,
    deadlineMinutes: options.deadlineMinutes,
    allure: options.allure === true,
    // Playwright would start a new worker after each failed check; --max-failures counts them as failures.
    keepWorkerAfterFailedCheck: options.maxFailures === undefined,
    ...(options.grep !== undefined ? { grep: options.grep } : {}),
    // A shard marks its own report filtered (the reporter); the merge of all shards is not.
    filtered: options.grep !== undefined || options.specs !== undefined,
    ...(options.shard !== undefined ? { shard: options.shard } : {}),
    ...(seed !== undefined ? { seed: Number(seed) } : {}),
    ...(options.replayPath !== undefined ? { replayPath: options.replayPath } : {}),
    ...(files.obligations ? { obligationsDir: files.obligations.dir } : {}),
    ...(clockTargets !== undefined ? { clockTargets } : {}),
    ...(files.roundTripMs !== undefined ? { roundTripMs: files.roundTripMs } : {}),
    ...(workers !== undefined ? { checkWorkers: workers } : {}),
    ...(lanes !== undefined ? { serialLanes: lanes.dir, ...(lanes.beside ? { serialLanesBeside: true } : {}) } : {}),
    replayArgs: `--target ${options.target}${options.startReference ? ' --start-reference' : ''}`,
    terminalReporter:
      options.terminalReporter === 'compact'
        ? process.stdout.isTTY
          ? 'line'
          : 'null'
        : (options.terminalReporter ?? 'list'),
  });
  const env: NodeJS.ProcessEnv = {
    ...withoutRunVariables(process.env),
    ...handoff.env,
    ...files.obligations?.env,
    ...manifest,
    ...(options.shard !== undefined ? { PWTEST_BLOB_DO_NOT_REMOVE: '1' } : {}),
    ...(process.stdout.isTTY ? { FORCE_COLOR: '1' } : {}),
  };
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
  return {
    env,
    redactor: liveRedactor,
    playwrightArgs,
    reportsDir,
    seenTokens,
    temp,
    besideLanes: lanes?.beside === true,
  };
}
