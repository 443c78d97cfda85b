import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FormBodyError, isFormContentType, parseFormBody } from '../../src/http/form-body.ts';

const parse = (text: string | Buffer) =>
  Object.fromEntries(parseFormBody(typeof text === 'string' ? Buffer.from(text, 'latin1') : text));
const problem = (text: string | Buffer) => {
  try {
    parse(text);
    return 'parsed';
  } catch (error) {
    return error instanceof FormBodyError ? error.problem : 'other';
  }
};

void describe('strict form body parser', () => {
  void test('decodes + and percent-escapes as UTF-8', () => {
    assert.deepEqual(parse('username=acme%5Calice&password=p%2Ba%26s%3Ds%25w+rd+%C3%A9'), {
      username: 'acme\\alice',
      password: 'p+a&s=s%w rd é',
    });
    assert.deepEqual(parse(Buffer.from('a=é', 'utf8')), { a: 'é' }, 'raw UTF-8 bytes');
  });
  void test('empty body, empty pairs, a name without =', () => {
    assert.deepEqual(parse(''), {});
    assert.deepEqual(parse('a=1&&b=2&'), { a: '1', b: '2' });
    assert.deepEqual(parse('flag&a='), { flag: '', a: '' });
  });
  void test('a repeated name is refused, even with the same value', () => {
    assert.equal(problem('grant_type=password&grant_type=password'), 'repeated');
    assert.equal(problem('a=1&b=2&a=3'), 'repeated');
    assert.equal(problem('a%3D=1&a%3d=2'), 'repeated', 'compared after decoding');
  });
  void test('malformed escapes and invalid UTF-8 are refused', () => {
    for (const bad of ['a=%', 'a=%2', 'a=%zz', 'a=%C3', 'a=%FF', '%GG=1']) assert.equal(problem(bad), 'malformed', bad);
    assert.equal(problem(Buffer.from([0x61, 0x3d, 0xff])), 'malformed');
  });
  void test('media type: the form type in any case, with a UTF-8 charset or none', () => {
    for (const ok of [
      'application/x-www-form-urlencoded',
      'Application/X-WWW-Form-Urlencoded',
      'application/x-www-form-urlencoded;charset=UTF-8',
      'application/x-www-form-urlencoded; charset="utf-8"',
    ]) {
      assert.equal(isFormContentType(ok), true, ok);
    }
    for (const bad of [
      undefined,
      '',
      'application/json',
      'text/plain',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded; charset=iso-8859-1',
      'application/x-www-form-urlencodedx',
    ]) {
      assert.equal(isFormContentType(bad), false, String(bad));
    }
  });
});
