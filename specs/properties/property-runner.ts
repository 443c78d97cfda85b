// Runs a fast-check property inside a conformance check, reproducibly:
//   - the number of runs comes from the profile (capabilities.propertyRuns), never from the check;
//   - the seed is fixed per property (CI reproducible) unless TOKEN_CONFORMANCE_SEED says otherwise
//     (`run --seed N`, or `run --fresh-seed` which draws one and prints it);
//   - TOKEN_CONFORMANCE_PATH (with the seed) replays one counterexample without searching again;
//   - a failure is shrunk, and its message, an attachment and a `property` annotation (which the
//     conformance reporter copies into conformance.json) carry the seed, the path, the shrunk
//     counterexample and a one-line replay command.
import type { TestInfo } from '@playwright/test';
import fc from 'fast-check';
import type { Target } from '../../fixtures/index.ts';

export const seedEnvVar = 'TOKEN_CONFORMANCE_SEED';
export const pathEnvVar = 'TOKEN_CONFORMANCE_PATH';
/** Set by `run`: the arguments that select the same target again (e.g. `--target profiles/x.json --start-reference`). */
export const replayArgsEnvVar = 'TOKEN_CONFORMANCE_REPLAY_ARGS';
/** The annotation type the conformance reporter reads (harness/reporter/conformance.reporter.ts). */
export const propertyAnnotation = 'property';

export type PropertyBudget = 'inputs' | 'lifecycle' | 'concurrency';

/** What a property check reports about itself (JSON in the `property` annotation). */
export interface PropertyRecord {
  name: string;
  seed: number;
  runs: number;
  /** Set on failure: the shrunk counterexample's path, for TOKEN_CONFORMANCE_PATH. */
  path?: string;
  counterexample?: string;
  shrinks?: number;
  /** A one-line command that replays this property with this seed (and path). */
  replay: string;
}

/** A stable 31-bit seed from the property's name (the default: the same seed on every CI run). */
export function fixedSeed(name: string): number {
  let h = 0x811c9dc5;
  for (const ch of name) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h & 0x7fffffff;
}

export function propertySeed(name: string, env: NodeJS.ProcessEnv = process.env): number {
  const s = env[seedEnvVar];
  if (s !== undefined && /^-?\d+$/.test(s)) return Number(s) | 0;
  return fixedSeed(name);
}

/** The number of runs the profile allows for a kind of property. */
export function propertyRuns(target: Target, kind: PropertyBudget): number {
  return target.profile.capabilities.propertyRuns[kind];
}

/** The tag that selects exactly one property check (`--grep @property-<name>`). */
export const propertyTag = (name: string) => `@property-${name}`;

export function replayCommand(name: string, seed: number, path: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const args = env[replayArgsEnvVar] ?? `--target ${env.TOKEN_CONFORMANCE_TARGET ?? 'profiles/reference.json'} --start-reference`;
  const vars = [`${seedEnvVar}=${seed}`, ...(path !== undefined ? [`${pathEnvVar}=${path}`] : [])].join(' ');
  return `${vars} npx token-conformance run ${args} --grep "${propertyTag(name)}( |$)"`;
}

export interface RunPropertyOptions {
  name: string;
  testInfo: TestInfo;
  runs: number;
  /** Per-run timeout (ms) handed to fast-check: a run that hangs fails and is shrunk like any other. */
  runTimeoutMs?: number;
}

/**
 * Checks `property` with the profile's budget and the resolved seed. On failure throws an Error
 * whose first line carries the seed and path and whose body holds the shrunk counterexample and
 * the replay command; the same goes into an attachment and the `property` annotation.
 */
export async function runProperty<Ts extends unknown[]>(property: fc.IAsyncProperty<Ts>, options: RunPropertyOptions): Promise<void> {
  const { name, testInfo, runs } = options;
  const seed = propertySeed(name);
  const replayPath = process.env[pathEnvVar];
  const details = await fc.check(property, {
    seed,
    numRuns: runs,
    endOnFailure: false,
    ...(replayPath ? { path: replayPath } : {}),
    ...(options.runTimeoutMs !== undefined ? { timeout: options.runTimeoutMs } : {}),
  });
  const record: PropertyRecord = { name, seed, runs: details.numRuns, replay: replayCommand(name, seed, undefined) };
  if (!details.failed) {
    testInfo.annotations.push({ type: propertyAnnotation, description: JSON.stringify(record) });
    return;
  }
  const path = details.counterexamplePath ?? undefined;
  const counterexample = details.counterexample ? fc.stringify(details.counterexample) : '(none)';
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  const failed: PropertyRecord = {
    ...record, ...(path ? { path } : {}), counterexample, shrinks: details.numShrinks,
    replay: replayCommand(name, seed, path ?? undefined),
  };
  testInfo.annotations.push({ type: propertyAnnotation, description: JSON.stringify(failed) });
  const text = [
    `property ${name} failed after ${details.numRuns} run(s), ${details.numShrinks} shrink(s): seed=${seed} path=${path ?? '-'}`,
    '',
    `counterexample: ${counterexample}`,
    `replay: ${failed.replay}`,
    '',
    cause,
  ].join('\n');
  await testInfo.attach('property-counterexample.txt', { body: text, contentType: 'text/plain' });
  throw new Error(text);
}

/** Rejects when `promise` has not settled within `ms` (the "never a hang" invariant, per request). */
export async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Per-request deadline of the input properties. */
export const requestDeadlineMs = 5_000;
