import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jwtStructureProblem, readBearerCredential } from '../../src/gateway/bearer-credentials.ts';

const jwt = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2ln';

void test('no header, an empty header and other schemes are no credentials (000-1201)', () => {
  for (const value of [undefined, '', '   ', 'Basic dXNlcjpwYXNz', `Token ${jwt}`, `Bearerx ${jwt}`, 'Negotiate']) {
    assert.equal(readBearerCredential(value).kind, 'none', String(value));
  }
});

void test('the scheme is case-insensitive and one or more spaces may follow it', () => {
  for (const value of [`Bearer ${jwt}`, `bearer ${jwt}`, `BEARER ${jwt}`, `Bearer    ${jwt}`]) {
    assert.deepEqual(readBearerCredential(value), { kind: 'token', token: jwt }, value);
  }
});

void test('present but unparseable credentials are malformed (000-1205)', () => {
  for (const value of [
    'Bearer',
    'Bearer ',
    `Bearer\t${jwt}`,
    `Bearer ${jwt} x`,
    'Bearer a,b',
    'Bearer ä',
    'Bearer abc',
    'Bearer a.b.c.d',
    'Bearer a.b.c',
    `Bearer ${jwt}=`,
    'Bearer =abc',
  ]) {
    assert.equal(readBearerCredential(value).kind, 'malformed', value);
  }
});

void test('a JWT needs three base64url segments whose header and claims are JSON objects', () => {
  assert.equal(jwtStructureProblem(jwt), undefined);
  assert.equal(jwtStructureProblem('e30.e30.'), 'not three base64url segments');
  assert.equal(jwtStructureProblem('bm90anNvbg.e30.c2ln'), 'undecodable JOSE header');
  assert.equal(jwtStructureProblem('e30.WzFd.c2ln'), 'undecodable claims');
});

void test('a token known to be well formed (a verified-token cache hit) is taken without decoding it again; an unknown one is decoded', () => {
  // b64token characters, but not three base64url segments: only a decoding can tell.
  const notAJwt = 'abc.def';
  assert.deepEqual(
    readBearerCredential(`Bearer ${notAJwt}`, () => false),
    { kind: 'malformed', reason: 'not three base64url segments' },
  );
  assert.deepEqual(
    readBearerCredential(`Bearer ${notAJwt}`, (t) => t === notAJwt),
    { kind: 'token', token: notAJwt },
  );
  assert.equal(readBearerCredential('Bearer a b', () => true).kind, 'malformed', 'the header syntax is still checked');
});
