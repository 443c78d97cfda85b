// Every exchange of the traffic files `audit` is given, in file order, each as an Exchange with
// its secrets digested: HAR 1.2 (browsers, Playwright's recordHar, mitmproxy, Charles, Fiddler),
// streamed, and the suite's own recordings (JSON Lines).
import { closeSync, openSync, readSync, createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Exchange, HeaderList, RecordedBody } from './exchange.ts';
import { harEntries, TrafficError } from './har-entries.ts';
import { recordedBodyLimit, recordingFormat, type RecordedExchange } from './recording-format.ts';
import { digestExchange, type Digester } from './secret-digest.ts';
import type { LifetimeClaims } from '../../judges/jwt-lifetime.ts';

export { TrafficError };

export type TrafficFormat = 'har' | 'recording';

/** A file's format, from its first bytes. */
export function trafficFormat(file: string): TrafficFormat {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    throw new TrafficError(
      `${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
    );
  }
  try {
    const head = Buffer.alloc(256);
    const n = readSync(fd, head, 0, head.length, 0);
    const text = head.subarray(0, n).toString('utf8').trimStart();
    if (text.startsWith('{"format":"token-conformance-recording')) return 'recording';
    if (text.startsWith('{')) return 'har';
    throw new TrafficError(
      `${file}: neither a HAR file (a JSON object with log.entries) nor a recording of \`token-conformance record\``,
    );
  } finally {
    closeSync(fd);
  }
}

export interface TrafficOptions {
  digester: Digester;
  /** Secrets known beforehand (the profile's): digested wherever they appear. */
  known?: readonly string[];
  /** Called for a line or entry that cannot be read (it is skipped, not fatal). */
  onSkip?: (file: string, index: number, why: string) => void;
}

/** The exchanges of one file. */
export async function* exchangesOf(file: string, options: TrafficOptions): AsyncGenerator<Exchange> {
  const format = trafficFormat(file);
  const digest = (e: Exchange) => digestExchange(e, options.digester, options.known);
  if (format === 'har') {
    let index = 0;
    for await (const entry of harEntries(file)) {
      const e = exchangeFromHar(entry, file, index);
      if (typeof e === 'string') options.onSkip?.(file, index, e);
      else yield digest(e);
      index += 1;
    }
    return;
  }
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line += 1;
    if (line === 1 || text.trim() === '') continue;
    let value: RecordedExchange;
    try {
      value = JSON.parse(text) as RecordedExchange;
    } catch {
      // The recorder writes each line in one call: only a line cut by a crash can be partial.
      options.onSkip?.(file, line - 2, 'not a whole JSON line (cut short?)');
      continue;
    }
    if (typeof value.request?.url !== 'string' || typeof value.startedAt !== 'string') {
      options.onSkip?.(file, line - 2, 'not an exchange of the recording format');
      continue;
    }
    // The index is the exchange's place in the file (line 2 is index 0), whatever the line says.
    yield digest({ ...value, file, index: line - 2 });
  }
  if (line === 0) throw new TrafficError(`${file}: empty recording (no ${recordingFormat} header)`);
}

interface HarHeader {
  name?: unknown;
  value?: unknown;
}
const textual = (mime: string) => /json|text|xml|x-www-form-urlencoded|javascript/i.test(mime);

function harHeaders(list: unknown): HeaderList {
  if (!Array.isArray(list)) return [];
  // HTTP/2 pseudo-headers (:authority, :path) are not headers of the message.
  return (list as HarHeader[])
    .filter((h) => typeof h.name === 'string' && typeof h.value === 'string' && !h.name.startsWith(':'))
    .map((h) => [h.name as string, h.value as string]);
}

function bodyOf(text: unknown, mime: string, size: unknown, encoding?: unknown): RecordedBody {
  if (typeof text !== 'string') return { size: typeof size === 'number' && size > 0 ? size : 0 };
  const bytes = encoding === 'base64' ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
  const full = typeof size === 'number' && size > bytes.length ? size : bytes.length;
  if (encoding === 'base64' && !textual(mime)) return { size: full, binary: true };
  if (bytes.length > recordedBodyLimit)
    return { text: bytes.subarray(0, recordedBodyLimit).toString('utf8'), size: full, truncated: true };
  return { text: bytes.toString('utf8'), size: full };
}

/** A HAR entry as an Exchange, or why it cannot be one. */
export function exchangeFromHar(entry: unknown, file: string, index: number): Exchange | string {
  const e = entry as {
    startedDateTime?: unknown;
    time?: unknown;
    request?: Record<string, unknown>;
    response?: Record<string, unknown>;
  };
  const req = e.request;
  if (!req || typeof req.method !== 'string' || typeof req.url !== 'string') return 'no request method and url';
  if (typeof e.startedDateTime !== 'string' || Number.isNaN(Date.parse(e.startedDateTime))) return 'no startedDateTime';
  const post = req.postData as
    { mimeType?: unknown; text?: unknown; params?: { name: string; value?: string }[] } | undefined;
  const postMime = typeof post?.mimeType === 'string' ? post.mimeType : '';
  const postText =
    typeof post?.text === 'string'
      ? post.text
      : Array.isArray(post?.params)
        ? new URLSearchParams(post.params.map((p): [string, string] => [p.name, p.value ?? ''])).toString()
        : undefined;
  const requestHeaders = harHeaders(req.headers);
  if (postMime && !requestHeaders.some(([n]) => n.toLowerCase() === 'content-type'))
    requestHeaders.push(['content-type', postMime]);
  const res = e.response;
  const status = typeof res?.status === 'number' ? res.status : 0;
  const content = (res?.content ?? {}) as { mimeType?: unknown; text?: unknown; size?: unknown; encoding?: unknown };
  return {
    file,
    index,
    startedAt: new Date(e.startedDateTime).toISOString(),
    ...(typeof e.time === 'number' && e.time >= 0 ? { durationMs: e.time } : {}),
    request: {
      method: req.method.toUpperCase(),
      url: req.url,
      headers: requestHeaders,
      body: bodyOf(postText, postMime, req.bodySize),
      ...(typeof req._malformed === 'string' ? { malformed: req._malformed } : {}),
    },
    // Browsers write status 0 for a request that got no answer.
    ...(res && status > 0
      ? {
          response: {
            status,
            headers: harHeaders(res.headers),
            body: bodyOf(
              content.text,
              typeof content.mimeType === 'string' ? content.mimeType : '',
              content.size,
              content.encoding,
            ),
            ...lifetimeClaimsField((res as { _accessTokenClaims?: unknown })._accessTokenClaims),
          },
        }
      : {}),
  };
}

/** A HAR response's `_accessTokenClaims` (what the HAR writer keeps of a digested JWT), when well formed. */
function lifetimeClaimsField(value: unknown): { accessTokenClaims?: LifetimeClaims } {
  if (typeof value !== 'object' || value === null) return {};
  const { iat, exp } = value as Record<string, unknown>;
  const claim = (v: unknown): v is number | null => v === null || (typeof v === 'number' && Number.isFinite(v));
  return claim(iat) && claim(exp) ? { accessTokenClaims: { iat, exp } } : {};
}
