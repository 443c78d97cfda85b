// A "distant" target on loopback: a TCP proxy that holds every chunk for `delayMs` in each
// direction before passing it on, so that a round trip through it costs 2 × delayMs more than on
// loopback (TLS goes through untouched: the bytes are forwarded, never read). A new connection
// also pays the TCP handshake a real network would cost: the client's first bytes leave no
// earlier than one round trip after the connection was accepted. Order is kept per direction
// (every chunk waits the same delay, and timers of one duration fire in the order they were set).
//
// Bounded: at most `maxConnections` open connections (more are refused), and a direction whose
// held bytes exceed `maxHeldBytes` stops reading its source until they are passed on. Loopback
// only: it listens on 127.0.0.1 and connects only to 127.0.0.1.
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface LatencyProxyOptions {
  /** Port of the target on 127.0.0.1. */
  upstreamPort: number;
  /** One-way delay, milliseconds (20 → a 40 ms round trip). */
  delayMs: number;
  maxConnections?: number;
  maxHeldBytes?: number;
}

export interface LatencyProxy {
  port: number;
  /** Connections accepted so far. */
  connections(): number;
  stop(): Promise<void>;
}

const LOOPBACK = '127.0.0.1';

export async function startLatencyProxy(options: LatencyProxyOptions): Promise<LatencyProxy> {
  const { upstreamPort, delayMs } = options;
  if (!Number.isInteger(upstreamPort) || upstreamPort < 1 || upstreamPort > 65535)
    throw new RangeError('upstreamPort must be a TCP port');
  if (!(delayMs >= 0 && delayMs <= 10_000)) throw new RangeError('delayMs must be from 0 to 10000');
  const maxHeldBytes = options.maxHeldBytes ?? 4 * 1024 * 1024;
  const open = new Set<Socket>();
  let accepted = 0;

  const server = createServer({ allowHalfOpen: true }, (client) => {
    accepted += 1;
    const upstream = connect({ host: LOOPBACK, port: upstreamPort, allowHalfOpen: true });
    open.add(client);
    open.add(upstream);
    // A reset or an error ends both sides at once; an orderly end (FIN) travels with the data.
    const abort = (): void => {
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', abort);
      socket.on('close', (hadError) => {
        open.delete(socket);
        if (hadError) abort();
      });
    }
    // The TCP handshake's round trip: nothing the client sends leaves before it.
    const handshakeDone = performance.now() + 2 * delayMs;
    relay(client, upstream, delayMs, maxHeldBytes, handshakeDone);
    relay(upstream, client, delayMs, maxHeldBytes, 0);
  });
  server.maxConnections = options.maxConnections ?? 512;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    connections: () => accepted,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of open) socket.destroy();
        open.clear();
      }),
  };
}

/**
 * Passes `from`'s bytes (and its end) to `to`, each `delayMs` after it arrived and not before
 * `notBefore` + `delayMs`: one FIFO queue per direction and one timer for its head, so that
 * nothing overtakes.
 */
function relay(from: Socket, to: Socket, delayMs: number, maxHeldBytes: number, notBefore: number): void {
  const queue: { at: number; chunk: Buffer | null }[] = [];
  let held = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    timer = undefined;
    const now = performance.now();
    while (queue.length > 0 && queue[0]!.at <= now) {
      const { chunk } = queue.shift()!;
      if (to.destroyed) continue;
      if (chunk === null) {
        to.end();
        continue;
      }
      held -= chunk.length;
      to.write(chunk);
    }
    if (held <= maxHeldBytes && from.isPaused() && !from.destroyed) from.resume();
    schedule();
  };
  const schedule = (): void => {
    if (timer !== undefined || queue.length === 0) return;
    timer = setTimeout(flush, Math.max(0, Math.ceil(queue[0]!.at - performance.now())));
  };
  const hold = (chunk: Buffer | null): void => {
    queue.push({ at: Math.max(performance.now(), notBefore) + delayMs, chunk });
    schedule();
  };
  from.on('data', (chunk: Buffer) => {
    held += chunk.length;
    if (held > maxHeldBytes) from.pause();
    hold(chunk);
  });
  from.on('end', () => hold(null));
}
