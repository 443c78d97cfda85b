// The state phase of `run`: before the checks, take the state file's lock, open it,
// split its obligations into due ones (each becomes a settling check) and waiting ones, and hand
// them to the workers (run-exchange.ts); after a completed run, fold the settlements and the new
// obligations into the state file (atomically). A run that did not complete leaves the file as it was.
import { appendFileSync, mkdirSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { Agent, request } from 'undici';
import { trustingConnectOptions } from '../../core/tls/trust.ts';
import type { LoadedProfile } from '../../core/profile/load-profile.ts';
import type { TargetProfile } from '../../core/profile/profile.schema.ts';
import { dueIso, isDue, type Obligation } from '../../core/obligations/obligation.ts';
import {
  collectRecorded,
  collectSettlements,
  newRunKey,
  obligationsKeyEnvVar,
  prepareRunDir,
  summary,
} from '../../core/obligations/run-exchange.ts';
import { lockState, readState, StateFileError, writeState, type StateContent } from './state-file.ts';

export { StateFileError } from './state-file.ts';

export interface StatePhase {
  /** The obligations' hand-over directory (the run manifest's `obligationsDir`). */
  dir: string;
  /** Environment for the Playwright workers: the run's key (a secret). */
  env: Record<string, string>;
  /** Lines for the terminal at the start. */
  lines: string[];
  /** After the run: writes the new state when the run completed; returns the closing lines (once; later calls return none). */
  finish(completed: boolean): string[];
  /** Releases the lock (always, in a finally). */
  release(): void;
}

/** The state file of the run: `--state FILE` wins over the profile's `state.file` (relative to the profile). */
export function stateFileOf(loaded: LoadedProfile, flag: string | undefined): string | undefined {
  if (flag !== undefined) return resolve(flag);
  const f = loaded.profile.state?.file;
  if (f === undefined) return undefined;
  return isAbsolute(f) ? f : resolve(dirname(resolve(loaded.file)), f);
}

/** The target's clock by the Date header of one request to its token server (the local clock without one). */
async function targetNow(
  profile: TargetProfile,
): Promise<{ now: number; local: number; clock: 'target-date' | 'local' }> {
  const url = profile.authUrlUs ?? profile.baseUrl ?? profile.authUrlEu;
  const local = Date.now();
  if (!url) return { now: local, local, clock: 'local' };
  const ca = profile.caFile ? readFileSync(profile.caFile, 'utf8') : undefined;
  const agent = new Agent({ connect: trustingConnectOptions(ca, 5000), headersTimeout: 5000, bodyTimeout: 5000 });
  try {
    const res = await request(url, { method: 'GET', dispatcher: agent, signal: AbortSignal.timeout(5000) });
    await res.body.dump();
    const date = res.headers.date;
    const parsed = typeof date === 'string' ? Date.parse(date) : Number.NaN;
    return Number.isNaN(parsed)
      ? { now: local, local, clock: 'local' }
      : { now: parsed, local: Date.now(), clock: 'target-date' };
  } catch {
    return { now: local, local, clock: 'local' };
  } finally {
    await agent.close();
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Opens the state for a run, or undefined when the run keeps none. Throws StateFileError (a setup
 * error, exit 2) for a missing or wrong key, a damaged or foreign file, or a file another run holds.
 */
export async function openStatePhase(options: {
  loaded: LoadedProfile;
  profile: TargetProfile;
  stateFlag: string | undefined;
  runTemp: string;
  seenTokensFile: string;
}): Promise<StatePhase | undefined> {
  const file = stateFileOf(options.loaded, options.stateFlag);
  if (file === undefined) return undefined;
  const keyEnv = options.loaded.profile.state?.key.env;
  if (keyEnv === undefined)
    throw new StateFileError(
      `--state ${file}: the profile names no key (add "state": {"key": {"env": "VARIABLE"}}; the variable holds the secret the state file is encrypted with)`,
    );
  const secret = process.env[keyEnv];
  if (secret === undefined || secret.length < 16) {
    throw new StateFileError(
      `state file ${file}: environment variable ${keyEnv} (the profile's state.key) is ${secret === undefined || secret === '' ? 'not set' : 'shorter than 16 characters'}; set it to the state's key (e.g. \`openssl rand -base64 32\`); nothing was run and no obligation was lost`,
    );
  }
  mkdirSync(dirname(file), { recursive: true });
  const lock = lockState(file);
  try {
    const state: StateContent = readState(file, secret, keyEnv, options.profile.name);
    const clock = await targetNow(options.profile);
    const runId = `${new Date(clock.local).toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
    const nowOn = (o: Obligation) =>
      o.clock === 'target-date' && clock.clock === 'target-date' ? clock.now : clock.local;
    const due = state.obligations.filter((o) => isDue(o, nowOn(o)));
    const waiting = state.obligations.filter((o) => !isDue(o, nowOn(o)));
    const key = newRunKey();
    const dir = join(options.runTemp, 'obligations');
    prepareRunDir(dir, key, {
      runId,
      fingerprintSalt: state.fingerprintSalt,
      targetNowAtStart: clock.now,
      localAtStart: clock.local,
      due,
      waiting: waiting.map(summary),
    });
    // The credentials to settle are live secrets of this run: the reporter's redaction knows them
    // like every token the run sees (the list lives in the run's private temporary directory).
    for (const o of due)
      appendFileSync(
        options.seenTokensFile,
        `${[o.credential, ...(o.control ? [o.control] : [])].map((c) => c.value).join('\n')}\n`,
        { mode: 0o600 },
      );
    let finished = false;
    const next = waiting.map((o) => o.notBefore).sort((a, b) => a - b)[0];
    const lines = [
      `token-conformance run: state ${file}: ${plural(state.obligations.length, 'open obligation')}, ${due.length} due now${waiting.length > 0 ? `, ${waiting.length} pending (next due ${new Date(next!).toISOString()})` : ''}${lock.note ? ` (${lock.note})` : ''}`,
      ...(clock.clock === 'local'
        ? ['token-conformance run: the target sends no Date header: obligations are timed on the local clock']
        : []),
    ];
    return {
      dir,
      env: { [obligationsKeyEnvVar]: key.toString('base64') },
      lines,
      finish(completed) {
        if (finished) return [];
        finished = true;
        if (!completed)
          return [
            `token-conformance run: the run did not complete; state file ${file} left as it was (${plural(state.obligations.length, 'obligation')})`,
          ];
        const settled = collectSettlements(dir);
        const recorded = collectRecorded(dir, key);
        const settledIds = new Set(settled.map((s) => s.obligation));
        const kept = state.obligations.filter((o) => !settledIds.has(o.id));
        const obligations = [...kept, ...recorded];
        writeState(file, secret, { ...state, obligations, lastRun: { id: runId, at: new Date().toISOString() } });
        const count = (outcome: string) => settled.filter((s) => s.outcome === outcome).length;
        const nextDue = [...obligations].sort((a, b) => a.notBefore - b.notBefore)[0];
        return [
          `token-conformance run: state ${file} written: ${settled.length} settled (${count('PASS')} PASS, ${count('FAIL')} FAIL, ${count('VOID')} VOID), ${recorded.length} recorded, ${plural(obligations.length, 'open obligation')}${nextDue ? ` (next due ${dueIso(nextDue)})` : ''}`,
        ];
      },
      release: lock.release,
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}
