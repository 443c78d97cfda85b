// fixtures/index.ts is the test API a check author reads in five minutes: at most 30 exported
// names, each one imported by some spec (a helper one area needs lives in fixtures/support/<area>/;
// lint keeps a spec to the API and its own area's support: eslint.config.js, lint-rules.test.ts).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import ts from 'typescript';
import { exportedNames, readTestApi } from './test-api.ts';

const root = join(import.meta.dirname, '..', '..');
const maxNames = 30;

void describe('the test API (fixtures/index.ts)', () => {
  const { names, imports } = readTestApi(root);
  const exported = names.map((n) => n.name);

  void test(`exports at most ${maxNames} names`, () => {
    assert.ok(
      exported.length <= maxNames,
      `fixtures/index.ts exports ${exported.length} names (at most ${maxNames}): ${exported.join(', ')}`,
    );
  });

  void test('exports no name twice', () => {
    assert.deepEqual(
      exported.filter((n, i) => exported.indexOf(n) !== i),
      [],
    );
  });

  void test('exports only names some spec imports', () => {
    const imported = new Set(imports.map((i) => i.name));
    const unused = exported.filter((n) => !imported.has(n));
    assert.deepEqual(
      unused,
      [],
      `exported by fixtures/index.ts but imported by no spec (move a one-area helper to fixtures/support/<area>/, drop a dead one): ${unused.join(', ')}`,
    );
  });

  void test('the reading counts what it should, and refuses export *', () => {
    const sample = ts.createSourceFile(
      'sample.ts',
      "export { a, type B } from './x.ts';\nexport const c = 1, d = 2;\nexport function e() {}\nexport type F = 1;\nconst g = 1;\n",
      ts.ScriptTarget.Latest,
    );
    assert.deepEqual(
      exportedNames(sample).map((n) => n.name),
      ['a', 'B', 'c', 'd', 'e', 'F'],
    );
    assert.throws(
      () => exportedNames(ts.createSourceFile('star.ts', "export * from './x.ts';\n", ts.ScriptTarget.Latest)),
      /export \*/,
    );
  });
});
