// The target's phases of `run`: starting the reference servers (`--start-reference`), the clock
// targets of the time-travel checks, and checking that every address answers.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadedProfile } from '../../../core/profile/load-profile.ts';
import {
  toWorkerProfile,
  withOtherEnvironmentToken,
  writeWorkerProfile,
} from '../../../core/profile/worker-profile.ts';
import { checkReachability, unreachableProblem } from '../../reference/reachability.ts';
import { measureRoundTripMs } from '../../reference/round-trip.ts';
import { startIdleSample } from '../../reference/idle-cores.ts';
import { distantRoundTripMs } from '../../../core/run/check-workers.ts';
import { clockSandboxLabel, clockSandboxProfile } from '../../../core/profile/clock-sandboxes.ts';
import {
  applyListening,
  ReferenceStartError,
  startClockServers,
  startReferenceServers,
  type ListeningLine,
  type ReferenceServer,
  type ReferenceServers,
} from '../../reference/start-reference.ts';
import { writeClockTargets } from '../../../core/run/clock-targets.ts';
import { startRestartControl, type RestartControl } from '../../reference/restart-control.ts';
import { runSeedHashCache } from '../../reference/run-seed-hash-cache.ts';
import { allPasses, defaultClockServers, type RunOptions } from './options.ts';
import { Exit, type PhaseIo } from './phase-io.ts';

export interface StartedTarget {
  /** The profile the checks run against (with `--start-reference`: the started server's addresses and the other environment's token). */
  target: LoadedProfile;
  servers?: ReferenceServers;
  /** Servers for the time-travel checks alone (clock-targets.ts), still starting while the phases after this one run. */
  clockServers?: Promise<ReferenceServer[]>;
  /** The started server's profile transformation, for the clock servers. */
  onServer?: (l: ListeningLine, restartControlUrl?: string) => LoadedProfile;
  /** The restart control of the started servers (capabilities.restartControlUrl of each one's profile). */
  restartControl?: RestartControl;
}

/**
 * `--start-reference`: the bundled sandbox server and a production one (for the other
 * environment's token), concurrently; the profile then names their addresses. Once they listen,
 * the clock servers start (in the background, while reachability, preflight and region parity
 * run; only then, so that a loaded machine never starts all the servers at once, which it pays in
 * start time).
 * Without `--start-reference` the profile's own target, untouched.
 */
export async function startTarget(
  options: RunOptions,
  loaded: LoadedProfile,
  temp: string,
  io: PhaseIo,
): Promise<StartedTarget | Exit> {
  if (!options.startReference) return { target: loaded };
  const cacheFile = runSeedHashCache();
  const seedHashCache = {
    ...(cacheFile !== undefined ? { seedHashCache: cacheFile } : {}),
    ...(options.referenceLog !== undefined ? { logTee: options.referenceLog } : {}),
  };
  // A run without the time-travel pass needs no clock of its own; `--check-profile` runs no check at all.
  const count =
    (options.passes ?? allPasses).includes('time-travel') && !options.checkProfile
      ? (options.clockServers ?? defaultClockServers)
      : 0;
  // The servers the time-travel checks run on (the clock servers, else the sandbox) keep their
  // store in a file of the run's temporary directory: the restart control (STATE-RT-USED-003)
  // restarts them without losing what they issued. The others keep theirs in memory.
  const restartControl = await startRestartControl();
  let servers: ReferenceServers;
  try {
    servers = await startReferenceServers({
      logDir: temp,
      profile: loaded.profile,
      ...(count === 0 ? { sandboxDataFile: join(temp, 'reference-sandbox.sqlite') } : {}),
      ...seedHashCache,
    });
  } catch (error) {
    await restartControl.close();
    if (error instanceof ReferenceStartError) return io.fail(error.message);
    throw error;
  }
  const clockServers =
    count > 0
      ? startClockServers(count, { logDir: temp, profile: loaded.profile, restartable: true, ...seedHashCache })
      : undefined;
  // Settled later (writeClockTargetProfiles); never an unhandled rejection meanwhile.
  clockServers?.catch(() => undefined);
  const onServer = (l: ListeningLine, restartControlUrl?: string): LoadedProfile => {
    const withServer = { ...loaded, profile: applyListening(loaded.profile, l, restartControlUrl) };
    return servers.otherEnvironmentToken !== undefined
      ? withOtherEnvironmentToken(withServer, servers.otherEnvironmentToken)
      : withServer;
  };
  io.out(
    `token-conformance run: reference server listening at ${servers.server.listening.authUrlUs} (test controls on)`,
  );
  const declared = loaded.profile.capabilities.clockSandboxes?.length ?? 0;
  if (declared > 0)
    io.err(
      `token-conformance run: note: --start-reference ignores the profile's ${declared} clock sandbox(es) (capabilities.clockSandboxes): the time-travel checks use the clock servers it starts (--clock-servers)`,
    );
  if (servers.production)
    io.out(
      `token-conformance run: production reference server listening at ${servers.production.listening.authUrlUs} (issues credentials.tokens.otherEnvironment)`,
    );
  if (servers.otherEnvironmentProblem)
    io.err(
      `token-conformance run: no access token of the other environment (BEARER-015 will be SKIPPED): ${servers.otherEnvironmentProblem}`,
    );
  const target = onServer(
    servers.server.listening,
    count === 0 ? restartControl.register('sandbox', servers.server) : undefined,
  );
  return { target, servers, onServer, restartControl, ...(clockServers ? { clockServers } : {}) };
}

/** The clock servers' (or the declared clock sandboxes') worker profiles and the clock targets' file naming them; undefined when the run has none. */
export async function writeClockTargetProfiles(
  options: RunOptions,
  started: StartedTarget,
  temp: string,
  io: PhaseIo,
): Promise<string | undefined | Exit> {
  const sandboxes = options.checkProfile ? [] : clockSandboxesOfRun(options, started.target);
  if (sandboxes.length > 0) {
    const profiles = sandboxes.map((s, i) => {
      const dir = join(temp, `clock-target-${i}`);
      mkdirSync(dir, { recursive: true });
      return writeWorkerProfile(toWorkerProfile(clockSandboxProfile(started.target, s)).profile, dir);
    });
    io.out(
      `token-conformance run: ${sandboxes.length} clock sandbox(es) of the profile for the time-travel checks, one worker each`,
    );
    return writeClockTargets(temp, profiles);
  }
  if (!started.clockServers || !started.onServer) return undefined;
  let clockServers: ReferenceServer[];
  try {
    clockServers = await started.clockServers;
  } catch (error) {
    if (error instanceof ReferenceStartError)
      return io.fail(
        `a reference server for the time-travel checks: ${error.message} (--clock-servers 0 runs them on the one server)`,
      );
    throw error;
  }
  const restartUrl = (s: ReferenceServer, i: number) => started.restartControl?.register(`clock-target-${i}`, s);
  const profiles = clockServers.map((s, i) =>
    writeWorkerProfile(
      toWorkerProfile(started.onServer!(s.listening, restartUrl(s, i))).profile,
      join(temp, `clock-target-${i}`),
    ),
  );
  io.out(
    `token-conformance run: ${clockServers.length} more reference server(s) for the time-travel checks, a clock of their own each`,
  );
  return writeClockTargets(temp, profiles);
}

/** What the reachability phase measured: the round trip to the target (round-trip.ts), when it could. */
export interface TargetAnswers {
  roundTripMs?: number;
  /** Against a distant target only: the cores idle while it was probed, over a quarter second at least (idle-cores.ts). */
  idleCores?: number;
}

/** The shortest window over which a distant target's run measures the idle cores. */
const idleSampleMs = 250;

/**
 * Every address of the profile answers, and every clock sandbox the run will use (exit 2 naming the
 * field, or the sandbox, when one does not); meanwhile the round trip to the target is measured.
 */
export async function checkTargetAnswers(
  options: RunOptions,
  target: LoadedProfile,
  io: PhaseIo,
): Promise<TargetAnswers | Exit> {
  const profile = target.profile;
  // Over the probes, which wait on the network: against a distant target they outlast the window.
  const idleSample = startIdleSample();
  const [unreachable, sandboxes, roundTripMs] = await Promise.all([
    checkReachability(profile),
    checkClockSandboxesAnswer(options, target),
    measureRoundTripMs(profile),
  ]);
  if (unreachable.length === 0 && sandboxes.length === 0) {
    if (roundTripMs === undefined) return {};
    // Only a distant target's run may take more workers; a near one does not wait for the sample.
    return roundTripMs >= distantRoundTripMs
      ? { roundTripMs, idleCores: await idleSample.end(idleSampleMs) }
      : { roundTripMs };
  }
  // A sandbox that does not answer: one line each, naming it.
  for (const line of sandboxes) io.err(`token-conformance run: setup problem: ${line}; nothing was run.`);
  if (unreachable.length === 0) return new Exit(2);
  for (const u of unreachable) io.err(`token-conformance run: ${u.field} ${u.url} is not reachable: ${u.problem}`);
  io.err(`token-conformance run: setup problem: ${unreachableProblem(unreachable)}; nothing was run.`);
  // The bundled server's profile names addresses of a server nobody started.
  if (!options.startReference && profile.name === 'reference')
    io.err(
      "token-conformance run: hint: this is the bundled reference server's profile; add --start-reference to start one for the run (or start one yourself with `token-conformance serve --test-controls`)",
    );
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
  return answers.flatMap((unreachable, i) =>
    unreachable.length === 0
      ? []
      : [
          `clock sandbox ${clockSandboxLabel(sandboxes[i]!, i)} does not answer: ${unreachable.map((u) => `${u.field} ${u.url} ${u.problem}`).join('; ')} — start it or remove it from the profile`,
        ],
  );
}
