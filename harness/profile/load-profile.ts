// Loading a target profile: read (JSONC), validate (zod, strict), resolve every secret reference
// from the environment, and refuse what must never run (a literal secret in a shared profile,
// plain HTTP to a non-local target, a missing CA file). Every problem is one line naming the
// field path; the caller exits with code 2 before anything runs.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { z } from 'zod';
import { parseJsonc } from './jsonc.ts';
import { buildProfileSchema, clientNames, userNames, type ProfileSchema, type SecretRef, type TargetProfile } from './profile.schema.ts';

/** The field path of the other environment's access token (a secret like the others). */
export const otherEnvironmentTokenPath = 'credentials.tokens.otherEnvironment';

export class ProfileError extends Error {
  constructor(readonly file: string, readonly problems: string[]) {
    super(problems.map((p) => `profile ${file}: ${p}`).join('\n'));
    this.name = 'ProfileError';
  }
}

/** One secret of the profile, by field path, with its value taken from the environment or the file. */
export interface ResolvedSecret {
  path: string;
  ref: SecretRef;
  value: string;
}

export interface LoadedProfile {
  file: string;
  profile: TargetProfile;
  secrets: ResolvedSecret[];
}

function describePath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(top level)' : path.map(String).join('.');
}

/** The value at a path of the raw input (undefined when absent). */
function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let value = raw;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** Field names whose value is a secret reference (`{"env": …}` or, locally, `{"value": …}`). */
const secretFields = new Set(['clientSecret', 'password', 'otherEnvironment']);

/** zod issues as one line each, naming the field. With the raw input, a union's "Invalid input" says what was wrong. */
export function formatIssues(issues: z.core.$ZodIssue[], raw?: unknown): string[] {
  return issues.flatMap((issue) => {
    const at = describePath(issue.path);
    if (issue.code === 'invalid_union' && raw !== undefined) {
      if (valueAt(raw, issue.path) === undefined) return [`${at}: required`];
      // Never echo the value: it may be a secret written in the wrong shape.
      if (secretFields.has(String(issue.path.at(-1)))) return [`${at}: must be {"env": "VARIABLE_NAME"} (or {"value": "…"} in a profile marked "local": true)`];
    }
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => `${at === '(top level)' ? k : `${at}.${k}`}: unknown key "${k}" (check the spelling; see profiles/README.md)`);
    }
    if (issue.code === 'invalid_type' && issue.input === undefined) return [`${at}: required`];
    return [`${at}: ${issue.message}`];
  });
}

export interface LoadOptions {
  env?: NodeJS.ProcessEnv;
  schema?: ProfileSchema;
}

/** Validates an already-parsed profile object. `file` is used in messages and to resolve caFile. */
export function validateProfile(raw: unknown, file: string, options: LoadOptions = {}): LoadedProfile {
  const env = options.env ?? process.env;
  const schema = options.schema ?? buildProfileSchema();
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new ProfileError(file, formatIssues(parsed.error.issues, raw));
  const profile = parsed.data;
  const problems: string[] = [];

  for (const key of ['authUrlUs', 'authUrlEu', 'baseUrl', 'plainHttpUrl'] as const) {
    const url = profile[key];
    if (url !== undefined && !profile.local && key !== 'plainHttpUrl' && new URL(url).protocol !== 'https:') {
      problems.push(`${key}: plain HTTP (${url}) is refused for a target not marked "local": true — credentials would travel in clear; use https`);
    }
  }
  if (!profile.authUrlUs && !profile.authUrlEu) problems.push('authUrlUs: at least one of authUrlUs and authUrlEu is required');
  for (const key of ['clockControlUrl', 'faultControlUrl'] as const) {
    const url = profile.capabilities[key];
    if (url !== undefined && !profile.local && new URL(url).protocol !== 'https:') {
      problems.push(`capabilities.${key}: plain HTTP (${url}) is refused for a target not marked "local": true`);
    }
  }
  if (profile.caFile !== undefined) {
    const caPath = isAbsolute(profile.caFile) ? profile.caFile : resolve(dirname(resolve(file)), profile.caFile);
    if (!existsSync(caPath)) problems.push(`caFile: file not found: ${caPath}`);
    profile.caFile = caPath;
  }

  const secrets: ResolvedSecret[] = [];
  const take = (path: string, ref: SecretRef) => {
    if ('value' in ref) {
      if (!profile.local) {
        problems.push(`${path}: a literal secret {"value": …} is refused in a profile not marked "local": true; use {"env": "VARIABLE_NAME"}`);
        return;
      }
      secrets.push({ path, ref, value: ref.value });
      return;
    }
    const value = env[ref.env];
    if (value === undefined || value === '') problems.push(`${path}: environment variable ${ref.env} is not set`);
    else secrets.push({ path, ref, value });
  };
  for (const name of clientNames) {
    const c = profile.credentials.clients[name];
    if (c) take(`credentials.clients.${name}.clientSecret`, c.clientSecret);
  }
  for (const name of userNames) {
    const u = profile.credentials.users[name];
    if (u) take(`credentials.users.${name}.password`, u.password);
  }
  const otherEnvironment = profile.credentials.tokens.otherEnvironment;
  if (otherEnvironment) take(otherEnvironmentTokenPath, otherEnvironment);
  if (problems.length > 0) throw new ProfileError(file, problems);
  return { file, profile, secrets };
}

/** Reads, validates and resolves a profile file (JSON or JSONC). Throws ProfileError. */
export function loadProfile(file: string, options: LoadOptions = {}): LoadedProfile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ProfileError(file, [`cannot read the file (${(error as NodeJS.ErrnoException).code ?? String(error)})`]);
  }
  let raw: unknown;
  try {
    raw = parseJsonc(text);
  } catch (error) {
    throw new ProfileError(file, [`not valid JSON: ${(error as Error).message}`]);
  }
  return validateProfile(raw, file, options);
}
