// The restart control of the servers a run started (harness/reference/restart-control.ts): POST
// starts a restart and answers 202 with its number; GET ?restart=n answers once that restart is
// over (a long poll), 500 with the reason when it failed; unknown servers are 404.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { request } from 'undici';
import { startRestartControl } from '../reference/restart-control.ts';

async function call(url: string, method: 'GET' | 'POST'): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await request(url, {
    method,
    ...(method === 'POST' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}),
  });
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
}

void test('a restart is asked for, waited for by a long poll, and each server restarts one restart at a time', async () => {
  const heard: string[] = [];
  const control = await startRestartControl((name) => heard.push(name));
  try {
    let release!: () => void;
    let restarts = 0;
    const url = control.register('sandbox', {
      restart: () =>
        new Promise<void>((resolve) => {
          restarts += 1;
          release = resolve;
        }),
    });
    const asked = await call(url, 'POST');
    assert.deepEqual(asked, { status: 202, body: { restart: 1 } });
    const waiting = call(`${url}?restart=1`, 'GET');
    // The restart is under way until the server is back: the poll answers only then.
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(restarts, 1);
    release();
    assert.deepEqual(await waiting, { status: 200, body: { restart: 1, serving: true } });
    assert.deepEqual(heard, ['sandbox']);
    assert.deepEqual(
      await call(`${url}?restart=1`, 'GET'),
      { status: 200, body: { restart: 1, serving: true } },
      'a finished restart answers at once',
    );
  } finally {
    await control.close();
  }
});

void test('a failed restart is a 500 with its reason; an unknown server a 404; a server without a store file cannot be registered', async () => {
  const control = await startRestartControl();
  try {
    const url = control.register('clock-target-0', {
      restart: () => Promise.reject(new Error('exited with code 1 before listening')),
    });
    assert.equal((await call(url, 'POST')).status, 202);
    assert.deepEqual(await call(`${url}?restart=1`, 'GET'), {
      status: 500,
      body: { restart: 1, serving: false, error: 'exited with code 1 before listening' },
    });
    assert.equal((await call(url.replace('clock-target-0', 'nothing'), 'POST')).status, 404);
    assert.throws(() => control.register('memory', {}), /cannot be restarted/);
  } finally {
    await control.close();
  }
});
