// The self-diagnosis phase of `run`: the preflight, the clients it found refused, the region parity.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadedProfile } from '../../../core/profile/load-profile.ts';
import { profileErrorLine, runPreflight } from '../../preflight/preflight.ts';
import { tokenPoster } from '../../preflight/token-post.ts';
import { probeRegions } from '../../parity/probe-regions.ts';
import type { PreflightResult } from '../../preflight/preflight.ts';
import { ClientLocks, profileLockKey } from '../../../core/run/client-locks.ts';
import type { RunOptions } from './options.ts';
import { Exit, type PhaseIo } from './phase-io.ts';

/**
 * Self-diagnosis (preflight.ts): a profile that does not fit the target is one line, not a wall of
 * FAILs. `--check-profile` ends here (exit 0).
 */
export async function preflightTarget(
  options: RunOptions,
  target: LoadedProfile,
  io: PhaseIo,
  cancel?: AbortSignal,
): Promise<PreflightResult | Exit> {
  const preflight = await runPreflight(
    { profile: target.profile, secrets: target.secrets },
    tokenPoster(target.profile, undefined, cancel),
  );
  for (const note of preflight.notes) io.err(`token-conformance run: note: ${note}`);
  const profileErrors = preflight.profileErrors ?? [];
  for (const e of profileErrors) io.err(`token-conformance run: ${profileErrorLine(e)}`);
  if (options.checkProfile && profileErrors.length > 0) {
    io.err(
      `token-conformance run: setup problem: the target refused ${profileErrors.length} credential(s) of the profile (above); fix them and check again. No check was run (--check-profile).`,
    );
    return new Exit(2);
  }
  if (profileErrors.length > 0)
    io.err(
      `token-conformance run: the checks that need ${profileErrors.length === 1 ? 'this credential' : 'these credentials'} are BLOCKED by the profile (not FAILs of the target); the report opens with ${profileErrors.length === 1 ? 'it' : 'them'}.`,
    );
  if (preflight.problem !== undefined) {
    if (!options.skipPreflight) {
      io.err(
        `token-conformance run: setup problem: ${preflight.problem}; nothing was run (--skip-preflight judges the target anyway).`,
      );
      return new Exit(2);
    }
    io.err(`token-conformance run: preflight (skipped on request): ${preflight.problem}`);
  }
  if (options.checkProfile) {
    io.out(
      `token-conformance run: profile ${options.target} is valid, every address answers and the preflight found no setup problem; no check was run (--check-profile).`,
    );
    return new Exit(0);
  }
  return preflight;
}

/**
 * Clients the target refuses or has locked out are not used in the run: the workers share the
 * locks (client-locks.ts), the preflight's first, then any a check's setup runs into.
 */
export function lockRefusedClients(preflight: PreflightResult, temp: string): { dir: string; locks: ClientLocks } {
  const dir = join(temp, 'client-locks');
  const locks = new ClientLocks(dir);
  for (const c of preflight.refusedClients ?? []) {
    locks.lock({
      key: `${c.region}:${c.client}`,
      client: c.client,
      region: c.region,
      kind: c.answer.status === 429 ? '429' : 'invalid_client',
      ...(c.answer.retryAfter !== undefined ? { retryAfter: c.answer.retryAfter } : {}),
      response: `HTTP ${c.answer.status}${c.answer.error ? ` ${c.answer.error}` : ''}`,
      check: 'the preflight',
      at: new Date().toISOString(),
    });
  }
  for (const e of preflight.profileErrors ?? []) {
    locks.lock({
      key: profileLockKey(e.kind, e.name),
      client: e.client,
      ...(e.kind === 'user' ? { user: e.name } : {}),
      region: e.region,
      kind: 'profile',
      field: e.field,
      response: e.answer,
      check: 'the preflight',
      at: new Date().toISOString(),
    });
  }
  return { dir, locks };
}

/**
 * The preflight and the region parity probes at once: a dozen token requests each, none depending
 * on the other's answers (the parity probes use no client lock), so the run waits for the slower of
 * the two instead of both. The preflight's outcome comes first: a setup problem (or
 * `--check-profile`) ends the run, whatever the parity probes met; `--check-profile` sends no
 * parity probe at all.
 */
export async function preflightAndParity(
  options: RunOptions,
  target: LoadedProfile,
  temp: string,
  io: PhaseIo,
  cancel?: AbortSignal,
): Promise<{ preflight: PreflightResult; parityFile: string } | Exit> {
  if (options.checkProfile) {
    const preflight = await preflightTarget(options, target, io, cancel);
    if (preflight instanceof Exit) return preflight;
    return { preflight, parityFile: await measureRegionParity(target, temp, cancel) };
  }
  const [preflight, parity] = await Promise.allSettled([
    preflightTarget(options, target, io, cancel),
    measureRegionParity(target, temp, cancel),
  ]);
  if (preflight.status === 'rejected') throw preflight.reason;
  if (preflight.value instanceof Exit) return preflight.value;
  if (parity.status === 'rejected') throw parity.reason;
  return { preflight: preflight.value, parityFile: parity.value };
}

/** Region parity (parity/): measured once here, carried into the report by the reporter; returns its file. */
async function measureRegionParity(target: LoadedProfile, temp: string, cancel?: AbortSignal): Promise<string> {
  const file = join(temp, 'region-parity.json');
  const parity = await probeRegions(
    { profile: target.profile, secrets: target.secrets },
    tokenPoster(target.profile, undefined, cancel),
  );
  writeFileSync(file, JSON.stringify(parity));
  return file;
}
