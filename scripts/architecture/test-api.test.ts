// fixtures/index.ts is the test API a check author reads in five minutes: at most 30 exported
// names, each one imported by some spec (a helper one area needs lives in fixtures/support/<area>/;
// lint keeps a spec to the API and its own area's support: eslint.config.js, lint-rules.test.ts).
// Names are read with the TypeScript compiler: `export { a, type B } from …`, `export const`, …
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import ts from 'typescript';

const root = join(import.meta.dirname, '..', '..');
const apiFile = join(root, 'fixtures', 'index.ts');
const maxNames = 30;

const parse = (file: string) => ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
const isExported = (node: ts.Node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** The names a module exports (re-exports included; `export *` is refused: it hides what the API is). */
function exportedNames(source: ts.SourceFile): string[] {
  const names: string[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      assert.ok(statement.exportClause && ts.isNamedExports(statement.exportClause), `${source.fileName}: every export is named (no export *)`);
      names.push(...statement.exportClause.elements.map((e) => e.name.text));
    } else if (isExported(statement)) {
      if (ts.isVariableStatement(statement)) names.push(...statement.declarationList.declarations.map((d) => d.name.getText(source)));
      else if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) || ts.isEnumDeclaration(statement)) && statement.name) names.push(statement.name.text);
    }
  }
  return names;
}

/** Every name a file imports from fixtures/index.ts. */
function namesImportedFromApi(file: string): string[] {
  const source = parse(file);
  return source.statements.flatMap((statement) => {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) return [];
    if (join(file, '..', statement.moduleSpecifier.text) !== apiFile) return [];
    const bindings = statement.importClause?.namedBindings;
    assert.ok(bindings && ts.isNamedImports(bindings), `${relative(root, file)}: imports from fixtures/index.ts by name`);
    return bindings.elements.map((e) => (e.propertyName ?? e.name).text);
  });
}

const specFiles = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
  entry.isDirectory() ? specFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []);

void describe('the test API (fixtures/index.ts)', () => {
  const names = exportedNames(parse(apiFile));

  void test(`exports at most ${maxNames} names`, () => {
    assert.ok(names.length <= maxNames, `fixtures/index.ts exports ${names.length} names (at most ${maxNames}): ${names.join(', ')}`);
  });

  void test('exports no name twice', () => {
    assert.deepEqual(names.filter((n, i) => names.indexOf(n) !== i), []);
  });

  void test('exports only names some spec imports', () => {
    const imported = new Set(specFiles(join(root, 'specs')).flatMap(namesImportedFromApi));
    const unused = names.filter((n) => !imported.has(n));
    assert.deepEqual(unused, [], `exported by fixtures/index.ts but imported by no spec (move a one-area helper to fixtures/support/<area>/, drop a dead one): ${unused.join(', ')}`);
  });

  void test('the reading counts what it should', () => {
    const sample = ts.createSourceFile('sample.ts', "export { a, type B } from './x.ts';\nexport const c = 1, d = 2;\nexport function e() {}\nexport type F = 1;\nconst g = 1;\n", ts.ScriptTarget.Latest);
    assert.deepEqual(exportedNames(sample), ['a', 'B', 'c', 'd', 'e', 'F']);
  });
});
