// Redaction: no client secret, password, access token or refresh token may reach reports/ or the
// terminal. Applied at the source (token-client transcripts, matcher messages) and once more as
// a last line in the conformance reporter.
//
// Three nets, widest last:
//   1. known secret values (the profile's resolved secrets, tokens seen during the run);
//   2. secret-bearing fields by name (client_secret=…, "access_token":"…", Authorization: …);
//   3. shapes: JWTs (three base64url segments starting `eyJ`) and long opaque token-like strings
//      sitting after a token-ish key.

export const REDACTED = '[REDACTED]';

/** Field names whose value is a secret wherever they appear (form, JSON, header). */
export const secretFieldNames = ['client_secret', 'password', 'access_token', 'refresh_token', 'id_token', 'assertion'] as const;

const jwtShape = /eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/g;
/**
 * An opaque refresh-token-shaped value: 32+ base64url characters mixing upper case, lower case and
 * digits. UUIDs and hex digests (lower case only) do not match, so report ids survive.
 */
const opaqueShape = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])/g;
const looksRandom = (s: string) => /[A-Z]/.test(s) && /[a-z]/.test(s) && /[0-9]/.test(s);
const fieldPattern = new RegExp(
  // form or query: name=value
  `((?:^|[?&\\s"'])(?:${secretFieldNames.join('|')})=)([^&\\s"']+)` +
  // JSON: "name": "value"
  `|("(?:${secretFieldNames.join('|')})"\\s*:\\s*")((?:[^"\\\\]|\\\\.)*)(")`,
  'g',
);
const authHeaderPattern = /((?:^|[\s"'])(?:authorization|proxy-authorization)["']?\s*[:=]\s*["']?(?:[A-Za-z]+\s+)?)([^\s"',}]+)/gi;
// A credential after the scheme: long enough to be one (a challenge's `realm="…"` is not).
const bearerPattern = /\b(Bearer|Basic)(\s+)([A-Za-z0-9\-._~+/]{12,}=*)(?![A-Za-z0-9\-._~+/="])/g;

/** Values shorter than this are not redacted by value (they would shred ordinary words). */
const minimumKnownLength = 4;

export class Redactor {
  private readonly known = new Set<string>();
  /** `known`, longest first, so that a secret containing another is removed whole; rebuilt on add. */
  private longestFirst: string[] | undefined;

  constructor(values: Iterable<string> = []) {
    for (const v of values) this.add(v);
  }

  /** Registers a value that must never appear (a secret, an issued token). */
  add(value: string | undefined | null): void {
    if (typeof value !== 'string' || value.length < minimumKnownLength) return;
    this.known.add(value);
    // The same value as it appears form-encoded, URI-encoded and inside HTTP Basic.
    this.known.add(new URLSearchParams({ v: value }).toString().slice(2));
    this.known.add(encodeURIComponent(value));
    this.longestFirst = undefined;
  }

  get size(): number {
    return this.known.size;
  }

  redact(text: string): string {
    let out = text;
    this.longestFirst ??= [...this.known].sort((a, b) => b.length - a.length);
    for (const value of this.longestFirst) {
      if (value.length >= minimumKnownLength && out.includes(value)) out = out.split(value).join(REDACTED);
    }
    return redactShapes(out);
  }

  /** Deep copy of a JSON-like value with every string redacted and secret-named fields replaced. */
  redactValue<T>(value: T): T {
    return redactDeep(value, (s) => this.redact(s)) as T;
  }
}

/** Redaction by field name and shape only (no known values). */
export function redactShapes(text: string): string {
  return text
    .replace(fieldPattern, (match, formKey?: string, _formValue?: string, jsonKey?: string, _jsonValue?: string, close?: string) => {
      if (formKey !== undefined) return `${formKey}${REDACTED}`;
      if (jsonKey !== undefined) return `${jsonKey}${REDACTED}${close ?? '"'}`;
      return match;
    })
    .replace(authHeaderPattern, (_m, head: string) => `${head}${REDACTED}`)
    .replace(bearerPattern, (_m, scheme: string, space: string) => `${scheme}${space}${REDACTED}`)
    .replace(jwtShape, REDACTED)
    .replace(opaqueShape, (m) => (looksRandom(m) ? REDACTED : m));
}

function isSecretField(key: string): boolean {
  const k = key.toLowerCase();
  return (secretFieldNames as readonly string[]).includes(k) || k === 'authorization' || k === 'proxy-authorization';
}

function redactDeep(value: unknown, redactString: (s: string) => string): unknown {
  if (typeof value === 'string') return redactString(value);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redactString));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] = isSecretField(k) && typeof v === 'string' && v.length > 0 ? REDACTED : redactDeep(v, redactString);
    }
    return out;
  }
  return value;
}

/**
 * The environment variables that carry secrets into the suite's workers: their names start with
 * this prefix, or are listed (comma-separated) in TOKEN_CONFORMANCE_SECRET_ENV.
 */
export const secretEnvPrefix = 'TOKEN_CONFORMANCE_SECRET_';
export const secretEnvListVar = 'TOKEN_CONFORMANCE_SECRET_ENV';

/** Every secret value known from the environment of this process. */
export function secretsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const names = new Set<string>(Object.keys(env).filter((n) => n.startsWith(secretEnvPrefix) && n !== secretEnvListVar));
  for (const n of (env[secretEnvListVar] ?? '').split(',')) if (n.trim()) names.add(n.trim());
  return [...names].map((n) => env[n]).filter((v): v is string => typeof v === 'string' && v.length > 0);
}

/** A redactor primed with the secrets of this process's environment. */
export function redactorFromEnv(env: NodeJS.ProcessEnv = process.env): Redactor {
  return new Redactor(secretsFromEnv(env));
}
