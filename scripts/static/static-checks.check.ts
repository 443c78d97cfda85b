// The tree's static checks as a test stage, so that CI enforces them and not only a developer's
// habit: the types (tsconfig.json), the lint (eslint.config.js, ARCHITECTURE.md's import fences
// among its rules) and the format (Prettier, .prettierrc.json). Each proves it ran by the files it
// judged: every tracked TypeScript file (the format: every one .prettierignore does not name), or
// the test fails naming the ones it never saw.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { ESLint } from 'eslint';
import * as prettier from 'prettier';
import ts from 'typescript';

const root = join(import.meta.dirname, '..', '..');

/** The tracked files of these extensions, relative to the root (what a fresh clone holds). */
function trackedFiles(...patterns: string[]): string[] {
  return execFileSync('git', ['ls-files', '-z', '--', ...patterns], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '');
}

/** The files of `expected` that `seen` does not hold, for the failure message. */
function unseen(expected: string[], seen: Set<string>): string[] {
  return expected.filter((f) => !seen.has(f));
}

void test('types: tsc over tsconfig.json reports no error, and every tracked TypeScript file was checked', () => {
  const configFile = ts.findConfigFile(root, (f) => ts.sys.fileExists(f), 'tsconfig.json');
  assert.ok(configFile, 'tsconfig.json not found');
  const config = ts.getParsedCommandLineOfConfigFile(
    configFile,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(ts.flattenDiagnosticMessageText(d.messageText, '\n')),
    },
  );
  assert.ok(config);
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const checked = new Set(program.getSourceFiles().map((f) => relative(root, f.fileName)));
  const missing = unseen(trackedFiles('*.ts'), checked);
  assert.deepEqual(missing, [], `tracked files tsc never checked (tsconfig.json's include): ${missing.join(', ')}`);
  const diagnostics = ts.getPreEmitDiagnostics(program);
  const text = ts.formatDiagnostics(diagnostics.slice(0, 20), {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => root,
    getNewLine: () => '\n',
  });
  assert.equal(diagnostics.length, 0, `${diagnostics.length} type errors:\n${text}`);
});

void test('lint: ESLint reports no error, and every tracked TypeScript file was linted', async () => {
  const results = await new ESLint({ cwd: root }).lintFiles(['.']);
  const linted = new Set(results.map((r) => relative(root, r.filePath)));
  const missing = unseen(trackedFiles('*.ts'), linted);
  assert.deepEqual(
    missing,
    [],
    `tracked files ESLint never linted (eslint.config.js's ignores): ${missing.join(', ')}`,
  );
  const errors = results.filter((r) => r.errorCount > 0 || r.fatalErrorCount > 0);
  const formatted = await (await new ESLint({ cwd: root }).loadFormatter('stylish')).format(errors);
  assert.equal(errors.length, 0, `ESLint errors in ${errors.length} files:\n${formatted}`);
});

void test('format: every tracked TypeScript and JavaScript file .prettierignore does not name is as Prettier writes it', async () => {
  const files = trackedFiles('*.ts', '*.js');
  const ignorePath = join(root, '.prettierignore');
  const unformatted: string[] = [];
  let checked = 0;
  for (const file of files) {
    const path = join(root, file);
    const info = await prettier.getFileInfo(path, { ignorePath });
    if (info.ignored) continue;
    const options = await prettier.resolveConfig(path);
    assert.ok(options, `no Prettier configuration applies to ${file}`);
    if (!(await prettier.check(await readFile(path, 'utf8'), { ...options, filepath: path }))) unformatted.push(file);
    checked += 1;
  }
  // .prettierignore leaves out data, documents and generated files, never a whole folder of code.
  assert.ok(
    checked >= files.length - 5,
    `Prettier judged ${checked} of ${files.length} tracked files: .prettierignore leaves out too much`,
  );
  assert.deepEqual(unformatted, [], `not formatted (npm run format): ${unformatted.join(', ')}`);
});
