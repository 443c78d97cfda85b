// The order of the two projects of playwright.config.ts without a project dependency (a
// dependency would make `npx playwright test specs/<folder>` run the whole conformance project
// first, unfiltered). The run manifest names the gate's file (`passGate`, in the run's private
// directory); the conformance reporter arms the gate in onBegin and opens it (writes the file) once every selected check of the conformance project has ended, at once when none is
// selected. Each time-travel worker waits for it before its first check, so that no clock or fault
// is moved beside another check. `run` relies on it too (one invocation with both projects; a
// run of the time-travel project alone finds the gate open from the start). Without the conformance reporter (a `--reporter` that replaces the
// configured ones) the gate is not armed and nothing waits: select one project (`--project`).
import { existsSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** The project that waits for the gate. */
export const serialProject = 'time-travel';

export function openGate(file: string | undefined): void {
  if (file && !existsSync(file)) writeFileSync(file, `${new Date().toISOString()}\n`, { mode: 0o600 });
}

/**
 * Waits until the gate is open. No gate file named: nothing to wait for (the caller ordered the
 * projects itself). Throws after `timeoutMs`.
 */
export async function waitForGate(file: string | undefined, timeoutMs: number, pollMs = 200): Promise<void> {
  if (!file) return;
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > deadline)
      throw new Error(
        `the conformance project did not end within ${Math.round(timeoutMs / 1000)} s: the ${serialProject} checks did not start`,
      );
    await sleep(pollMs);
  }
}

/** Counts the selected checks of the conformance project down to zero, then opens the gate. */
export class PassGate {
  private readonly pending = new Set<string>();

  constructor(
    private readonly file: string | undefined,
    conformanceTestIds: Iterable<string>,
  ) {
    for (const id of conformanceTestIds) this.pending.add(id);
    if (this.pending.size === 0) openGate(this.file);
  }

  /** A check ended for good (no retry follows). */
  ended(testId: string): void {
    if (!this.pending.delete(testId)) return;
    if (this.pending.size === 0) openGate(this.file);
  }

  /** The run ends (interrupted or not): nothing is left to wait for. */
  close(): void {
    openGate(this.file);
  }
}
