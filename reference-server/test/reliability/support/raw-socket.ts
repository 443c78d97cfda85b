// Bytes straight to a socket, for what an HTTP client library will not send (oversized or slow
// messages, raw non-UTF-8 bytes): the chunks are written with optional pauses or holds (until an
// event of the test), the answer is read until the server closes or `waitMs` passes.
import { connect } from 'node:net';

export interface RawAnswer {
  raw: string;
  status: number | undefined;
  body: string;
  /** Whether the server closed the connection (within waitMs). */
  closed: boolean;
  /** From the first byte written to the first byte of the answer (or to the close). */
  ms: number;
}

/** A pause of some time, or a hold until the test's event (the rest of the request is sent after it). */
export type RawStep = string | Buffer | { pauseMs: number } | { until: Promise<unknown> };

export function rawExchange(port: number, chunks: RawStep[], waitMs = 3000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const parts: Buffer[] = [];
    let firstByteAt: number | undefined;
    let started = 0;
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const raw = Buffer.concat(parts).toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(raw)?.[1];
      const sep = raw.indexOf('\r\n\r\n');
      resolve({
        raw,
        status: status === undefined ? undefined : Number(status),
        body: sep < 0 ? '' : raw.slice(sep + 4),
        closed,
        ms: Math.round((firstByteAt ?? performance.now()) - started),
      });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (chunk: Buffer) => {
      firstByteAt ??= performance.now();
      parts.push(chunk);
    });
    socket.on('close', () => finish(true));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') finish(true);
      else reject(error);
    });
    socket.on('connect', () => {
      started = performance.now();
      void (async () => {
        for (const chunk of chunks) {
          if (socket.destroyed) return;
          if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) socket.write(chunk);
          else if ('until' in chunk) await chunk.until;
          else await new Promise((r) => setTimeout(r, chunk.pauseMs));
        }
      })();
    });
  });
}
