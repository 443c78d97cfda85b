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

const none: readonly string[] = Object.freeze([]);

/** A RawRequest over Node's message: a class, so that a request costs no closures. */
class MessageRawRequest implements RawRequest {
  readonly method: string;
  readonly target: string;
  // Every line of every field by lower-cased name, built on the first question (the gateway asks
  // about half a dozen fields per request).
  #byName: Map<string, string[]> | undefined;

  constructor(
    private readonly message: IncomingMessage,
    readonly body: RawBody | undefined,
  ) {
    this.method = message.method ?? 'GET';
    this.target = message.url ?? '';
  }

  header(name: string): string | undefined {
    const values = this.#lines(name);
    return values.length === 0 ? undefined : values.length === 1 ? values[0] : values.join(', ');
  }

  headerValues(name: string): string[] {
    return [...this.#lines(name)];
  }

  #lines(name: string): readonly string[] {
    let byName = this.#byName;
    if (byName === undefined) {
      byName = new Map();
      const raw = this.message.rawHeaders;
      for (let i = 0; i + 1 < raw.length; i += 2) {
        const key = (raw[i] ?? '').toLowerCase();
        const values = byName.get(key);
        if (values === undefined) byName.set(key, [raw[i + 1] ?? '']);
        else values.push(raw[i + 1] ?? '');
      }
      this.#byName = byName;
    }
    return byName.get(name.toLowerCase()) ?? none;
  }
}

export function rawRequestFrom(message: IncomingMessage, body: RawBody | undefined): RawRequest {
  return new MessageRawRequest(message, body);
}

/**
 * Reads a request body, keeping at most `limit` bytes (never throws on size). Past the limit it
 * stops reading: the rest is the connection's business once the answer is sent (at most a bounded
 * amount more is discarded, then the connection is closed: http/edge-events.ts).
 */
export function collectRawBody(stream: Readable, limit = maxBodyBytes): Promise<RawBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    const finish = (tooLarge: boolean): void => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      resolve({ bytes: Buffer.concat(chunks), tooLarge });
    };
    const onData = (chunk: Buffer | string): void => {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      if (kept + buffer.length > limit) {
        stream.pause();
        finish(true);
        return;
      }
      chunks.push(buffer);
      kept += buffer.length;
    };
    const onEnd = (): void => finish(false);
    const onError = (error: Error): void => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      reject(error);
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
  });
}
