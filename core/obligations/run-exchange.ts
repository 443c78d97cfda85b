// The hand-over between `run` and its Playwright workers for one run: a private temporary
// directory (the run manifest's `obligationsDir`) and a fresh AES-256-GCM key in the environment
// (a secret: never on disk). `run` writes the
// obligations to settle (sealed); a recording check adds one sealed file per new obligation; a
// settling check writes its settlement (no credential in it). After the run, `run` folds them
// into the state file (settle-phase.ts).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Obligation, Settlement } from './obligation.ts';
import { open, seal, type Sealed } from './sealed.ts';

export const obligationsKeyEnvVar = 'TOKEN_CONFORMANCE_OBLIGATIONS_KEY';

/** An obligation without its credential: what a recording check needs to know of the open ones. */
export type ObligationSummary = Pick<
  Obligation,
  'id' | 'check' | 'requirements' | 'what' | 'notBefore' | 'notAfter' | 'clock'
>;

export interface RunObligations {
  runId: string;
  /** Salt of the principal fingerprints (state-file.ts). */
  fingerprintSalt: string;
  /** The target's clock at the start of the run (its Date header; the local clock without one). */
  targetNowAtStart: number;
  /** Local clock at the same moment (epoch ms): the offset to the target's clock. */
  localAtStart: number;
  /** Obligations due now: each becomes a settling check. */
  due: Obligation[];
  /** Obligations not due yet: their checks report PENDING without recording another one. */
  waiting: ObligationSummary[];
}

const runAad = 'token-conformance run obligations';

export function newRunKey(): Buffer {
  return randomBytes(32);
}

export function summary(o: Obligation): ObligationSummary {
  return {
    id: o.id,
    check: o.check,
    requirements: o.requirements,
    what: o.what,
    notBefore: o.notBefore,
    clock: o.clock,
    ...(o.notAfter !== undefined ? { notAfter: o.notAfter } : {}),
  };
}

function writeSealed(file: string, key: Buffer, value: unknown): void {
  const temp = `${file}.tmp`;
  writeFileSync(temp, JSON.stringify(seal(key, JSON.stringify(value), runAad)), { mode: 0o600 });
  renameSync(temp, file);
}

function readSealed<T>(file: string, key: Buffer): T {
  const plain = open(key, JSON.parse(readFileSync(file, 'utf8')) as Sealed, runAad);
  if (plain === undefined) throw new Error(`${file}: cannot be opened with this run's key`);
  return JSON.parse(plain) as T;
}

export function prepareRunDir(dir: string, key: Buffer, run: RunObligations): void {
  mkdirSync(join(dir, 'recorded'), { recursive: true, mode: 0o700 });
  mkdirSync(join(dir, 'settled'), { recursive: true, mode: 0o700 });
  writeSealed(join(dir, 'run.sealed.json'), key, run);
}

/** In a worker: the run's obligations, or undefined when the run keeps no state. */
export function runObligationsFromEnv(
  dir: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): { dir: string; key: Buffer; run: RunObligations } | undefined {
  const key = env[obligationsKeyEnvVar];
  if (!dir || !key || !existsSync(join(dir, 'run.sealed.json'))) return undefined;
  const k = Buffer.from(key, 'base64');
  return { dir, key: k, run: readSealed<RunObligations>(join(dir, 'run.sealed.json'), k) };
}

export function writeRecorded(dir: string, key: Buffer, o: Obligation): void {
  writeSealed(join(dir, 'recorded', `${o.id}.sealed.json`), key, o);
}

export function writeSettlement(dir: string, s: Settlement): void {
  const file = join(dir, 'settled', `${s.obligation}.json`);
  writeFileSync(`${file}.tmp`, JSON.stringify(s), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

export function collectRecorded(dir: string, key: Buffer): Obligation[] {
  const d = join(dir, 'recorded');
  if (!existsSync(d)) return [];
  return readdirSync(d)
    .filter((f) => f.endsWith('.sealed.json'))
    .map((f) => readSealed<Obligation>(join(d, f), key));
}

export function collectSettlements(dir: string): Settlement[] {
  const d = join(dir, 'settled');
  if (!existsSync(d)) return [];
  return readdirSync(d)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(d, f), 'utf8')) as Settlement);
}
