// Loading a target profile: read (JSONC), validate (zod, strict), resolve every secret reference
// from the environment, and refuse what must never run (a literal secret in a shared profile,
// plain HTTP to a non-local target, a missing CA file). Every problem is one line naming the
// field path; the caller exits with code 2 before anything runs.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { z } from 'zod';
import { parseJsonc } from './jsonc.ts';
import { declaredForGrant, shapedGrants } from './token-parameters.ts';
import {
  buildProfileSchema,
  clientNames,
  clockSandboxAddresses,
  userNames,
  type ProfileSchema,
  type SecretRef,
  type TargetProfile,
} from './profile.schema.ts';

/** The field path of the other environment's access token (a secret like the others). */
export const otherEnvironmentTokenPath = 'credentials.tokens.otherEnvironment';

/** The token paths the suite appends to authUrlUs / authUrlEu (fixtures/target.ts). */
const usTokenPathSuffix = '/api/v1/auth/oauth2/token';
const euTokenPathSuffix = '/oauth2/default/v1/token';

export class ProfileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
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

/** Where every field of a profile is documented (shipped with the package). */
const fieldsDoc = 'see "Fields" in profiles/README.md and schemas/target-profile.schema.json';

/** The JSON name of a value's type, as a profile author reads it. */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return `${typeof value} ${JSON.stringify(value).slice(0, 40)}`;
}

/** Line and column (1-based) of a character offset. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

/** Field names whose value is a secret reference (`{"env": …}` or, locally, `{"value": …}`). */
const secretFields = new Set(['clientSecret', 'password', 'otherEnvironment']);

/** zod issues as one line each, naming the field. With the raw input, a union's "Invalid input" says what was wrong. */
export function formatIssues(issues: z.core.$ZodIssue[], raw?: unknown, doc: string = fieldsDoc): string[] {
  return issues.flatMap((issue) => {
    const at = describePath(issue.path);
    if (issue.code === 'invalid_union' && raw !== undefined) {
      if (valueAt(raw, issue.path) === undefined) return [`${at}: required`];
      // Never echo the value: it may be a secret written in the wrong shape.
      if (secretFields.has(String(issue.path.at(-1))))
        return [`${at}: must be {"env": "VARIABLE_NAME"} (or {"value": "…"} in a profile marked "local": true)`];
    }
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map(
        (k) => `${at === '(top level)' ? k : `${at}.${k}`}: unknown key "${k}" (check the spelling; ${doc})`,
      );
    }
    // zod does not carry the input in its issues: the raw profile tells "absent" from "wrong type".
    const given = valueAt(raw, issue.path);
    if (issue.code === 'invalid_type') {
      if (given === undefined) return [`${at}: required (${issue.expected}; ${doc})`];
      const got = secretFields.has(String(issue.path.at(-1))) ? '' : `, got ${jsonType(given)}`;
      return [`${at}: expected ${issue.expected}${got} (${doc})`];
    }
    if (issue.code === 'invalid_value') {
      const allowed = issue.values.map((v) => JSON.stringify(v)).join(', ');
      const got =
        secretFields.has(String(issue.path.at(-1))) || given === undefined ? '' : `, got ${JSON.stringify(given)}`;
      return [`${at}: expected one of ${allowed}${got} (${doc})`];
    }
    return [`${at}: ${issue.message} (${doc})`];
  });
}

export interface LoadOptions {
  env?: NodeJS.ProcessEnv;
  schema?: ProfileSchema;
}

/** Validates an already-parsed profile object. `file` is used in messages and to resolve caFile. */
/** The leading segments of `appended` that `pathname` already ends with (/v1 of /v1/people/…), if any. */
function appendedPrefix(pathname: string, appended: string): string | undefined {
  const segments = appended.split('/').filter((x) => x !== '');
  for (let n = segments.length; n > 0; n -= 1) {
    const prefix = `/${segments.slice(0, n).join('/')}`;
    if (pathname === prefix || pathname.endsWith(prefix)) return prefix;
  }
  return undefined;
}

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
      problems.push(
        `${key}: plain HTTP (${url}) is refused for a target not marked "local": true — credentials would travel in clear; use https`,
      );
    }
  }
  // The addresses are origins: the suite appends the token paths itself, so a full token URL
  // would send every request to <token URL>/<token path> and read as dozens of FAILs.
  for (const [key, path] of [
    ['authUrlUs', usTokenPathSuffix],
    ['authUrlEu', euTokenPathSuffix],
    ['baseUrl', usTokenPathSuffix],
  ] as const) {
    const url = profile[key];
    if (url === undefined) continue;
    const pathname = new URL(url).pathname.replace(/\/+$/, '');
    if (pathname.endsWith('/token') || pathname.endsWith(path)) {
      problems.push(
        `${key}: expected the server's origin (scheme://host[:port]), not the token URL ${url} — the suite appends ${path} itself (see "Fields" in profiles/README.md)`,
      );
      continue;
    }
    const doubled = appendedPrefix(pathname, key === 'baseUrl' ? '/v1' : path);
    if (doubled !== undefined) {
      const origin = `${new URL(url).origin}${pathname.slice(0, pathname.length - doubled.length)}`;
      problems.push(
        `${key}: ${url} ends with ${doubled}, which the suite appends itself (it would call ${url.replace(/\/+$/, '')}${doubled}/…) — set ${key} to ${origin}`,
      );
    }
  }
  if (!profile.authUrlUs && !profile.authUrlEu)
    problems.push('authUrlUs: at least one of authUrlUs and authUrlEu is required');
  for (const key of ['clockControlUrl', 'faultControlUrl'] as const) {
    const url = profile.capabilities[key];
    if (url !== undefined && !profile.local && new URL(url).protocol !== 'https:') {
      problems.push(`capabilities.${key}: plain HTTP (${url}) is refused for a target not marked "local": true`);
    }
  }
  problems.push(...clockSandboxProblems(profile, file));
  if (profile.caFile !== undefined) {
    const caPath = isAbsolute(profile.caFile) ? profile.caFile : resolve(dirname(resolve(file)), profile.caFile);
    if (!existsSync(caPath)) problems.push(`caFile: file not found: ${caPath}`);
    profile.caFile = caPath;
  }
  for (const which of ['deactivate', 'activate'] as const) {
    const hook = profile.hooks?.[which];
    if (hook !== undefined && 'url' in hook && !profile.local && new URL(hook.url).protocol !== 'https:')
      problems.push(`hooks.${which}.url: plain HTTP (${hook.url}) is refused for a target not marked "local": true`);
    // A program named by a path is the profile's own script: a relative one is taken beside the
    // profile, and a missing one is a profile error now rather than a BLOCKED check later.
    if (hook !== undefined && 'command' in hook && /[\\/]/.test(hook.command[0]!)) {
      const program = hook.command[0]!;
      const path = isAbsolute(program) ? program : resolve(dirname(resolve(file)), program);
      if (!existsSync(path)) problems.push(`hooks.${which}.command[0]: file not found: ${path}`);
      hook.command[0] = path;
    }
  }

  const secrets: ResolvedSecret[] = [];
  const take = (path: string, ref: SecretRef) => {
    if ('value' in ref) {
      if (!profile.local) {
        problems.push(
          `${path}: a literal secret {"value": …} is refused in a profile not marked "local": true; use {"env": "VARIABLE_NAME"}`,
        );
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
  problems.push(...tokenParameterProblems(profile, env));
  const otherEnvironment = profile.credentials.tokens.otherEnvironment;
  if (otherEnvironment) take(otherEnvironmentTokenPath, otherEnvironment);
  if (problems.length > 0) throw new ProfileError(file, problems);
  return { file, profile, secrets };
}

/** Environment references of declared tokenParameters that are not set (the values are not secrets: they are read, not registered for redaction). */
function tokenParameterProblems(profile: TargetProfile, env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  for (const name of clientNames) {
    const declared = profile.credentials.clients[name]?.tokenParameters;
    for (const grant of shapedGrants) {
      for (const [parameter, value] of declaredForGrant(declared, grant)) {
        if (typeof value !== 'string' && !env[value.env])
          problems.push(
            `credentials.clients.${name}.tokenParameters: ${parameter}: environment variable ${value.env} is not set`,
          );
      }
    }
  }
  return [...new Set(problems)];
}

/**
 * The declared clock sandboxes (capabilities.clockSandboxes) under the same rules as the target's
 * own addresses (caFile resolved relative to the profile), and with the same addresses as the
 * profile: a time-travel check then sees the same target on a sandbox as on the target (no EU
 * check NOT_APPLICABLE on one and run on the other).
 */
function clockSandboxProblems(profile: TargetProfile, file: string): string[] {
  const problems: string[] = [];
  const declared = (key: (typeof clockSandboxAddresses)[number]) =>
    (key === 'faultControlUrl' ? profile.capabilities.faultControlUrl : profile[key]) !== undefined;
  for (const [i, sandbox] of (profile.capabilities.clockSandboxes ?? []).entries()) {
    const at = `capabilities.clockSandboxes[${i}]`;
    for (const key of clockSandboxAddresses) {
      const where = key === 'faultControlUrl' ? 'capabilities.faultControlUrl' : key;
      if (declared(key) && sandbox[key] === undefined)
        problems.push(
          `${at}.${key}: required, because the profile has ${where} (each sandbox stands for the whole target)`,
        );
      if (!declared(key) && sandbox[key] !== undefined)
        problems.push(`${at}.${key}: the profile has no ${where}, so a sandbox has none either`);
    }
    for (const key of ['authUrlUs', 'authUrlEu', 'baseUrl', 'clockControlUrl', 'faultControlUrl'] as const) {
      const url = sandbox[key];
      if (url !== undefined && !profile.local && new URL(url).protocol !== 'https:')
        problems.push(`${at}.${key}: plain HTTP (${url}) is refused for a target not marked "local": true`);
    }
    if (sandbox.caFile !== undefined) {
      const caPath = isAbsolute(sandbox.caFile) ? sandbox.caFile : resolve(dirname(resolve(file)), sandbox.caFile);
      if (!existsSync(caPath)) problems.push(`${at}.caFile: file not found: ${caPath}`);
      sandbox.caFile = caPath;
    }
    for (const [key, path] of [
      ['authUrlUs', usTokenPathSuffix],
      ['authUrlEu', euTokenPathSuffix],
      ['baseUrl', usTokenPathSuffix],
    ] as const) {
      const url = sandbox[key];
      if (url === undefined) continue;
      const pathname = new URL(url).pathname.replace(/\/+$/, '');
      if (pathname.endsWith('/token') || pathname.endsWith(path))
        problems.push(`${at}.${key}: expected the server's origin (scheme://host[:port]), not the token URL ${url}`);
    }
  }
  return problems;
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
    // JSON.parse names a character offset; an editor wants a line and a column (comments are
    // blanked, not removed, so the offset is the file's).
    const message = (error as Error).message;
    const offset = /at position (\d+)/.exec(message);
    const where = offset ? lineAndColumn(text, Number(offset[1])) : undefined;
    const what = message.replace(/ in JSON at position \d+.*$/s, '').replace(/ \(line \d+ column \d+\)$/, '');
    throw new ProfileError(file, [
      `not valid JSON${where ? ` at line ${where.line}, column ${where.column}` : ''}: ${what} (JSON with // comments and trailing commas is accepted)`,
    ]);
  }
  return validateProfile(raw, file, options);
}
