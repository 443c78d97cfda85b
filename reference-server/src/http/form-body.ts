// A strict application/x-www-form-urlencoded parser for the token endpoint (RFC 6749 App. B):
// repeated names (even with equal values), malformed percent-escapes and invalid UTF-8 are
// errors, where URLSearchParams would silently take a guess.
export type FormBodyProblem = 'not-form' | 'malformed' | 'repeated';

export class FormBodyError extends Error {
  constructor(
    readonly problem: FormBodyProblem,
    detail: string,
  ) {
    super(detail);
    this.name = 'FormBodyError';
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const hexValue = (byte: number): number => {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  return -1;
};

/** Decodes one name or value: `+` is a space, `%XX` a byte; the bytes must be UTF-8. */
export function decodeFormComponent(raw: Uint8Array): string {
  // Plain ASCII without escapes (most names and values) is its own decoding.
  let plain = true;
  for (let i = 0; i < raw.length; i += 1) {
    const byte = raw[i]!;
    if (byte >= 0x80 || byte === 0x2b || byte === 0x25) {
      plain = false;
      break;
    }
  }
  if (plain) return Buffer.from(raw.buffer, raw.byteOffset, raw.length).toString('latin1');
  const out = new Uint8Array(raw.length);
  let n = 0;
  for (let i = 0; i < raw.length; i += 1) {
    const byte = raw[i] ?? 0;
    if (byte === 0x2b) {
      out[n++] = 0x20;
    } else if (byte === 0x25) {
      const hi = hexValue(raw[i + 1] ?? -1);
      const lo = hexValue(raw[i + 2] ?? -1);
      if (hi < 0 || lo < 0) throw new FormBodyError('malformed', 'bad percent-escape');
      out[n++] = hi * 16 + lo;
      i += 2;
    } else {
      out[n++] = byte;
    }
  }
  try {
    return utf8.decode(out.subarray(0, n));
  } catch {
    throw new FormBodyError('malformed', 'invalid UTF-8');
  }
}

/** Parses a form body into a map; empty pairs (`a=1&&b=2`) are skipped, a pair without `=` has an empty value. */
export function parseFormBody(body: Uint8Array): Map<string, string> {
  const params = new Map<string, string>();
  let start = 0;
  while (start <= body.length) {
    let end = body.indexOf(0x26, start);
    if (end < 0) end = body.length;
    const pair = body.subarray(start, end);
    start = end + 1;
    if (pair.length === 0) continue;
    const eq = pair.indexOf(0x3d);
    const name = decodeFormComponent(eq < 0 ? pair : pair.subarray(0, eq));
    const value = eq < 0 ? '' : decodeFormComponent(pair.subarray(eq + 1));
    if (params.has(name)) throw new FormBodyError('repeated', 'repeated parameter');
    params.set(name, value);
  }
  return params;
}

/**
 * Whether a Content-Type header names a form: `application/x-www-form-urlencoded`, any case,
 * optionally with parameters; a charset parameter must be UTF-8 (or its subset US-ASCII).
 */
export function isFormContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const [type = '', ...parameters] = header.split(';');
  if (type.trim().toLowerCase() !== 'application/x-www-form-urlencoded') return false;
  for (const parameter of parameters) {
    const eq = parameter.indexOf('=');
    if (eq < 0) {
      if (parameter.trim() === '') continue;
      return false;
    }
    const name = parameter.slice(0, eq).trim().toLowerCase();
    const value = parameter
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (name === 'charset' && value !== 'utf-8' && value !== 'utf8' && value !== 'us-ascii') return false;
  }
  return true;
}

/** The token endpoint's body: a form, or a FormBodyError. */
export function readTokenForm(contentType: string | undefined, body: unknown): Map<string, string> {
  if (!isFormContentType(contentType)) throw new FormBodyError('not-form', 'not a form media type');
  if (body === undefined || body === null) return new Map();
  if (!(body instanceof Uint8Array)) throw new FormBodyError('malformed', 'unexpected body representation');
  return parseFormBody(body);
}
