// The one way the suite reads a body the target sent: at most a byte limit, within one deadline
// that also covered the headers, never decompressed. A target is untrusted: a body of hundreds of
// megabytes, or one dripping a byte a second, must cost the run a bounded amount of memory and time.
import type { IncomingHttpHeaders } from 'node:http';

/** What a check needs of one answer: tokens and error objects are a few kilobytes. */
export const responseByteLimit = 256 * 1024;
/** What a transcript keeps of one body (the rest is noted with its size). */
export const transcriptByteLimit = 16 * 1024;
/**
 * One deadline for a whole exchange: connecting, the headers and the body. Above the property
 * checks' own second chance for a slow answer (RequestDeadline's 20 s), so that on a heavily shared
 * machine they, not this backstop, decide what a slow answer means.
 */
export const exchangeDeadlineMs = 25_000;

export interface BoundedBody {
  /** The bytes kept: at most the limit. */
  bytes: Buffer;
  /** Whether the body went beyond the limit (the rest was not read). */
  truncated: boolean;
  /** The body's declared size (content-length), when the target declared one. */
  declaredBytes?: number;
}

/** A body as undici and node:http give it: an async iterable of chunks that can be destroyed. */
export interface ReadableBody extends AsyncIterable<Buffer | Uint8Array | string> {
  destroy(error?: Error): unknown;
}

/**
 * Reads `body` up to `limit` bytes, then stops reading and destroys the stream (the connection is
 * not reused). The caller's deadline (an AbortSignal given to the request) ends a dripping body:
 * its abort surfaces here as the stream's error.
 */
export async function readBounded(
  body: ReadableBody,
  limit: number = responseByteLimit,
  headers: IncomingHttpHeaders | Record<string, string | string[] | undefined> = {},
): Promise<BoundedBody> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let truncated = false;
  for await (const chunk of body) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : Buffer.from(chunk);
    const room = limit - kept;
    if (buffer.length > room) {
      if (room > 0) chunks.push(buffer.subarray(0, room));
      kept = limit;
      truncated = true;
      break;
    }
    chunks.push(buffer);
    kept += buffer.length;
  }
  if (truncated) body.destroy();
  const declared = Number(headerValue(headers['content-length']));
  return {
    bytes: Buffer.concat(chunks, kept),
    truncated,
    ...(Number.isSafeInteger(declared) && declared >= 0 ? { declaredBytes: declared } : {}),
  };
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** "1.5 MB", "200 B": a size in a note a person reads. */
export function byteSize(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * `text` cut to `limit` bytes (UTF-8) with a note of what was not kept: the transcript of a check
 * keeps the start of a body and says how much more there was (`totalBytes` when known).
 */
export function keepAtMost(text: string, limit: number, totalBytes?: number, truncatedAtRead = false): string {
  const size = Buffer.byteLength(text);
  if (size <= limit && !truncatedAtRead) return text;
  const kept =
    size <= limit
      ? text
      : Buffer.from(text)
          .subarray(0, limit)
          .toString('utf8')
          .replace(/\uFFFD$/, '');
  const keptBytes = Buffer.byteLength(kept);
  const note =
    totalBytes !== undefined && totalBytes > keptBytes
      ? `[… ${byteSize(totalBytes - keptBytes)} not kept, of ${byteSize(totalBytes)}]`
      : `[… the rest not kept: the body went beyond ${byteSize(Math.max(keptBytes, limit))}]`;
  return `${kept}\n${note}`;
}
