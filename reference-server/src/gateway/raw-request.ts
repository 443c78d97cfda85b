// The request as the gateway reasons about it: the method, the request-target as sent, every
// header line as sent (Node keeps only the first of a repeated Authorization or Host in
// `headers`, so repeats are counted from `rawHeaders`), and the body bytes if any were read.
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';

export interface RawBody {
  bytes: Buffer;
  /** More than `maxBodyBytes` arrived; `bytes` holds only the first part. */
  tooLarge: boolean;
}

export interface RawRequest {
  readonly method: string;
  /** The request-target exactly as on the request line. */
  readonly target: string;
  /** The field value (repeated lines joined with `, `), or undefined when absent. */
  header(name: string): string | undefined;
  /** Every line of the field, in order, as sent. */
  headerValues(name: string): string[];
  readonly body: RawBody | undefined;
}

export const maxBodyBytes = 64 * 1024;

export function rawRequestFrom(message: IncomingMessage, body: RawBody | undefined): RawRequest {
  const headerValues = (name: string): string[] => {
    const wanted = name.toLowerCase();
    const values: string[] = [];
    for (let i = 0; i + 1 < message.rawHeaders.length; i += 2) {
      if (message.rawHeaders[i]?.toLowerCase() === wanted) values.push(message.rawHeaders[i + 1] ?? '');
    }
    return values;
  };
  return {
    method: message.method ?? 'GET',
    target: message.url ?? '',
    header: (name) => {
      const values = headerValues(name);
      return values.length === 0 ? undefined : values.join(', ');
    },
    headerValues,
    body,
  };
}

/** Reads a request body, keeping at most `limit` bytes and draining the rest (never throws on size). */
export async function collectRawBody(stream: Readable, limit = maxBodyBytes): Promise<RawBody> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let tooLarge = false;
  for await (const chunk of stream) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    if (tooLarge) continue;
    if (kept + buffer.length > limit) {
      tooLarge = true;
      continue;
    }
    chunks.push(buffer);
    kept += buffer.length;
  }
  return { bytes: Buffer.concat(chunks), tooLarge };
}
