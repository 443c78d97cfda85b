// One HTTP exchange as `audit` judges it and `record` writes it (one JSON line each): the request,
// the response, when, and where it came from. Secrets inside are already keyed digests
// (secret-digest.ts): nothing in an Exchange can be replayed.
import type { LifetimeClaims } from './jwt-lifetime.ts';

export type HeaderList = [name: string, value: string][];

export interface RecordedBody {
  /** The body as text (UTF-8), at most the recorder's limit; absent when there was none. */
  text?: string;
  /** The body's full size in bytes. */
  size: number;
  /** Set when `text` holds only the first bytes of a larger body. */
  truncated?: true;
  /** Set when the body was not text (an image, a gzip stream): only its size is kept. */
  binary?: true;
}

export interface Exchange {
  /** The traffic file it was read from, as given. */
  file: string;
  /** Its position in that file (0-based: the HAR entry index, or the recording's line). */
  index: number;
  /** When the request started (ISO 8601), on the recorder's or browser's clock. */
  startedAt: string;
  durationMs?: number;
  request: {
    method: string;
    url: string;
    headers: HeaderList;
    body: RecordedBody;
    /** Set by `record` when the request was not an ordinary HTTP/1.1 request (its line or framing), with why: it was forwarded as sent, and is not judged. */
    malformed?: string;
  };
  /** Absent when the exchange got no answer (connection error, the recorder killed). */
  response?: {
    status: number;
    headers: HeaderList;
    body: RecordedBody;
    /** Kept by `record` beside a JWT access token's digest: what the token stated of its lifetime. */
    accessTokenClaims?: LifetimeClaims;
  };
}

/** Where a finding points: the file, the entry and its time. */
export interface ExchangeRef {
  file: string;
  index: number;
  time: string;
}

export const refOf = (e: Pick<Exchange, 'file' | 'index' | 'startedAt'>): ExchangeRef => ({
  file: e.file,
  index: e.index,
  time: e.startedAt,
});

/** The first value of a header (names compared case-insensitively). */
export function headerOf(headers: HeaderList, name: string): string | undefined {
  const lower = name.toLowerCase();
  return headers.find(([n]) => n.toLowerCase() === lower)?.[1];
}

/** Every value of a header. */
export function headersOf(headers: HeaderList, name: string): string[] {
  const lower = name.toLowerCase();
  return headers.filter(([n]) => n.toLowerCase() === lower).map(([, v]) => v);
}

/** The media type of a Content-Type value, lower case, without parameters. */
export function mediaTypeOf(value: string | undefined): string | undefined {
  return value?.split(';')[0]?.trim().toLowerCase() || undefined;
}

/** A JSON object body, or undefined (not JSON, not an object, truncated). */
export function jsonObjectOf(body: RecordedBody | undefined): Record<string, unknown> | undefined {
  if (body?.text === undefined || body.truncated) return undefined;
  try {
    const value: unknown = JSON.parse(body.text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A form body's fields in order, repeated ones kept (undefined when the body is not a form). */
export function formOf(request: Exchange['request']): [string, string][] | undefined {
  if (mediaTypeOf(headerOf(request.headers, 'content-type')) !== 'application/x-www-form-urlencoded') return undefined;
  if (request.body.text === undefined) return [];
  try {
    return [...new URLSearchParams(request.body.text)];
  } catch {
    return undefined;
  }
}

/** The gateway code a body shows: its `code` member, else the first 000-nnnn of its text. */
export function gatewayCodeIn(body: RecordedBody | undefined): string | undefined {
  const code = jsonObjectOf(body)?.code;
  if (typeof code === 'string') return code;
  return /\b000-\d{4}\b/.exec(body?.text ?? '')?.[0];
}
