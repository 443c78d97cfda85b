// The floor of tests a file registers, read from its syntax tree.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { countRegisteredTests } from './registered-tests.ts';

void describe('countRegisteredTests', () => {
  void test('test, it, their skip/todo forms and subtests of a test context count; suites do not', () => {
    const source = [
      "import { describe, it, test } from 'node:test';",
      "describe('outer', () => {",
      "  test('a', () => {});",
      "  it.skip('b', () => {});",
      "  test.todo('c');",
      "  test('d', async (t) => { await t.test('d1', () => {}); });",
      '});',
    ].join('\n');
    assert.deepEqual(countRegisteredTests(source), { tests: 5, suites: [{ name: 'outer', tests: 5 }] });
  });

  void test('comments, strings, regex.test() and functions not from node:test do not count', () => {
    const source = [
      "import { test } from 'node:test';",
      "// test('commented', () => {});",
      'const text = "test(\'in a string\')";',
      'const re = /x/;',
      "test('real', () => { re.test(text); });",
      'function it(_: string) {}',
      "it('not node:test');",
    ].join('\n');
    assert.equal(countRegisteredTests(source).tests, 1);
  });

  void test('aliases and the default import are followed; a call in a loop counts once (a floor)', () => {
    const source = [
      "import check, { describe as group, test as verify } from 'node:test';",
      "group('g', () => { for (const n of [1, 2, 3]) verify(`n=${n}`, () => {}); });",
      "check('top', () => {});",
    ].join('\n');
    assert.deepEqual(countRegisteredTests(source), { tests: 2, suites: [{ name: 'g', tests: 1 }] });
  });

  void test('a suite with a computed name is not listed (its tests still count)', () => {
    const source =
      "import { describe, test } from 'node:test';\nconst n = 'x';\ndescribe(`s ${n}`, () => { test('a', () => {}); });";
    assert.deepEqual(countRegisteredTests(source), { tests: 1, suites: [] });
  });
});
