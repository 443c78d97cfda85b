// A literal text as a RegExp matches that text alone, whatever characters it holds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeRegExp } from '../text/escape-regexp.ts';

void test('every RegExp metacharacter is taken literally', () => {
  const text = String.raw`a.b*c+d?e^f$g{h}i(j)k|l[m]n\o`;
  const re = new RegExp(`^${escapeRegExp(text)}$`);
  assert.ok(re.test(text));
  assert.ok(!re.test('aXb*c+d?e^f$g{h}i(j)k|l[m]n\\o'), 'a dot is no wildcard');
  assert.equal(escapeRegExp('specs/limits/rate-limits.spec.ts'), String.raw`specs/limits/rate-limits\.spec\.ts`);
});
