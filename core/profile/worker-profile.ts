// How a validated profile travels from the `run` command to Playwright's workers: as a JSON file
// in a private temporary directory (never under reports/), named by the run manifest (`profile`). In
// that file every secret is an `{ "env": NAME }` reference; literal secrets of a local profile
// are moved into environment variables of the child process, so no secret is ever written.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { secretEnvListVar, secretEnvPrefix } from '../redaction/redact.ts';
import { otherEnvironmentTokenPath, type LoadedProfile } from './load-profile.ts';
import type { SecretRef, TargetProfile } from './profile.schema.ts';

/** The Playwright worker option that gives a project its own profile file (a batch of targets in one run: the self-validation); else the run manifest's `profile`. */
export interface WorkerProfileOption {
  workerProfileFile: string | undefined;
}

export interface WorkerProfileHandoff {
  /** The profile with every secret as an env reference. */
  profile: TargetProfile;
  /** Environment for the child: literal secrets moved into variables, plus the list of secret variable names. */
  env: Record<string, string>;
  /** Every secret value (for redaction in the parent). */
  secretValues: string[];
}

function envNameFor(path: string): string {
  return (
    secretEnvPrefix +
    path
      .replace(/[^A-Za-z0-9]+/g, '_')
      .replace(/([a-z])([A-Z])/g, '$1_$2')
      .toUpperCase()
  );
}

export function toWorkerProfile(loaded: LoadedProfile): WorkerProfileHandoff {
  const profile = structuredClone(loaded.profile);
  const env: Record<string, string> = {};
  const names: string[] = [];
  const byPath = new Map(loaded.secrets.map((s) => [s.path, s]));
  const rewrite = (path: string): SecretRef => {
    const s = byPath.get(path);
    if (!s) throw new Error(`internal: secret ${path} was not resolved`);
    if ('env' in s.ref) {
      names.push(s.ref.env);
      return { env: s.ref.env };
    }
    const name = envNameFor(path);
    env[name] = s.value;
    names.push(name);
    return { env: name };
  };
  for (const [name, c] of Object.entries(profile.credentials.clients)) {
    if (c) c.clientSecret = rewrite(`credentials.clients.${name}.clientSecret`);
  }
  for (const [name, u] of Object.entries(profile.credentials.users)) {
    if (u) u.password = rewrite(`credentials.users.${name}.password`);
  }
  if (profile.credentials.tokens.otherEnvironment)
    profile.credentials.tokens.otherEnvironment = rewrite(otherEnvironmentTokenPath);
  env[secretEnvListVar] = [...new Set(names)].join(',');
  return { profile, env, secretValues: loaded.secrets.map((s) => s.value) };
}

/** Writes the worker profile into a fresh private temporary directory; returns the file path. */
export function writeWorkerProfile(
  profile: TargetProfile,
  dir = mkdtempSync(join(tmpdir(), 'token-conformance-')),
): string {
  const file = join(dir, 'target-profile.json');
  writeFileSync(file, JSON.stringify(profile, null, 2), { mode: 0o600 });
  return file;
}

/**
 * The profile with an access token of the other environment obtained for this run (by
 * `--start-reference`), carried like every other secret: as a resolved literal that
 * toWorkerProfile moves into an environment variable, never into a file.
 */
export function withOtherEnvironmentToken(loaded: LoadedProfile, token: string): LoadedProfile {
  const ref: SecretRef = { value: token };
  const profile = structuredClone(loaded.profile);
  profile.credentials.tokens.otherEnvironment = ref;
  return {
    ...loaded,
    profile,
    secrets: [
      ...loaded.secrets.filter((s) => s.path !== otherEnvironmentTokenPath),
      { path: otherEnvironmentTokenPath, ref, value: token },
    ],
  };
}

/** Read in a worker (or the reporter): the profile the `run` command resolved (the run manifest's `profile`). */
export function readWorkerProfile(file: string | undefined): TargetProfile {
  if (!file) {
    throw new Error(
      'the run names no target profile: run the suite through `npx token-conformance run --target FILE` (or `npm start`), or let playwright.config.ts start the reference server',
    );
  }
  return JSON.parse(readFileSync(file, 'utf8')) as TargetProfile;
}

/** The value of a secret reference, in a worker. Throws (without the value) when it is missing. */
export function secretValue(ref: SecretRef, env: NodeJS.ProcessEnv = process.env): string {
  if ('value' in ref) return ref.value;
  const v = env[ref.env];
  if (v === undefined || v === '') throw new Error(`environment variable ${ref.env} is not set in the worker`);
  return v;
}
