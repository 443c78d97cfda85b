// The contract's schemas: each compiles in strict mode, accepts its own examples, rejects the
// known-bad values below, and the committed .schema.json files equal their TypeScript sources.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { gatewayErrorCodes } from '../gateway-error-codes.ts';
import { createAjv, schemaFor, schemaIdBase, schemaIds, validate } from '../index.ts';
import type { SchemaId } from '../index.ts';
import { authoredSchemas, emittedText } from '../src/index.ts';

const schemasDir = join(import.meta.dirname, '..');

const usCc = { access_token: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln', token_type: 'Bearer', expires_in: 3600 };
const euCc = { ...usCc, scope: 'empty_default' };
const pw = {
  ...usCc,
  expires_in: 604800,
  refresh_token: 'tGzv3JOkF0XG5Qx2TlKWIA',
  scope: 'email openid profile company',
};
const ccRequest = { client_id: 'us-cc-client', client_secret: 's3cret', grant_type: 'client_credentials' };
const pwRequest = { ...ccRequest, grant_type: 'password', username: 'acme\\jdoe', password: 'pw' };
const rtRequest = { ...ccRequest, grant_type: 'refresh_token', refresh_token: 'tGzv3JOkF0XG5Qx2TlKWIA' };

const without = (value: Record<string, unknown>, member: string): Record<string, unknown> => {
  const copy = { ...value };
  delete copy[member];
  return copy;
};

/** Values each schema must reject, with the reason a reader sees when one is wrongly accepted. */
const knownBad: Partial<Record<SchemaId, [string, unknown][]>> = {
  'token-request-client-credentials': [
    ['missing client_secret', without(ccRequest, 'client_secret')],
    ['empty client_id (empty counts as absent)', { ...ccRequest, client_id: '' }],
    ['grant_type of another grant', { ...ccRequest, grant_type: 'password' }],
    ['a field value that is not a string', { ...ccRequest, foo: 1 }],
    ['a scope with a double quote', { ...ccRequest, scope: 'a"b' }],
  ],
  'token-request-password': [
    ['missing username', without(pwRequest, 'username')],
    ['missing password', without(pwRequest, 'password')],
    ['username without tenant prefix', { ...pwRequest, username: 'jdoe' }],
    ['username with an empty user name', { ...pwRequest, username: 'acme\\' }],
    ['password with a line feed', { ...pwRequest, password: 'a\nb' }],
  ],
  'token-request-refresh-token': [
    ['missing refresh_token', without(rtRequest, 'refresh_token')],
    ['empty refresh_token', { ...rtRequest, refresh_token: '' }],
    ['grant_type client_credentials', { ...rtRequest, grant_type: 'client_credentials' }],
  ],
  'token-response-us-client-credentials': [
    ['missing access_token', without(usCc, 'access_token')],
    ['missing expires_in', without(usCc, 'expires_in')],
    ['refresh_token in a client_credentials response', { ...usCc, refresh_token: 'x' }],
    ['scope in a US client_credentials response', { ...usCc, scope: 'empty_default' }],
    ['token_type "bearer"', { ...usCc, token_type: 'bearer' }],
    ['expires_in "3600"', { ...usCc, expires_in: '3600' }],
    ['expires_in 0', { ...usCc, expires_in: 0 }],
    ['expires_in 3600.5', { ...usCc, expires_in: 3600.5 }],
    ['empty access_token', { ...usCc, access_token: '' }],
    ['access_token with a space', { ...usCc, access_token: 'a b' }],
    ['access_token with a non-ASCII character', { ...usCc, access_token: 'tokén' }],
    ['an array', [usCc]],
  ],
  'token-response-eu-client-credentials': [
    ['missing scope', usCc],
    ['EU scope other than empty_default', { ...euCc, scope: 'openid' }],
    ['refresh_token in a client_credentials response', { ...euCc, refresh_token: 'x' }],
    ['token_type "bearer"', { ...euCc, token_type: 'bearer' }],
  ],
  'token-response-password': [
    ['missing refresh_token', without(pw, 'refresh_token')],
    ['missing scope', without(pw, 'scope')],
    ['scope as an array', { ...pw, scope: ['email', 'openid'] }],
    ['scope with a double space', { ...pw, scope: 'email  openid' }],
    ['empty refresh_token', { ...pw, refresh_token: '' }],
    ['expires_in "604800"', { ...pw, expires_in: '604800' }],
  ],
  'token-response-refresh-token': [
    ['missing refresh_token', without(pw, 'refresh_token')],
    ['token_type "BEARER"', { ...pw, token_type: 'BEARER' }],
  ],
  'token-error': [
    ['missing error', { error_description: 'x' }],
    ['error not in the enum', { error: 'server_error' }],
    ['error in upper case', { error: 'INVALID_REQUEST' }],
    ['error_description with a double quote', { error: 'invalid_request', error_description: 'bad "x"' }],
    ['error_description with a backslash', { error: 'invalid_request', error_description: 'a\\b' }],
    ['error_description with a non-ASCII character', { error: 'invalid_request', error_description: 'ungültig' }],
    ['relative error_uri', { error: 'invalid_request', error_uri: '/errors/1' }],
    ['an access_token in an error', { error: 'invalid_grant', access_token: 'x' }],
    ['a refresh_token in an error', { error: 'invalid_grant', refresh_token: 'x' }],
  ],
  'gateway-error': [
    ['code "001-1000"', { code: '001-1000', message: 'Bad Request' }],
    ['a code not in the table', { code: '000-1999', message: 'Unknown' }],
    ['a family pattern, not a code', { code: '000-21xx', message: 'Malformed request syntax' }],
    ['missing message', { code: '000-1202' }],
    ['empty message', { code: '000-1202', message: '' }],
    ['missing code', { message: 'Unauthorized' }],
  ],
  'requirement-catalogue': [
    ['no requirements', { requirements: [] }],
    [
      'a malformed ID',
      {
        requirements: [
          {
            id: 'grant-cc-1',
            level: 'MUST',
            area: 'grants',
            source: '§4',
            statement: 'A client_credentials request succeeds at the US endpoint.',
          },
        ],
      },
    ],
    [
      'an unknown level',
      {
        requirements: [
          {
            id: 'GRANT-CC-001',
            level: 'MUST-S',
            area: 'grants',
            source: '§4',
            statement: 'A client_credentials request succeeds at the US endpoint.',
          },
        ],
      },
    ],
    [
      'an unknown area',
      {
        requirements: [
          {
            id: 'GRANT-CC-001',
            level: 'MUST',
            area: 'events',
            source: '§4',
            statement: 'A client_credentials request succeeds at the US endpoint.',
          },
        ],
      },
    ],
    [
      'INTERPRETATION without an interpretation',
      {
        requirements: [
          {
            id: 'GRANT-CC-006',
            level: 'INTERPRETATION',
            area: 'grants',
            source: '§5.3',
            statement: 'An unregistered client gets the outcome the target declares.',
          },
        ],
      },
    ],
    [
      'a statement without a final period',
      {
        requirements: [
          {
            id: 'GRANT-CC-001',
            level: 'MUST',
            area: 'grants',
            source: '§4',
            statement: 'A client_credentials request succeeds at the US endpoint',
          },
        ],
      },
    ],
    [
      'an unknown capability',
      {
        requirements: [
          {
            id: 'GRANT-CC-001',
            level: 'MUST',
            area: 'grants',
            source: '§4',
            statement: 'A client_credentials request succeeds at the US endpoint.',
            needs: ['time-travel'],
          },
        ],
      },
    ],
    [
      'an unknown member',
      {
        requirements: [
          {
            id: 'GRANT-CC-001',
            level: 'MUST',
            area: 'grants',
            source: '§4',
            statement: 'A client_credentials request succeeds at the US endpoint.',
            verdict: 'PASS',
          },
        ],
      },
    ],
  ],
  'interpretation-catalogue': [
    [
      'neither values nor schema',
      {
        interpretations: [
          { id: 'OI-1', key: 'x', title: 't', question: 'q', source: '§2', default: 'a', reference: 'r' },
        ],
      },
    ],
    [
      'a key that is not camelCase',
      {
        interpretations: [
          {
            id: 'OI-1',
            key: 'Unsupported-Grant',
            title: 't',
            question: 'q',
            source: '§2',
            values: ['a', 'b'],
            default: 'a',
            reference: 'r',
          },
        ],
      },
    ],
  ],
};

void describe('schemas', () => {
  void test('every schema compiles in a fresh strict-mode ajv', () => {
    for (const id of schemaIds) assert.doesNotThrow(() => createAjv().compile(schemaFor(id)), id);
  });

  for (const id of schemaIds) {
    void describe(id, () => {
      const schema = schemaFor(id) as Record<string, unknown>;

      void test('has $id, title, description and examples; $id names its file', () => {
        assert.equal(schema.$id, `${schemaIdBase}${id}.schema.json`);
        for (const key of ['title', 'description']) assert.equal(typeof schema[key], 'string', `${id} lacks ${key}`);
        assert.ok(Array.isArray(schema.examples) && schema.examples.length > 0, `${id} has no examples`);
        assert.ok(existsSync(join(schemasDir, `${id}.schema.json`)), `schemas/${id}.schema.json is missing`);
      });

      void test('accepts its own examples', () => {
        for (const [i, example] of (schema.examples as unknown[]).entries()) {
          const result = validate(id, example);
          assert.ok(result.valid, `example ${i}: ${result.valid ? '' : result.text}`);
        }
      });

      const bad = knownBad[id];
      if (bad) {
        void test('rejects the known-bad values', () => {
          for (const [reason, value] of bad) {
            const result = validate(id, value);
            assert.equal(result.valid, false, `${id} accepted ${reason}`);
            if (!result.valid)
              assert.ok(
                result.errors.length > 0 && result.errors.every((line) => line.length > 0),
                `${id}: no readable error for ${reason}`,
              );
          }
        });
      }
    });
  }

  void test('every schema authored in TypeScript has a table of known-bad values', () => {
    for (const id of Object.keys(authoredSchemas))
      assert.ok(knownBad[id as SchemaId]?.length, `no known-bad values for ${id}`);
  });

  void test('the committed .schema.json files equal their sources (run `npm run schemas:emit` when this fails)', () => {
    for (const [name, schema] of Object.entries(authoredSchemas)) {
      const file = join(schemasDir, `${name}.schema.json`);
      assert.ok(existsSync(file), `schemas/${name}.schema.json is missing`);
      assert.equal(readFileSync(file, 'utf8'), emittedText(schema), `schemas/${name}.schema.json is stale`);
    }
  });

  void test('the gateway-error code enum is exactly the code list of gateway-error-codes.ts', () => {
    const properties = authoredSchemas['gateway-error'].properties;
    assert.deepEqual([...properties.code.enum], [...gatewayErrorCodes]);
    for (const code of gatewayErrorCodes) assert.ok(validate('gateway-error', { code, message: 'x' }).valid, code);
  });

  void test('error texts never echo the offending value', () => {
    const secret = 'sekrit value with spaces';
    const result = validate('token-response-us-client-credentials', {
      access_token: secret,
      token_type: secret,
      expires_in: secret,
      refresh_token: secret,
    });
    assert.equal(result.valid, false);
    if (!result.valid) assert.ok(!result.text.includes(secret), result.text);
  });
});
