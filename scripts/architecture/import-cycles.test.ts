// No import cycle anywhere in the tree: every .ts file of the repository (tests, scripts, the
// reference server included), every static import, `import type`, `export … from` and literal
// `import()` (scripts/architecture/import-graph.ts). A cycle means two modules cannot be understood,
// tested or moved one without the other; the layers of ARCHITECTURE.md are then only prose.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { importCycles, readImportGraph } from './import-graph.ts';

const root = join(import.meta.dirname, '..', '..');

/**
 * Cycles allowed to remain, each with its owner; the list must match exactly: a new cycle fails, and
 * so does a listed one that is gone. Empty: no cycle is allowed.
 */
const knownCycles: string[][] = [];

void describe('import cycles', () => {
  void test('the tree has no import cycle (beyond the known ones, listed with their owner)', () => {
    const graph = readImportGraph(root);
    assert.ok(graph.files.length > 300, `the walker found the tree's files (${graph.files.length})`);
    const unresolved = graph.edges.filter(
      (e) => (e.specifier.startsWith('./') || e.specifier.startsWith('../')) && e.to === undefined,
    );
    assert.deepEqual(unresolved, [], 'every relative import resolves to a file (else the graph would miss edges)');
    assert.deepEqual(importCycles(graph), knownCycles);
  });

  void describe('the walker finds a planted cycle', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-cycles-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const plant = (files: Record<string, string>): string => {
      const tree = mkdtempSync(join(dir, 'tree-'));
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(dirname(join(tree, file)), { recursive: true });
        writeFileSync(join(tree, file), text);
      }
      return tree;
    };

    void test('two modules that import each other, across folders', () => {
      const tree = plant({
        'fixtures/a.ts': "import { b } from '../harness/b.ts';\nexport const a = b;\n",
        'harness/b.ts': "import { a } from '../fixtures/a.ts';\nexport const b = a;\n",
        'harness/c.ts': "import { b } from './b.ts';\nexport const c = b;\n",
      });
      assert.deepEqual(importCycles(readImportGraph(tree)), [['fixtures/a.ts', 'harness/b.ts']]);
    });

    void test('a longer ring through `import type`, `export … from` and a literal import()', () => {
      const tree = plant({
        'a.ts': "import type { B } from './b.ts';\nexport type A = B;\n",
        'b.ts': "export { c } from './c.ts';\nexport type B = string;\n",
        'c.ts': "export const c = async () => import('./a.ts');\n",
        'text.ts':
          "// import { a } from './a.ts' — a comment is no import\nexport const text = \"import './text.ts'\";\n",
      });
      assert.deepEqual(importCycles(readImportGraph(tree)), [['a.ts', 'b.ts', 'c.ts']]);
    });

    void test('a module that imports itself; a folder index; no cycle in a clean tree', () => {
      assert.deepEqual(importCycles(readImportGraph(plant({ 'self.ts': "import './self.ts';\n" }))), [['self.ts']]);
      assert.deepEqual(
        importCycles(
          readImportGraph(
            plant({
              'lib/index.ts': "import { main } from '../main.ts';\nexport const lib = main;\n",
              'main.ts': "import { lib } from './lib';\nexport const main = 1;\nexport const again = lib;\n",
            }),
          ),
        ),
        [['lib/index.ts', 'main.ts']],
      );
      assert.deepEqual(
        importCycles(
          readImportGraph(
            plant({
              'a.ts': "import { b } from './b.ts';\nexport const a = b;\n",
              'b.ts': "import fs from 'node:fs';\nexport const b = fs;\n",
            }),
          ),
        ),
        [],
      );
    });
  });
});
