// The pure parsers behind 000-1001, 000-1010, 000-2100/2102 and 000-2110.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseAccept } from '../../src/gateway/header-syntax.ts';
import { hostNameOf, normalizeAllowedHost } from '../../src/gateway/host-header.ts';
import { parseQuery } from '../../src/gateway/query-string.ts';
import { decodePath } from '../../src/gateway/uri-path.ts';

void test('host names: port stripped, IPv6 brackets handled, junk refused', () => {
  assert.equal(hostNameOf('API.Example.test:8443'), 'api.example.test');
  assert.equal(hostNameOf('[::1]:443'), '::1');
  assert.equal(hostNameOf('[::1]'), '::1');
  for (const bad of ['', 'a b', 'host:port', '[::1', '[zz]', 'h:123456', 'user@host'])
    assert.equal(hostNameOf(bad), undefined, bad);
  assert.equal(normalizeAllowedHost('[::1]'), '::1');
});

void test('paths: segments decoded once; escapes, controls and dot-segments refused', () => {
  assert.deepEqual(decodePath('/v1/people/er/a%2Fb'), ['v1', 'people', 'er', 'a/b']);
  for (const bad of [
    '/v1/%zz',
    '/v1/%',
    '/v1/%C3%28',
    '/v1/a%00',
    '/v1/a%7F',
    '/v1/.',
    '/v1/%2e',
    '/v1/..',
    '/v1/a b',
    '/v1/ä',
    '/v1/a"b',
    '/v1/x#y',
  ]) {
    const result = decodePath(bad);
    assert.ok(!Array.isArray(result) && result.code === '000-1010', bad);
  }
});

void test('Accept: media-range lists with parameters and q-values', () => {
  assert.deepEqual(parseAccept('application/json'), [{ type: 'application', subtype: 'json', q: 1 }]);
  assert.deepEqual(parseAccept('text/html;level=1, application/*;q=0.5 ,*/*;q=0'), [
    { type: 'text', subtype: 'html', q: 1 },
    { type: 'application', subtype: '*', q: 0.5 },
    { type: '*', subtype: '*', q: 0 },
  ]);
  assert.equal(parseAccept('text/html;x="a;b,c", application/json')?.length, 2);
  for (const bad of ['json', 'application/', 'a/b;q=1.5', 'a/b;q', '*/json', 'a/b c'])
    assert.equal(parseAccept(bad), undefined, bad);
});

void test('queries: + is a space, unknown parameters kept, repeats and bad escapes refused', () => {
  assert.deepEqual(
    parseQuery('lastName=van+Dyke&limit=5&&x'),
    new Map([
      ['lastName', 'van Dyke'],
      ['limit', '5'],
      ['x', ''],
    ]),
  );
  assert.deepEqual(parseQuery(undefined), new Map());
  for (const bad of ['a=%zz', 'a=1&a=2', 'a=%C3%28', 'a=%00', 'a=b c']) {
    const result = parseQuery(bad);
    assert.ok(!(result instanceof Map) && result.code === '000-2110', bad);
  }
});
