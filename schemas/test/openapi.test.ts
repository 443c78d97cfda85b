// schemas/openapi.json: a valid OpenAPI 3.1 document by a real OpenAPI validator
// (@seriousme/openapi-schema-validator, which checks against the official 3.1 schema), equal to
// what `npm run schemas:emit` builds, its schemas the authored ones verbatim, every $ref resolvable,
// and every example it carries valid against the schema it illustrates.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { gatewayErrorCodes, gatewayErrors } from '../gateway-error-codes.ts';
import { openApiSchemaCompiler } from '../openapi-ajv.ts';
import { authoredSchemas, emittedText } from '../src/index.ts';
import { buildOpenApiDocument, openApiFileName } from '../src/openapi.ts';

type Json = Record<string, unknown>;

const file = join(import.meta.dirname, '..', openApiFileName);
const committedText = readFileSync(file, 'utf8');
const committed = JSON.parse(committedText) as Json;

async function validateDocument(document: Json): Promise<{ valid: boolean; errors: string }> {
  const validator = new Validator();
  // A copy: the validator keeps a reference to the document it is given.
  const result = await validator.validate(structuredClone(document));
  return { valid: result.valid, errors: JSON.stringify(result.errors ?? null) };
}

/** Every object below `value` (depth first), with its JSON pointer. */
function* objectsIn(value: unknown, pointer = ''): Generator<[string, Json]> {
  if (value === null || typeof value !== 'object') return;
  if (!Array.isArray(value)) yield [pointer, value as Json];
  for (const [key, child] of Object.entries(value))
    yield* objectsIn(child, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
}

function resolvePointer(document: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>(
      (node, token) => (node !== null && typeof node === 'object' ? (node as Json)[token] : undefined),
      document,
    );
}

/** The Media Type Objects of the document: [where, schema, example values]. */
function mediaTypes(document: Json): [string, Json, unknown[]][] {
  const found: [string, Json, unknown[]][] = [];
  for (const [pointer, object] of objectsIn(document.paths)) {
    if (!/\/content\/[^/]+$/.test(pointer) || typeof object.schema !== 'object') continue;
    const examples = [
      ...('example' in object ? [object.example] : []),
      ...Object.values((object.examples ?? {}) as Record<string, { value: unknown }>).map((example) => example.value),
    ];
    found.push([pointer, object.schema as Json, examples]);
  }
  return found;
}

void describe('schemas/openapi.json', () => {
  void test('is what `npm run schemas:emit` builds (run it when this fails)', () => {
    assert.equal(committedText, emittedText(buildOpenApiDocument()), 'schemas/openapi.json is stale');
  });

  void test('is a valid OpenAPI 3.1 document by @seriousme/openapi-schema-validator', async () => {
    const result = await validateDocument(committed);
    assert.ok(result.valid, `schemas/openapi.json is not a valid OpenAPI document: ${result.errors}`);
    assert.match(String(committed.openapi), /^3\.1\.\d+$/);
  });

  void test('the validator rejects deliberately broken documents (it is not a check that cannot fail)', async () => {
    const broken: [string, (document: Json) => void][] = [
      ['no info', (document) => delete document.info],
      [
        'a path that does not start with "/"',
        (document) => {
          const paths = document.paths as Json;
          paths['v1/people/er/{identifier}'] = paths['/v1/people/er/{identifier}'];
          delete paths['/v1/people/er/{identifier}'];
        },
      ],
      [
        'a response without a description',
        (document) => {
          delete (resolvePointer(document, '/paths/~1oauth2~1default~1v1~1token/post/responses/200') as Json)
            .description;
        },
      ],
      [
        'a parameter "in: body" (OpenAPI 2 only)',
        (document) => {
          (resolvePointer(document, '/paths/~1v1~1people~1er~1{identifier}/get/parameters/0') as Json).in = 'body';
        },
      ],
      [
        'a security scheme of an unknown type',
        (document) => {
          (resolvePointer(document, '/components/securitySchemes/bearerAuth') as Json).type = 'bearer';
        },
      ],
    ];
    for (const [label, breakIt] of broken) {
      const document = structuredClone(committed);
      breakIt(document);
      const result = await validateDocument(document);
      assert.equal(result.valid, false, `the validator accepted a document with ${label}`);
    }
  });

  void test('embeds the wire schemas of schemas/ verbatim (one source, no hand copies)', () => {
    const schemas = (committed.components as { schemas: Json }).schemas;
    const embedded = Object.keys(schemas).filter((name) => Object.hasOwn(authoredSchemas, name));
    assert.ok(embedded.length >= 9, `only ${embedded.length} authored schemas embedded`);
    for (const name of embedded)
      assert.deepEqual(
        schemas[name],
        authoredSchemas[name as keyof typeof authoredSchemas],
        `components.schemas.${name} differs from its source`,
      );
  });

  void test('every $ref resolves inside the document', () => {
    const refs = [...objectsIn(committed)].filter(([, object]) => typeof object.$ref === 'string');
    assert.ok(refs.length > 10, 'the document uses $ref');
    for (const [pointer, object] of refs) {
      const target = String(object.$ref);
      assert.ok(target.startsWith('#/'), `${pointer}: $ref ${target} points outside the document`);
      assert.notEqual(
        resolvePointer(committed, target.slice(1)),
        undefined,
        `${pointer}: $ref ${target} does not resolve`,
      );
    }
  });

  void test('has the three paths of spec §4 on their own servers, with the gateway codes by status', () => {
    const paths = committed.paths as Record<string, Json>;
    assert.deepEqual(Object.keys(paths).sort(), [
      '/api/v1/auth/oauth2/token',
      '/oauth2/default/v1/token',
      '/v1/people/er/{identifier}',
    ]);
    const serverUrls = Object.values(paths).map((path) => (path.servers as { url: string }[])[0]?.url);
    assert.deepEqual(serverUrls, ['{auth_url_us}', '{auth_url_eu}', '{base_url}']);
    for (const token of ['/api/v1/auth/oauth2/token', '/oauth2/default/v1/token']) {
      const operations = paths[token] as Record<string, { responses: Json }>;
      assert.deepEqual(
        Object.keys(operations.post?.responses ?? {}),
        ['200', '400', '401', '429'],
        `${token} POST responses`,
      );
      assert.deepEqual(Object.keys(operations.get?.responses ?? {}), ['405'], `${token} GET responses`);
    }
    const person = (paths['/v1/people/er/{identifier}'] as { get: { responses: Json; security: unknown } }).get;
    assert.deepEqual(person.security, [{ bearerAuth: [] }]);
    const listedCodes = Object.entries(person.responses).flatMap(([status, response]) => {
      if (status === '200') return [];
      const schema = resolvePointer(
        response,
        '/content/application~1json/schema/allOf/1/properties/code/enum',
      ) as string[];
      for (const code of schema)
        assert.equal(
          String(gatewayErrors[code as keyof typeof gatewayErrors].status),
          status,
          `${code} listed under ${status}`,
        );
      return schema;
    });
    assert.deepEqual(
      [...listedCodes].sort(),
      [...gatewayErrorCodes].sort(),
      'every §7.2 code appears under exactly one status',
    );
  });

  void test('every example is valid against the schema of its media type (ajv, draft 2020-12, strict)', () => {
    const compile = openApiSchemaCompiler(committed);
    const media = mediaTypes(committed);
    assert.ok(media.length >= 8, `found only ${media.length} media types`);
    let checked = 0;
    for (const [pointer, schema, examples] of media) {
      const check = compile(schema);
      for (const example of examples) {
        assert.ok(check(example), `${pointer}: an example is invalid: ${JSON.stringify(check.errors)}`);
        checked += 1;
      }
    }
    assert.ok(checked >= 20, `only ${checked} examples checked`);
  });
});
