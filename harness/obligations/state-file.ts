// The state file a user keeps between runs (`run --state FILE` or the profile's `state.file`): the
// open obligations, encrypted with AES-256-GCM under a key derived (scrypt) from the secret in the
// environment variable the profile names (`state.key`). Written atomically (temp file + rename),
// only after a run completed; a second run on the same file is refused while the first holds
// FILE.lock (its pid; a lock whose process is gone is stale and taken over).
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import type { Obligation } from '../../core/obligations/obligation.ts';
import {
  deriveKey,
  keyCheck,
  open,
  sameKeyCheck,
  scryptParameters,
  seal,
  type Sealed,
} from '../../core/obligations/sealed.ts';

export const stateFormat = 'token-conformance-state';
export const stateVersion = 1;

/** What the state file holds, once decrypted. */
export interface StateContent {
  /** The profile name of the target the obligations were recorded against. */
  target: string;
  /** Salt of the principal fingerprints (obligation.ts). */
  fingerprintSalt: string;
  obligations: Obligation[];
  /** The run that wrote the file last. */
  lastRun?: { id: string; at: string };
}

interface StateEnvelope extends Sealed {
  format: typeof stateFormat;
  version: number;
  kdf: { name: 'scrypt'; salt: string; N: number; r: number; p: number };
  keyCheck: string;
}

/** A state-file problem: always a setup error (exit 2) that leaves the file as it was. */
export class StateFileError extends Error {}

const aad = (salt: string) => `${stateFormat}/${stateVersion}/${salt}`;

export function emptyState(target: string): StateContent {
  return { target, fingerprintSalt: randomBytes(16).toString('base64'), obligations: [] };
}

function envelopeOf(text: string, file: string): StateEnvelope {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new StateFileError(
      `state file ${file} is not a token-conformance state file (not JSON: truncated or foreign); refused, left as it is`,
    );
  }
  const e = parsed as Partial<StateEnvelope> | null;
  if (!e || typeof e !== 'object' || e.format !== stateFormat)
    throw new StateFileError(
      `state file ${file} is not a token-conformance state file (no "format": "${stateFormat}"); refused, left as it is`,
    );
  if (e.version !== stateVersion)
    throw new StateFileError(
      `state file ${file} has version ${String(e.version)}; this suite reads version ${stateVersion}; refused, left as it is`,
    );
  const fields = [e.iv, e.tag, e.data, e.keyCheck, e.kdf?.salt];
  if (fields.some((f) => typeof f !== 'string') || e.kdf?.name !== 'scrypt')
    throw new StateFileError(`state file ${file} is damaged (fields missing); refused, left as it is`);
  return e as StateEnvelope;
}

/**
 * Reads and decrypts the state file; a missing file is an empty state. A wrong key, a damaged or
 * foreign file, or another target's file throws StateFileError (the file is never touched).
 */
export function readState(file: string, secret: string, keyEnv: string, target: string): StateContent {
  if (!existsSync(file)) return emptyState(target);
  const e = envelopeOf(readFileSync(file, 'utf8'), file);
  const salt = Buffer.from(e.kdf.salt, 'base64');
  const key = deriveKey(secret, salt);
  if (!sameKeyCheck(key, e.keyCheck))
    throw new StateFileError(
      `the key in ${keyEnv} does not open state file ${file} (wrong key); set ${keyEnv} to the key the file was written with; nothing was run and no obligation was lost`,
    );
  const plain = open(key, e, aad(e.kdf.salt));
  if (plain === undefined)
    throw new StateFileError(
      `state file ${file} is damaged (its authentication tag does not match); refused, left as it is`,
    );
  const content = JSON.parse(plain) as StateContent;
  if (content.target !== target)
    throw new StateFileError(
      `state file ${file} belongs to target "${content.target}", not "${target}"; use one state file per target`,
    );
  return content;
}

/** Encrypts and writes the state atomically: a reader sees the old file or the new one, never half of one. */
export function writeState(file: string, secret: string, content: StateContent): void {
  const salt = randomBytes(16);
  const key = deriveKey(secret, salt);
  const saltText = salt.toString('base64');
  const envelope: StateEnvelope = {
    format: stateFormat,
    version: stateVersion,
    kdf: { name: 'scrypt', salt: saltText, ...scryptParameters },
    keyCheck: keyCheck(key),
    ...seal(key, JSON.stringify(content), aad(saltText)),
  };
  const temp = `${file}.tmp-${process.pid}`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(envelope)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
}

interface LockRecord {
  pid: number;
  host: string;
  since: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes FILE.lock for this process. Held by a live process (this host): StateFileError. Held by a
 * process that is gone: stale, taken over (the returned note says so). Returns the release function.
 */
export function lockState(file: string): { release: () => void; note?: string } {
  const lockFile = `${file}.lock`;
  const mine: LockRecord = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  let note: string | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockFile, JSON.stringify(mine), { flag: 'wx', mode: 0o600 });
      return { release: () => rmSync(lockFile, { force: true }), ...(note ? { note } : {}) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new StateFileError(`cannot create the lock ${lockFile}: ${(error as Error).message}`);
    }
    let held: Partial<LockRecord> | undefined;
    try {
      held = JSON.parse(readFileSync(lockFile, 'utf8')) as Partial<LockRecord>;
    } catch {
      held = undefined;
    }
    const sameHost = held?.host === undefined || held.host === mine.host;
    if (held && typeof held.pid === 'number' && (!sameHost || alive(held.pid))) {
      throw new StateFileError(
        `another run (pid ${held.pid}${sameHost ? '' : ` on ${held.host}`}, since ${held.since ?? '?'}) is using state file ${file} (lock ${lockFile}); refused, the state file is left as it is`,
      );
    }
    note = `a stale lock ${lockFile} (pid ${held?.pid ?? '?'} is gone) was taken over`;
    rmSync(lockFile, { force: true });
  }
  throw new StateFileError(`cannot take the lock ${lockFile}`);
}
