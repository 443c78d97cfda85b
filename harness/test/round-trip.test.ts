// The round trip `run` measures to the target: an exchange on an open connection (its first one, with
// the connect, is not timed), so a server that answers after 200 ms reads at least 200 ms and one that
// answers at once reads less; an address that does not answer says nothing (undefined).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { measureRoundTripMs } from '../reference/round-trip.ts';
import type { TargetProfile } from '../../core/profile/profile.schema.ts';

const profileAt = (url: string) => ({ authUrlUs: url }) as TargetProfile;

void describe('round trip to the target', () => {
  let server: Server;
  let connections = 0;
  const delayMs = 200;
  before(async () => {
    server = createServer((req, res) => {
      const delay = req.url === '/' && req.headers.host?.startsWith('localhost') ? delayMs : 0;
      setTimeout(() => res.writeHead(404).end('not here'), delay);
    });
    server.on('connection', () => (connections += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  void test('an answer after 200 ms reads at least 200 ms, on one connection', async () => {
    const port = (server.address() as AddressInfo).port;
    connections = 0;
    const ms = await measureRoundTripMs(profileAt(`http://localhost:${port}/api`));
    assert.ok(ms !== undefined && ms >= delayMs, `measured ${ms} ms`);
    assert.equal(connections, 1, 'every exchange after the first reuses its connection');
  });

  void test('an answer at once reads less than a distant one', async () => {
    const port = (server.address() as AddressInfo).port;
    const ms = await measureRoundTripMs(profileAt(`http://127.0.0.1:${port}`));
    assert.ok(ms !== undefined && ms < delayMs, `measured ${ms} ms`);
  });

  void test('an address that does not answer: nothing measured', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    assert.equal(await measureRoundTripMs(profileAt(`http://127.0.0.1:${port}`)), undefined);
  });
});
