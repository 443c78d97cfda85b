import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expectGatewayError, fromInject } from './support/expect-gateway-error.ts';
import { createGatewayFixture } from './support/gateway-fixture.ts';

const json = { 'content-type': 'application/json' };

void test('GET/POST /__test/faults reads and sets the switch; an unknown name is a 400 JSON error', async () => {
  const f = await createGatewayFixture();
  try {
    assert.deepEqual((await f.app.inject({ method: 'GET', url: '/__test/faults' })).json(), { active: null });
    const set = await f.app.inject({
      method: 'POST',
      url: '/__test/faults',
      headers: json,
      payload: '{"fault":"route-failure"}',
    });
    assert.deepEqual(set.json(), { active: 'route-failure' });
    assert.deepEqual((await f.app.inject({ method: 'GET', url: '/__test/faults' })).json(), {
      active: 'route-failure',
    });
    for (const payload of ['{"fault":"meteor"}', '{}', 'nope']) {
      const refused = await f.app.inject({ method: 'POST', url: '/__test/faults', headers: json, payload });
      assert.equal(refused.statusCode, 400, payload);
      assert.equal(refused.json<{ error: string }>().error, 'invalid_request');
    }
    assert.equal(f.gateway.faults.active, 'route-failure', 'a refused request leaves the switch alone');
  } finally {
    await f.close();
  }
});

void test('principals: unknown ones are 404, bad bodies 400', async () => {
  const f = await createGatewayFixture();
  try {
    const unknown = await f.app.inject({
      method: 'POST',
      url: '/__test/principals/deactivate',
      headers: json,
      payload: '{"kind":"client","clientId":"nobody"}',
    });
    assert.equal(unknown.statusCode, 404);
    const bad = await f.app.inject({
      method: 'POST',
      url: '/__test/principals/activate',
      headers: json,
      payload: '{"kind":"robot"}',
    });
    assert.equal(bad.statusCode, 400);
    const ok = await f.app.inject({
      method: 'POST',
      url: '/__test/principals/deactivate',
      headers: json,
      payload: '{"kind":"client","clientId":"reader-cc"}',
    });
    assert.deepEqual(ok.json(), { kind: 'client', clientId: 'reader-cc', active: false });
    assert.equal((await f.store.findClient('reader-cc'))?.active, false);
  } finally {
    await f.close();
  }
});

void test('without test controls the control paths are ordinary gateway paths (000-1020)', async () => {
  const f = await createGatewayFixture({ testControls: false });
  try {
    expectGatewayError(fromInject(await f.app.inject({ method: 'GET', url: '/__test/faults' })), '000-1020');
    expectGatewayError(
      fromInject(
        await f.app.inject({ method: 'POST', url: '/__test/principals/deactivate', headers: json, payload: '{}' }),
      ),
      '000-1020',
    );
  } finally {
    await f.close();
  }
});

void test("the app builder's paths are not the gateway's: a method it does not serve there is a plain 404", async () => {
  const f = await createGatewayFixture();
  try {
    for (const url of [
      '/api/v1/auth/oauth2/token',
      '/oauth2/default/v1/token',
      '/.well-known/jwks.json',
      '/__test/clock',
    ]) {
      const response = await f.app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 404, url);
      assert.deepEqual(response.json(), { error: 'not_found', message: 'Not Found' });
    }
  } finally {
    await f.close();
  }
});
