// The distant target's proxy: every byte arrives, in order, each direction delayed; a new
// connection's first bytes wait one more round trip (the TCP handshake a network would cost);
// an orderly end travels after the data. Lower bounds only: a loaded machine adds time, never
// removes it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startLatencyProxy, type LatencyProxy } from '../harness/latency-proxy.ts';

const DELAY_MS = 40;
let echo: Server;
let proxy: LatencyProxy;

before(async () => {
  // Echoes every byte and ends when the client ends.
  echo = createServer({ allowHalfOpen: true }, (socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  proxy = await startLatencyProxy({ upstreamPort: (echo.address() as AddressInfo).port, delayMs: DELAY_MS });
});

after(async () => {
  await proxy.stop();
  await new Promise<void>((resolve) => echo.close(() => resolve()));
});

/** Sends `payload` through the proxy, ends, and resolves the echo and the times of its first byte and its end. */
function roundTrip(payload: Buffer): Promise<{ echoed: Buffer; firstByteMs: number; endMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect({ host: '127.0.0.1', port: proxy.port }, () => socket.end(payload));
    const chunks: Buffer[] = [];
    let firstByteMs = -1;
    socket.on('data', (chunk: Buffer) => {
      if (firstByteMs < 0) firstByteMs = performance.now() - started;
      chunks.push(chunk);
    });
    socket.on('end', () => resolve({ echoed: Buffer.concat(chunks), firstByteMs, endMs: performance.now() - started }));
    socket.on('error', reject);
  });
}

void describe('latency proxy', () => {
  void test('a new connection pays the handshake and a round trip before the first answer byte', async () => {
    const { echoed, firstByteMs } = await roundTrip(Buffer.from('ping'));
    assert.equal(echoed.toString(), 'ping');
    // Handshake (2 × delay), then the bytes there (delay) and back (delay).
    assert.ok(firstByteMs >= 4 * DELAY_MS - 2, `first byte after ${firstByteMs.toFixed(1)} ms`);
  });

  void test('2 MiB arrive whole and in order, and the end follows them', async () => {
    const payload = randomBytes(2 * 1024 * 1024);
    const { echoed, endMs } = await roundTrip(payload);
    assert.equal(echoed.length, payload.length);
    assert.ok(echoed.equals(payload), 'the echo differs from what was sent');
    assert.ok(endMs >= 4 * DELAY_MS - 2);
  });

  void test('counts its connections; refuses a non-port upstream and a negative delay', async () => {
    assert.ok(proxy.connections() >= 2);
    await assert.rejects(startLatencyProxy({ upstreamPort: 0, delayMs: 1 }), RangeError);
    await assert.rejects(startLatencyProxy({ upstreamPort: 80, delayMs: -1 }), RangeError);
  });
});
