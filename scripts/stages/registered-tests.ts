// How many node:test tests a test file registers, read from its source (the TypeScript syntax tree,
// not a regex: comments, strings and `regex.test(s)` do not count). A call of `test`/`it` imported
// from node:test (and `.skip`/`.todo`/`.only` of them) or of `t.test` inside a test's body is one
// test; a call inside a loop or a helper still counts once, so the figure is a floor: a file that
// reports fewer tests than it registers lost some (its process ended before they reported).
// Suites (`describe`/`suite`) are kept with their literal names, so that a suite skipped as a
// whole (node:test reports only the suite then) counts its tests as skipped.
import { readFileSync } from 'node:fs';
import ts from 'typescript';

export interface RegisteredTests {
  /** Test calls in the file (a floor on the tests it reports). */
  tests: number;
  /** Suites with a literal name: the test calls inside each. */
  suites: { name: string; tests: number }[];
}

const TEST_NAMES = new Set(['test', 'it']);
const SUITE_NAMES = new Set(['describe', 'suite']);
const MODIFIERS = new Set(['skip', 'todo', 'only']);

/** The local names bound to node:test's test and suite functions in this file. */
function nodeTestBindings(file: ts.SourceFile): { tests: Set<string>; suites: Set<string> } {
  const tests = new Set<string>();
  const suites = new Set<string>();
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (statement.moduleSpecifier.text !== 'node:test' && statement.moduleSpecifier.text !== 'test') continue;
    const clause = statement.importClause;
    if (clause?.name) tests.add(clause.name.text); // `import test from 'node:test'`
    const bindings = clause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings)) {
      for (const element of bindings.elements) {
        const imported = (element.propertyName ?? element.name).text;
        if (TEST_NAMES.has(imported)) tests.add(element.name.text);
        if (SUITE_NAMES.has(imported)) suites.add(element.name.text);
      }
    }
  }
  return { tests, suites };
}

/** `name(...)` or `name.skip(...)` etc.: the bare function name the call goes through. */
function calledName(call: ts.CallExpression): string | undefined {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee) && MODIFIERS.has(callee.name.text) && ts.isIdentifier(callee.expression))
    return callee.expression.text;
  return undefined;
}

/** The first parameter of the function passed to a test call (`t` of `async (t) => …`). */
function contextName(call: ts.CallExpression): string | undefined {
  const body = call.arguments.at(-1);
  if (!body || !(ts.isArrowFunction(body) || ts.isFunctionExpression(body))) return undefined;
  const first = body.parameters[0]?.name;
  return first && ts.isIdentifier(first) ? first.text : undefined;
}

export function countRegisteredTests(source: string, fileName = 'file.ts'): RegisteredTests {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const { tests, suites } = nodeTestBindings(file);
  const result: RegisteredTests = { tests: 0, suites: [] };
  const openSuites: { name: string; tests: number }[] = [];
  const visit = (node: ts.Node, contexts: ReadonlySet<string>): void => {
    let inner = contexts;
    if (ts.isCallExpression(node)) {
      const name = calledName(node);
      const subtest =
        ts.isPropertyAccessExpression(node.expression) &&
        node.expression.name.text === 'test' &&
        ts.isIdentifier(node.expression.expression) &&
        contexts.has(node.expression.expression.text);
      if ((name !== undefined && tests.has(name)) || subtest) {
        result.tests += 1;
        for (const suite of openSuites) suite.tests += 1;
        const context = contextName(node);
        if (context !== undefined) inner = new Set([...contexts, context]);
      } else if (name !== undefined && suites.has(name)) {
        const title = node.arguments[0];
        if (title && (ts.isStringLiteral(title) || ts.isNoSubstitutionTemplateLiteral(title))) {
          const suite = { name: title.text, tests: 0 };
          result.suites.push(suite);
          openSuites.push(suite);
          ts.forEachChild(node, (child) => visit(child, inner));
          openSuites.pop();
          return;
        }
      }
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(file, new Set());
  return result;
}

export function registeredTestsOf(path: string): RegisteredTests {
  return countRegisteredTests(readFileSync(path, 'utf8'), path);
}
