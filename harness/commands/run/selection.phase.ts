// The first phase of `run`: arguments, profile, `--last-failed`, `--list` and the waivers file.
import { join } from 'node:path';
import { loadProfile, ProfileError, type LoadedProfile } from '../../../core/profile/load-profile.ts';
import { bothGreps, lastFailedSelection, listChecks, renderList } from '../run-selection.ts';
import { loadWaivers, WaiversError, type LoadedWaivers } from '../../waivers/waivers.ts';
import { stateFileOf } from '../../obligations/state-phase.ts';
import { allPasses, combinedGrep, parseRunArgs, usage, type RunOptions } from './options.ts';
import { Exit, type PhaseIo } from './phase-io.ts';
import { projectsOfPass } from '../../../core/run/time-travel-pass.ts';

export interface Selection {
  options: RunOptions;
  loaded: LoadedProfile;
  waivers: LoadedWaivers | undefined;
}

/**
 * Arguments, profile, `--last-failed`, `--list` and the waivers file: everything that is decided
 * before anything starts. `--help`, `--list` and nothing-to-re-run end here (exit 0).
 */
export async function prepareSelection(args: string[], io: PhaseIo): Promise<Selection | Exit> {
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
  if (stateFile !== undefined)
    return io.fail(
      `the profile keeps a state file (${stateFile}) and --shard was given: they exclude each other, one unsharded run settles and records the obligations of a state file; run the shards with a profile without "state" and the obligations in one unsharded run`,
    );
  // --last-failed: the previous run's failures, read before this run removes its reports.
  if (options.lastFailed) {
    const last = lastFailedSelection(options.reportsDir);
    if (!last)
      return io.fail(`--last-failed: no previous run in ${options.reportsDir} (checks.json); run once without it`);
    if (last.failed === 0) {
      io.out(
        `token-conformance run: no check failed in the previous run (${join(options.reportsDir, 'checks.json')}); nothing to run.`,
      );
      return new Exit(0);
    }
    io.out(`token-conformance run: re-running the ${last.failed} check(s) that failed in the previous run`);
    options = {
      ...options,
      grep: bothGreps(options.grep, last.grep),
      specs: [...(options.specs ?? []), ...last.files],
    };
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
export async function listSelection(options: RunOptions, io: PhaseIo): Promise<Exit> {
  const passes = options.passes ?? allPasses;
  const grep = combinedGrep(options.level, options.grep);
  // File filters before --project, which takes every following word as a project name.
  const listArgs = [
    ...(options.specs ?? []),
    ...(grep !== undefined ? ['--grep', grep] : []),
    '--project',
    ...passes.flatMap((p) => projectsOfPass(p)),
  ];
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
