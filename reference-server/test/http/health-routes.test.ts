// GET /healthz answers while the process runs; GET /readyz says whether the store answers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testApp } from '../helpers.ts';

void test('/healthz is 200 while the process runs; /readyz is 200 while the store answers, 503 once it does not', async () => {
  const t = await testApp();
  try {
    const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { host: '127.0.0.1' } });
    const health = await get('/healthz');
    assert.deepEqual([health.statusCode, health.json()], [200, { status: 'ok' }]);
    const ready = await get('/readyz');
    assert.deepEqual([ready.statusCode, ready.json()], [200, { status: 'ready' }]);
    assert.equal(ready.headers['cache-control'], 'no-store');
    await t.services.store.close(); // the database gone
    const gone = await get('/readyz');
    assert.deepEqual([gone.statusCode, gone.json()], [503, { status: 'unavailable' }]);
    assert.equal((await get('/healthz')).statusCode, 200, 'the process still answers');
  } finally {
    await t.app.close();
  }
});
