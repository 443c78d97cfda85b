// `npx token-conformance run --target FILE`: validate the profile, (optionally) start the bundled
// reference server, check that every address answers, then run Playwright Test as a child process
// and judge. Exit codes: 0 conformant (WARNs allowed unless --strict), 1 any FAIL (or WARN with
// --strict), 2 a bad profile, bad arguments or an unreachable target — before anything runs.
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReferenceServer, ReferenceServers } from '../reference/start-reference.ts';
import type { RestartControl } from '../reference/restart-control.ts';
import { PhaseTimes } from './phase-times.ts';
import { renderProjectTimes } from './project-times.ts';
import { endOfRunRedaction } from '../../core/redaction/end-of-run.ts';
import type { StatePhase } from '../obligations/state-phase.ts';
import { Exit, heldIo, processIo, type PhaseIo, type RunIo } from './run/phase-io.ts';
import { prepareSelection } from './run/selection.phase.ts';
import { checkTargetAnswers, startTarget, writeClockTargetProfiles } from './run/target.phase.ts';
import { lockRefusedClients, preflightAndParity } from './run/preflight.phase.ts';
import { openObligations, prepareRunEnvironment } from './run/environment.phase.ts';
import { runChecks, judgeRun } from './run/checks.phase.ts';

export {
  combinedGrep,
  defaultClockServers,
  emptySelection,
  parseRunArgs,
  projectsArgs,
  type Pass,
  type RunOptions,
  type TerminalReporter,
} from './run/options.ts';
export type { RunIo } from './run/phase-io.ts';

/**
 * `token-conformance run`: a sequence of named phases, each a function of what the ones before it
 * produced. The phases up to the target's start only read (a usage mistake never costs the
 * previous run's reports); from there on a temporary directory holds the run's private files and
 * the started servers, both removed at the end, also on Ctrl-C. `--timings` prints each phase's
 * wall time.
 */
export async function runMain(args: string[], io: RunIo = processIo): Promise<number> {
  const phaseIo: PhaseIo = {
    ...io,
    fail: (message) => {
      io.err(`token-conformance run: ${message}`);
      return new Exit(2);
    },
  };
  const times = new PhaseTimes();
  const setup = await times.time('profile', () => prepareSelection(args, phaseIo));
  if (setup instanceof Exit) return setup.code;
  const { options, loaded, waivers } = setup;
  // The run's overall deadline counts from here: the target's start, the preflight and the checks all spend it.
  const deadlineAt = Date.now() + options.deadlineMinutes * 60_000;

  const temp = mkdtempSync(join(tmpdir(), 'token-conformance-'));
  let servers: ReferenceServers | undefined;
  let clockServers: Promise<ReferenceServer[]> | undefined;
  let restartControl: RestartControl | undefined;
  let obligations: StatePhase | undefined;
  let checksRan = false;
  const stopServers = async () => {
    const clocks = await clockServers?.catch(() => []);
    clockServers = undefined;
    await Promise.all([servers?.stop(), ...(clocks ?? []).map((c) => c.stop()), restartControl?.close()]);
    servers = undefined;
    restartControl = undefined;
  };
  const onSignal = () => void stopServers().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const started = await times.time('reference start', () => startTarget(options, loaded, temp, phaseIo));
    if (started instanceof Exit) return started.code;
    servers = started.servers;
    clockServers = started.clockServers;
    restartControl = started.restartControl;
    const target = started.target;
    // The preflight and the region parity start with the reachability probes: against a distant
    // target each phase is a few round trips, and neither needs the other's answers. Their lines wait
    // for reachability's verdict; a target that does not answer reads as that alone, their requests
    // given up.
    const probes = heldIo(phaseIo);
    const giveUpProbes = new AbortController();
    const probing = preflightAndParity(options, target, temp, probes.io, giveUpProbes.signal);
    // Awaited on every path below; a failure before then is not an unhandled one meanwhile.
    probing.catch(() => undefined);
    const settleProbes = async () => {
      giveUpProbes.abort();
      await probing.catch(() => undefined);
    };
    const reachable = await times
      .time('reachability', () => checkTargetAnswers(options, target, phaseIo))
      .catch(async (error: unknown) => {
        await settleProbes();
        throw error;
      });
    if (reachable instanceof Exit) {
      await settleProbes();
      return reachable.code;
    }
    probes.release();
    const probed = await times.time('preflight and region parity', () => probing);
    if (probed instanceof Exit) return probed.code;
    const { preflight, parityFile } = probed;
    const locks = lockRefusedClients(preflight, temp);
    const clockTargets = await times.time('clock targets', () =>
      writeClockTargetProfiles(options, started, temp, phaseIo),
    );
    if (clockTargets instanceof Exit) return clockTargets.code;
    const opened = await times.time('obligations', () =>
      openObligations(options, loaded, target.profile, temp, phaseIo),
    );
    if (opened instanceof Exit) return opened.code;
    obligations = opened;
    const run = prepareRunEnvironment(
      options,
      target,
      clockTargets,
      {
        temp,
        locks,
        parityFile,
        obligations,
        ...(reachable.roundTripMs !== undefined && { roundTripMs: reachable.roundTripMs }),
        ...(reachable.idleCores !== undefined && { idleCores: reachable.idleCores }),
      },
      phaseIo,
    );
    const playwrightCode = await times.time('checks', () => runChecks(options, run, phaseIo, deadlineAt));
    checksRan = true;
    // The state file is written only after a run that produced its report (never by a failed run).
    if (existsSync(join(run.reportsDir, 'conformance.json')))
      for (const line of obligations?.finish(true) ?? []) io.out(line);
    await times.time('server stop', stopServers);
    if (options.keepSeenTokens !== undefined && existsSync(run.seenTokens))
      copyFileSync(run.seenTokens, options.keepSeenTokens);
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
    if (options.timings) {
      io.err(`token-conformance run: ${times.render()}`);
      // checks.json of this run only: one left by an earlier run is removed before the checks start.
      const projects = checksRan ? renderProjectTimes(options.reportsDir) : undefined;
      if (projects !== undefined) io.err(`token-conformance run: ${projects}`);
    }
  }
}
