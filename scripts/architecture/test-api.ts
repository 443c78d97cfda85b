// The test API as data: the names fixtures/index.ts exports and the names each spec imports from it,
// read with the TypeScript compiler. Used by test-api.test.ts (the bound) and import-counts.ts (the figures).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const parse = (file: string) => ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
const isExported = (node: ts.Node) =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** One exported name and the module it comes from (the file itself for a local declaration). */
export interface ApiName {
  name: string;
  from: string;
}

/** The names a module exports, re-exports included. `export *` throws: it hides what the API is. */
export function exportedNames(source: ts.SourceFile): ApiName[] {
  const names: ApiName[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      if (!statement.exportClause || !ts.isNamedExports(statement.exportClause))
        throw new Error(`${source.fileName}: export * hides what the module exports; name each export`);
      const from =
        statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)
          ? statement.moduleSpecifier.text
          : source.fileName;
      names.push(...statement.exportClause.elements.map((e) => ({ name: e.name.text, from })));
    } else if (isExported(statement)) {
      if (ts.isVariableStatement(statement))
        names.push(
          ...statement.declarationList.declarations.map((d) => ({
            name: d.name.getText(source),
            from: source.fileName,
          })),
        );
      else if (
        (ts.isFunctionDeclaration(statement) ||
          ts.isClassDeclaration(statement) ||
          ts.isInterfaceDeclaration(statement) ||
          ts.isTypeAliasDeclaration(statement) ||
          ts.isEnumDeclaration(statement)) &&
        statement.name
      )
        names.push({ name: statement.name.text, from: source.fileName });
    }
  }
  return names;
}

/** One name a spec imports from fixtures/index.ts. */
export interface SpecImport {
  spec: string;
  /** The spec's folder under specs/. */
  area: string;
  name: string;
}

const specFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? specFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );

/** The test API of the tree at `root`: what fixtures/index.ts exports, and what the specs import of it. */
export function readTestApi(root: string): { names: ApiName[]; imports: SpecImport[] } {
  const apiFile = join(root, 'fixtures', 'index.ts');
  const imports = specFiles(join(root, 'specs')).flatMap((file) =>
    parse(file).statements.flatMap((statement) => {
      if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) return [];
      if (join(file, '..', statement.moduleSpecifier.text) !== apiFile) return [];
      const bindings = statement.importClause?.namedBindings;
      if (!bindings || !ts.isNamedImports(bindings))
        throw new Error(`${relative(root, file)}: import from fixtures/index.ts by name`);
      const spec = relative(root, file);
      return bindings.elements.map((e) => ({ spec, area: spec.split('/')[1]!, name: (e.propertyName ?? e.name).text }));
    }),
  );
  return { names: exportedNames(parse(apiFile)), imports };
}
