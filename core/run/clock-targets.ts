// Clocks of their own for the time-travel checks. A check that moves the target's clock or switches
// its faults (@clock/@serial) must not run beside another check of the same target, so against one
// target they run one at a time after every other check (pass-gate.ts). With `run
// --start-reference` the run also starts a few reference servers for those checks alone ("clock
// targets"): each time-travel worker claims one for its lifetime, so the time-travel checks run on
// as many workers as there are clock targets, beside the conformance checks and on a clock nobody
// else reads. A real target whose profile declares clock sandboxes (capabilities.clockSandboxes:
// further sandbox instances with clocks of their own) gets the same, one clock target per sandbox;
// one with its one clock control URL has none: its time-travel checks stay serial.
//
// `run` writes the clock targets' worker profiles and names a JSON file { profiles: [...] } in the
// run manifest (run-manifest.ts `clockTargets`); a worker claims a slot by creating its lock directory (mkdir is
// atomic), holding its pid, and removes it at teardown.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ClockTargets {
  /** One worker profile file per clock target (toWorkerProfile: secrets as environment references). */
  profiles: string[];
}

/** Writes the clock targets' file beside their profiles; returns its path (the manifest's `clockTargets`). */
export function writeClockTargets(dir: string, profiles: string[]): string {
  const file = join(dir, 'clock-targets.json');
  writeFileSync(file, `${JSON.stringify({ profiles } satisfies ClockTargets)}\n`, { mode: 0o600 });
  return file;
}

/** The clock targets of this run; undefined when there are none (the time-travel checks share the target's one clock). */
export function readClockTargets(file: string | undefined): (ClockTargets & { file: string }) | undefined {
  if (!file) return undefined;
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as ClockTargets;
  return parsed.profiles.length > 0 ? { ...parsed, file } : undefined;
}

export interface ClaimedClockTarget {
  slot: number;
  profileFile: string;
  release(): void;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Claims a clock target no other worker holds. Playwright runs at most as many time-travel workers
 * at once as there are clock targets, so one is free, or about to be (a worker that replaces a
 * failed one may start while the old one tears down): then this waits for its release. A lock left
 * by a process that no longer exists is taken over.
 */
export async function claimClockTarget(
  targets: ClockTargets & { file: string },
  timeoutMs: number,
  pollMs = 50,
): Promise<ClaimedClockTarget> {
  const locks = join(dirname(targets.file), 'clock-target-locks');
  mkdirSync(locks, { recursive: true });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const [slot, profileFile] of targets.profiles.entries()) {
      const lock = join(locks, String(slot));
      try {
        mkdirSync(lock);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const pidFile = join(lock, 'pid');
        const owner = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : undefined;
        if (owner !== undefined && owner > 0 && !alive(owner)) rmSync(lock, { recursive: true, force: true });
        continue;
      }
      writeFileSync(join(lock, 'pid'), String(process.pid));
      return { slot, profileFile, release: () => rmSync(lock, { recursive: true, force: true }) };
    }
    if (Date.now() > deadline)
      throw new Error(
        `no clock target became free within ${Math.round(timeoutMs / 1000)} s (${targets.profiles.length} for the time-travel workers)`,
      );
    await sleep(pollMs);
  }
}
