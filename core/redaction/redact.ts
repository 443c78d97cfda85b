// Redaction: no client secret, password, access token or refresh token may reach reports/ or the
// terminal. Applied at the source, to values before they are serialised: the HTTP transcript,
// matcher messages, every check's errors, annotations and attachments (fixtures/report-redaction.fixture.ts),
// the conformance reporter's fields. Never to serialised text (a JSON file, an XML file) and never
// to what the suite wrote itself (titles, file paths, names): the end of a run only verifies
// (end-of-run.ts).
//
// Three nets, widest last:
//   1. known secret values (the profile's resolved secrets, tokens seen during the run) of at least
//      minimumSecretLength characters, in every encoding they are written in;
//   2. secret-bearing fields by name (client_secret=…, "access_token":"…", Authorization: …);
//   3. shapes: JWTs (three base64url segments starting `eyJ`) and long opaque token-like strings.
import { SecretMatcher } from './secret-matcher.ts';

export const REDACTED = '[REDACTED]';

/**
 * Known values shorter than this are not searched for by value. 8 is the usual floor of a
 * credential (NIST SP 800-63B's minimum password length; generated client secrets and tokens are
 * far longer), while shorter values are ordinary words and fragments ("test", "spec", "admin") that
 * occur in titles, paths and JSON keys, which a search by value would shred. A shorter secret is
 * still removed where it travels by name (client_secret=…, "password": …, Authorization: …).
 */
export const minimumSecretLength = 8;

/** The encodings a value is redacted in: as is, form-encoded, URI-encoded, inside a JSON string. */
export function encodedForms(value: string): string[] {
  return [
    ...new Set([
      value,
      new URLSearchParams({ v: value }).toString().slice(2),
      encodeURIComponent(value),
      JSON.stringify(value).slice(1, -1),
    ]),
  ];
}

/** The forms a value can take in a written report file: encodedForms, and XML/HTML-escaped. */
export function writtenForms(value: string): string[] {
  const forms = new Set(encodedForms(value));
  for (const f of [...forms]) {
    const xml = f.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    for (const q of [
      xml,
      xml.replace(/"/g, '&quot;').replace(/'/g, '&#39;'),
      xml.replace(/"/g, '&quot;').replace(/'/g, '&apos;'),
      xml.replace(/"/g, '&#34;').replace(/'/g, '&#39;'),
    ])
      forms.add(q);
  }
  return [...forms];
}

/** Field names whose value is a secret wherever they appear (form, JSON, header). */
export const secretFieldNames = [
  'client_secret',
  'password',
  'access_token',
  'refresh_token',
  'id_token',
  'assertion',
] as const;

const jwtShape = /eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/g;
/**
 * An opaque refresh-token-shaped value: 32+ base64url characters mixing upper case, lower case and
 * digits. UUIDs and hex digests (lower case only) do not match, so report ids survive.
 */
const opaqueShape = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])/g;
const looksRandom = (s: string) => /[A-Z]/.test(s) && /[a-z]/.test(s) && /[0-9]/.test(s);
const fieldPattern = new RegExp(
  // form or query: name=value
  `((?:^|[?&\\s"'])(?:${secretFieldNames.join('|')})=)([^&\\s"'\\\\]+)` +
    // JSON: "name": "value"
    `|("(?:${secretFieldNames.join('|')})"\\s*:\\s*")((?:[^"\\\\]|\\\\.)*)(")`,
  'g',
);
// The credential of an Authorization header: a token68 run of 8+ characters (so that prose such as
// a check title "protected call: Authorization: Bearer › …" is not taken for one).
const authHeaderPattern =
  /((?:^|[\s"'])(?:authorization|proxy-authorization)["']?\s*[:=]\s*["']?(?:[A-Za-z]+\s+)?)([A-Za-z0-9\-._~+/]{8,}=*)(?![A-Za-z0-9\-._~+/=])/gi;
// A credential after the scheme: long enough to be one (a challenge's `realm="…"` is not).
const bearerPattern = /\b(Bearer|Basic)(\s+)([A-Za-z0-9\-._~+/]{12,}=*)(?![A-Za-z0-9\-._~+/="])/g;

export class Redactor {
  /** The values registered (at least minimumSecretLength long), before encoding. */
  private readonly values = new Set<string>();
  /** Every encoded form of every value: one pass over a text finds them all; a value added costs a lookup. */
  private readonly matcher = new SecretMatcher();

  constructor(values: Iterable<string> = []) {
    for (const v of values) this.add(v);
  }

  /** Registers a value that must never appear (a secret, an issued token); shorter ones are ignored (minimumSecretLength). */
  add(value: string | undefined | null): void {
    if (typeof value !== 'string' || value.length < minimumSecretLength || this.values.has(value)) return;
    this.values.add(value);
    for (const form of encodedForms(value)) this.matcher.add(form);
  }

  get size(): number {
    return this.matcher.size;
  }

  /** Every value registered, as given (not encoded). */
  secretValues(): string[] {
    return [...this.values];
  }

  /** Free text (a message, a header value, a body) with every known value and secret shape replaced. */
  redact(text: string): string {
    return redactShapes(replaceRanges(text, this.matcher.ranges(text)));
  }

  /** Deep copy of a JSON-like value with every string redacted and secret-named fields replaced. */
  redactValue<T>(value: T): T {
    return redactDeep(value, (s) => this.redact(s)) as T;
  }
}

/** `text` with each [start, end) range replaced by REDACTED. */
export function replaceRanges(text: string, ranges: [number, number][]): string {
  if (ranges.length === 0) return text;
  let out = '';
  let at = 0;
  for (const [start, end] of ranges) {
    out += text.slice(at, start) + REDACTED;
    at = end;
  }
  return out + text.slice(at);
}

/** Redaction by field name and shape only (no known values). */
export function redactShapes(text: string): string {
  return text
    .replace(
      fieldPattern,
      (match, formKey?: string, _formValue?: string, jsonKey?: string, _jsonValue?: string, close?: string) => {
        if (formKey !== undefined) return `${formKey}${REDACTED}`;
        if (jsonKey !== undefined) return `${jsonKey}${REDACTED}${close ?? '"'}`;
        return match;
      },
    )
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
  const names = new Set<string>(
    Object.keys(env).filter((n) => n.startsWith(secretEnvPrefix) && n !== secretEnvListVar),
  );
  for (const n of (env[secretEnvListVar] ?? '').split(',')) if (n.trim()) names.add(n.trim());
  return [...names].map((n) => env[n]).filter((v): v is string => typeof v === 'string' && v.length > 0);
}

/** A redactor primed with the secrets of this process's environment. */
export function redactorFromEnv(env: NodeJS.ProcessEnv = process.env): Redactor {
  return new Redactor(secretsFromEnv(env));
}
