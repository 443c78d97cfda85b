// One place decides each requirement: a requirement ID is written as a string literal in the
// catalogue (requirements/requirements.json) and, for what traffic can show, once in the registry
// of judges (judges/: the judge's own `requirement`) — never in a hand-kept list beside them. This
// counts the requirement-ID string literals (read with the TypeScript scanner, so comments and
// prose never count) in the audit's code, where such lists used to live, and in judges/.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import ts from 'typescript';
import { judges } from '../../judges/registry.ts';
import { requirements } from '../../requirements/index.ts';

const root = join(import.meta.dirname, '..', '..');
const catalogueIds = new Set(requirements.map((r) => r.id));

/** Product source files under a folder (tests are not lists the product keeps). */
function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(join(root, path)).isDirectory()) return entry === 'test' ? [] : sources(path);
    return /\.ts$/.test(entry) && !/\.(test|check)\.ts$/.test(entry) ? [path] : [];
  });
}

/** Every string literal (and template text) of a file that is a requirement ID of the catalogue. */
function idLiterals(file: string): { file: string; id: string; line: number }[] {
  const text = readFileSync(join(root, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: { file: string; id: string; line: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) {
      for (const id of node.text.match(/\b[A-Z]+(?:-[A-Z0-9]+)+\b/g) ?? [])
        if (catalogueIds.has(id))
          found.push({ file, id, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The audit's code: the folder, its commands, and whatever decides for it. */
const auditSources = [
  ...sources('harness/audit'),
  'harness/commands/audit.command.ts',
  'harness/commands/record.command.ts',
];

void describe('one place decides each requirement', () => {
  void test('the audit lists no requirement ID by hand: the registry is its list', () => {
    const listed = auditSources.flatMap(idLiterals);
    assert.equal(
      listed.length,
      0,
      `requirement IDs written outside the catalogue and the registry:\n${listed.map((l) => `  ${relative('.', l.file)}:${l.line} ${l.id}`).join('\n')}`,
    );
  });

  void test('in judges/, each requirement ID is written once, as the judge of that requirement', () => {
    const literals = sources('judges').flatMap(idLiterals);
    const counts = new Map<string, number>();
    for (const l of literals) counts.set(l.id, (counts.get(l.id) ?? 0) + 1);
    const twice = [...counts].filter(([, n]) => n > 1).map(([id]) => id);
    assert.deepEqual(twice, [], 'an ID written twice in judges/ is a second list');
    const unjudged = [...counts.keys()].filter((id) => !judges.has(id));
    assert.deepEqual(unjudged, [], 'an ID in judges/ that no judge decides is a list of its own');
  });

  void test('the counting sees a planted list', () => {
    const planted = join('scripts', 'architecture', 'test', 'planted-id-list.fixture.ts');
    assert.deepEqual(
      idLiterals(planted).map((l) => l.id),
      ['TOKEN-RESP-006', 'GRANT-CC-001', 'ERR-GW-1202'],
    );
  });
});
