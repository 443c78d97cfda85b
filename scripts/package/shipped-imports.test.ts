// A shipped module that imports a file the package leaves out fails on the user's machine only
// (examples/broken-target/ shipped for a while importing the unshipped self-validation). This reads
// what `npm pack` would ship and follows every relative import of it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { readImportGraph } from '../architecture/import-graph.ts';

const root = join(import.meta.dirname, '..', '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

void test('every relative import of a shipped module resolves to a shipped file', () => {
  const [packed] = JSON.parse(
    execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
  ) as { files: { path: string }[] }[];
  assert.ok(packed, 'npm pack --dry-run --json printed no package');
  const shipped = new Set(packed.files.map((f) => f.path));
  const edges = readImportGraph(root).edges.filter((e) => shipped.has(e.from) && e.specifier.startsWith('.'));
  assert.ok(edges.length > 500, `the shipped modules' relative imports were read (found ${edges.length})`);
  const broken = edges
    .filter((e) => e.to === undefined || !shipped.has(e.to))
    .map((e) => `${e.from} imports ${e.specifier}: ${e.to === undefined ? 'no such file' : `${e.to} is not shipped`}`);
  assert.deepEqual(broken, [], 'shipped modules importing what the package leaves out');
});
