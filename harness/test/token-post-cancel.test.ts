// The preflight's requests are given up when the run no longer needs them (its reachability phase
// found the target not answering): the request ends at once and its connection closes. A raw TCP
// server holds the request forever; the test waits on the connection's close event, not on a clock.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { test } from 'node:test';
import { tokenPoster } from '../preflight/token-post.ts';

void test('a cancelled poster ends its request and closes the connection', { timeout: 60_000 }, async () => {
  const held: Socket[] = [];
  let received!: () => void;
  const requestRead = new Promise<void>((resolve) => (received = resolve));
  const server = createServer((socket) => {
    held.push(socket);
    socket.on('error', () => socket.destroy());
    socket.once('data', () => received()); // read, never answered
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    const cancel = new AbortController();
    // A timeout far beyond the test's: only the cancel can end the request in time.
    const poster = tokenPoster({}, 3_600_000, cancel.signal);
    const answer = poster.post(`http://127.0.0.1:${port}/token`, { grant_type: 'client_credentials' });
    answer.catch(() => undefined);
    await requestRead;
    const closed = once(held[0]!, 'close');
    cancel.abort();
    await assert.rejects(answer, (error: Error) => error.name === 'AbortError' || /abort/i.test(error.message));
    await closed;
    await poster.close();
  } finally {
    for (const s of held) s.destroy();
    server.close();
  }
});
