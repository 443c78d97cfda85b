// schemas/openapi.json describes the reference server: each answer below (every documented status
// of the token endpoints, and of the protected call those a test can reach without a fault switch)
// is found in the document under its path, method and status, its JSON body is valid against that
// response's schema, and the headers the response documents are present.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { openApiSchemaCompiler } from '../../../schemas/openapi-ajv.ts';
import { EU_TOKEN_PATH, US_TOKEN_PATH } from '../../src/http/token-routes.ts';
import { basic, cc, json, pw, rt, seed, testApp, type TestApp } from '../helpers.ts';

type Json = Record<string, unknown>;
interface DocumentedResponse {
  headers?: Record<string, unknown>;
  content?: Record<string, { schema: unknown }>;
}

const document = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', '..', '..', 'schemas', 'openapi.json'), 'utf8'),
) as Json;
const compile = openApiSchemaCompiler(document);

/** Asserts that `response` is an answer the document gives to `method path` (a documented path template). */
function assertDocumented(pathTemplate: string, method: string, response: LightMyRequestResponse): void {
  const where = `${method.toUpperCase()} ${pathTemplate} → ${response.statusCode}`;
  const operation = (
    document.paths as Record<string, Record<string, { responses: Record<string, DocumentedResponse> }>>
  )[pathTemplate]?.[method];
  assert.ok(operation, `${method.toUpperCase()} ${pathTemplate} is not in the document`);
  const documented = operation.responses[String(response.statusCode)];
  assert.ok(documented, `${where}: status not documented (documented: ${Object.keys(operation.responses).join(', ')})`);
  for (const header of Object.keys(documented.headers ?? {})) {
    assert.ok(response.headers[header.toLowerCase()] !== undefined, `${where}: documented header ${header} is missing`);
  }
  const media = documented.content?.['application/json'];
  assert.ok(media, `${where}: no application/json content documented`);
  assert.match(String(response.headers['content-type']), /^application\/json\b/, `${where}: content type`);
  const check = compile(media.schema);
  assert.ok(
    check(json(response)),
    `${where}: body does not match the documented schema: ${JSON.stringify(check.errors)}`,
  );
}

void describe('schemas/openapi.json against the reference server', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(async () => {
    await t.close();
  });

  const usPath = '/api/v1/auth/oauth2/token';
  const euPath = '/oauth2/default/v1/token';
  const personPath = '/v1/people/er/{identifier}';
  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers: { host: '127.0.0.1', accept: 'application/json', ...headers } });

  void test("the documented paths are the server's token paths", () => {
    assert.equal(US_TOKEN_PATH, usPath);
    assert.equal(EU_TOKEN_PATH, euPath);
  });

  void test('token endpoints: 200 per grant, 400, 401, 405 are documented answers', async () => {
    const usCc = await t.token(cc(seed.usCc));
    assert.equal(usCc.statusCode, 200);
    assertDocumented(usPath, 'post', usCc);
    const euCc = await t.token(cc(seed.eu), { eu: true });
    assert.equal(euCc.statusCode, 200);
    assertDocumented(euPath, 'post', euCc);
    const password = await t.token(pw(seed.usPw, seed.alice));
    assert.equal(password.statusCode, 200);
    assertDocumented(usPath, 'post', password);
    const refreshed = await t.token(rt(seed.usPw, String(json(password).refresh_token)));
    assert.equal(refreshed.statusCode, 200);
    assertDocumented(usPath, 'post', refreshed);

    const missingGrant = await t.token({ client_id: seed.usCc.id, client_secret: seed.usCc.secret });
    assert.equal(missingGrant.statusCode, 400);
    assertDocumented(usPath, 'post', missingGrant);
    const basicWrongSecret = await t.token(
      { grant_type: 'client_credentials' },
      { headers: { authorization: basic(seed.usCc.id, 'wrong-secret') } },
    );
    assert.equal(basicWrongSecret.statusCode, 401);
    assertDocumented(usPath, 'post', basicWrongSecret);
    for (const [path, method] of [
      [usPath, 'GET'],
      [euPath, 'DELETE'],
      [usPath, 'PUT'],
      [euPath, 'PATCH'],
    ] as const) {
      const refused = await t.app.inject({ method, url: path, headers: { host: '127.0.0.1' } });
      assert.equal(refused.statusCode, 405, `${method} ${path}`);
      assertDocumented(path, method.toLowerCase(), refused);
    }
  });

  void test('protected call: 200, and the gateway errors 400 (000-5001), 401 (000-1201, 000-1205) and 404 (000-5003) are documented answers', async () => {
    const token = String(json(await t.token(cc(seed.usCc))).access_token);
    const person = await get('/v1/people/er/E-1001', { authorization: `Bearer ${token}` });
    assert.equal(person.statusCode, 200, person.body);
    assertDocumented(personPath, 'get', person);
    const noToken = await get('/v1/people/er/E-1001');
    assert.equal(json(noToken).code, '000-1201');
    assertDocumented(personPath, 'get', noToken);
    const unparseable = await get('/v1/people/er/E-1001', { authorization: 'Bearer not-a-jwt' });
    assert.equal(json(unparseable).code, '000-1205');
    assertDocumented(personPath, 'get', unparseable);
    const unknown = await get('/v1/people/er/E-9999', { authorization: `Bearer ${token}` });
    assert.equal(json(unknown).code, '000-5003');
    assertDocumented(personPath, 'get', unknown);
    const malformed = await get('/v1/people/er/-E1001', { authorization: `Bearer ${token}` });
    assert.equal(json(malformed).code, '000-5001');
    assertDocumented(personPath, 'get', malformed);
  });
});
