// The tree's static checks as a test stage, so that CI enforces them and not only a developer's
// habit: the types (tsconfig.json), the lint (eslint.config.js, ARCHITECTURE.md's import fences
// among its rules). Each proves it ran by the files it judged: every tracked TypeScript file, or
// the test fails naming the ones it never saw.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { ESLint } from 'eslint';
import ts from 'typescript';

const root = join(import.meta.dirname, '..', '..');

/** The tracked files of these extensions, relative to the root (what a fresh clone holds). */
function trackedFiles(...patterns: string[]): string[] {
  return execFileSync('git', ['ls-files', '-z', '--', ...patterns], { cwd: root, encoding: 'utf8' }).split('\0').filter((f) => f !== '');
}

/** The files of `expected` that `seen` does not hold, for the failure message. */
function unseen(expected: string[], seen: Set<string>): string[] {
  return expected.filter((f) => !seen.has(f));
}

void test('types: tsc over tsconfig.json reports no error, and every tracked TypeScript file was checked', () => {
  const configFile = ts.findConfigFile(root, (f) => ts.sys.fileExists(f), 'tsconfig.json');
  assert.ok(configFile, 'tsconfig.json not found');
  const config = ts.getParsedCommandLineOfConfigFile(configFile, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(ts.flattenDiagnosticMessageText(d.messageText, '\n')) });
  assert.ok(config);
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const checked = new Set(program.getSourceFiles().map((f) => relative(root, f.fileName)));
  const missing = unseen(trackedFiles('*.ts'), checked);
  assert.deepEqual(missing, [], `tracked files tsc never checked (tsconfig.json's include): ${missing.join(', ')}`);
  const diagnostics = ts.getPreEmitDiagnostics(program);
  const text = ts.formatDiagnostics(diagnostics.slice(0, 20), { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' });
  assert.equal(diagnostics.length, 0, `${diagnostics.length} type errors:\n${text}`);
});

void test('lint: ESLint reports no error, and every tracked TypeScript file was linted', async () => {
  const results = await new ESLint({ cwd: root }).lintFiles(['.']);
  const linted = new Set(results.map((r) => relative(root, r.filePath)));
  const missing = unseen(trackedFiles('*.ts'), linted);
  assert.deepEqual(missing, [], `tracked files ESLint never linted (eslint.config.js's ignores): ${missing.join(', ')}`);
  const errors = results.filter((r) => r.errorCount > 0 || r.fatalErrorCount > 0);
  const formatted = await (await new ESLint({ cwd: root }).loadFormatter('stylish')).format(errors);
  assert.equal(errors.length, 0, `ESLint errors in ${errors.length} files:\n${formatted}`);
});
