// The switching proxy of a fault group (one worker runs many faults' checks through it): the fault
// in force is the one selected, with its own state and its own upstream; a switch waits for the
// exchanges under way; a member whose upstream is still starting is put in force once it listens,
// and one whose upstream failed is refused. The fault switch endpoint does the same over HTTP.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Agent, request } from 'undici';
import { startFaultSwitch } from '../fault-switch.ts';
import { startSwitchingProxy, withJson, type ProxyFault } from '../proxy.ts';

/** Plain-HTTP upstreams that answer their own name; `slow` answers after `release()`. */
const upstreams: Server[] = [];
let release: () => void = () => undefined;
async function upstream(name: string): Promise<string> {
  const server = createServer((req, res) => {
    const send = () =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ upstream: name, path: req.url }));
    if (req.url === '/slow') release = send;
    else send();
  });
  upstreams.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
let a = '';
let b = '';
void before(async () => {
  a = await upstream('a');
  b = await upstream('b');
});
void after(() => Promise.all(upstreams.map((s) => new Promise<void>((r) => s.close(() => r())))));

/** A fault that counts the responses it saw in its own state and stamps them with its name. */
const stamping = (name: string): ProxyFault => ({
  onResponse: (res, _req, ctx) => {
    const n = ((ctx.state.get('n') as number | undefined) ?? 0) + 1;
    ctx.state.set('n', n);
    return withJson(res, { ...(JSON.parse(res.body.toString('utf8')) as object), fault: name, n });
  },
});

void describe('switching proxy', () => {
  void test('the selected fault serves with its own state and upstream; a switch waits for exchanges under way', async () => {
    const proxy = await startSwitchingProxy({
      members: [
        { id: 'one', upstream: a, fault: stamping('one') },
        { id: 'two', upstream: b, fault: stamping('two') },
      ],
    });
    const agent = new Agent({ connect: { ca: proxy.caPem } });
    const get = async (path: string) =>
      (await (await request(`${proxy.url}${path}`, { dispatcher: agent })).body.json()) as Record<string, unknown>;
    try {
      assert.equal(proxy.selected(), 'one', 'the first member is in force at the start');
      assert.deepEqual(await get('/x'), { upstream: 'a', path: '/x', fault: 'one', n: 1 });
      await proxy.select('two');
      assert.deepEqual(await get('/y'), { upstream: 'b', path: '/y', fault: 'two', n: 1 });
      await proxy.select('one');
      assert.deepEqual(
        await get('/z'),
        { upstream: 'a', path: '/z', fault: 'one', n: 2 },
        'its state kept across switches',
      );

      const slow = get('/slow');
      while (proxy.requests < 4) await new Promise((r) => setImmediate(r));
      let switched = false;
      const switching = proxy.select('two').then(() => {
        switched = true;
      });
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(switched, false, 'no switch while an exchange is under way');
      release();
      assert.deepEqual(
        await slow,
        { upstream: 'a', path: '/slow', fault: 'one', n: 3 },
        'served by the fault in force when it arrived',
      );
      await switching;
      assert.equal(proxy.selected(), 'two');
      await assert.rejects(proxy.select('three'), /no fault 'three'/);
    } finally {
      await agent.close();
      await proxy.close();
    }
  });

  void test('a restart of the target is told to the fault in force alone, with its own state', async () => {
    const heard: string[] = [];
    const listening = (name: string): ProxyFault => ({
      ...stamping(name),
      onTargetRestart: (state) => {
        heard.push(`${name}:${(state.get('n') as number | undefined) ?? 0}`);
      },
    });
    const proxy = await startSwitchingProxy({
      members: [
        { id: 'one', upstream: a, fault: listening('one') },
        { id: 'two', upstream: b, fault: listening('two') },
      ],
    });
    const agent = new Agent({ connect: { ca: proxy.caPem } });
    try {
      await (await request(`${proxy.url}/x`, { dispatcher: agent })).body.dump();
      await proxy.restarted();
      await proxy.select('two');
      await proxy.restarted();
      assert.deepEqual(heard, ['one:1', 'two:0']);
    } finally {
      await agent.close();
      await proxy.close();
    }
  });

  void test('a member whose upstream is still starting is selected once it listens; a failed one is refused', async () => {
    let listen: (origin: { upstream: string }) => void = () => undefined;
    const later = new Promise<{ upstream: string }>((resolve) => {
      listen = resolve;
    });
    const proxy = await startSwitchingProxy({
      members: [
        { id: 'ready', upstream: a },
        { id: 'starting', upstream: '', later },
        { id: 'failed', upstream: '', later: Promise.reject(new Error('did not start')) },
      ],
    });
    const faultSwitch = await startFaultSwitch(new Map([['g', proxy]]));
    try {
      let selected = false;
      const selecting = fetch(`${faultSwitch.url}/select?group=g&fault=starting`, { method: 'POST' }).then((r) => {
        selected = true;
        return r.status;
      });
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(selected, false, 'waits for the upstream');
      listen({ upstream: b });
      assert.equal(await selecting, 204);
      assert.equal(proxy.selected(), 'starting');
      const refused = await fetch(`${faultSwitch.url}/select?group=g&fault=failed`, { method: 'POST' });
      assert.equal(refused.status, 404);
      assert.match(await refused.text(), /did not start/);
      assert.equal((await fetch(`${faultSwitch.url}/select?group=nope&fault=ready`, { method: 'POST' })).status, 404);
      assert.equal(proxy.selected(), 'starting', 'a refused switch changes nothing');
    } finally {
      await faultSwitch.close();
      await proxy.close();
    }
  });
});
