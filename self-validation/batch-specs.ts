// The spec wrappers of a self-validation batch: for each fault and each spec file its checks live
// in, a one-line module `sv~<fault>/<spec path>.mts` that names the fault and its expected failures
// for the checks it declares and imports the spec file afresh (a query string makes a new module
// instance), so its checks are declared once more, as that fault's. One Playwright project (one
// worker) then runs the checks of many faults; each check knows its fault (`selfValidationFault`),
// which the fault switch puts in force before it starts; a declaration or assumption fault's
// wrappers also name its interpretations, which the check's target takes for that check.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../core/catalogue/catalogue.ts';
import { wrapperDirOf } from './batch-plan.ts';

/** A fault's own interpretations, put in force for its checks by fixtures/expected-failures.fixture.ts (the same shape). */
export interface FaultInterpretations {
  set: Record<string, unknown>;
  unset: string[];
}

/** Every spec file of the suite, relative to the repository (when there is no clean run to plan from). */
export function allSpecFiles(): string[] {
  return readdirSync(join(repoRoot, 'specs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.spec.ts'))
    .map((f) => join('specs', f))
    .sort();
}

/** A file's text, or undefined when it cannot be read (absent). */
function textOf(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Writes a fault's wrappers under `specsDir`; returns their absolute paths. The directory outlives
 * the run: Playwright's transform cache is keyed by a file's path and text, so wrappers that keep
 * both from run to run are compiled once, not once a run (and the shared cache does not grow by
 * every run's wrappers). A wrapper is rewritten only when its text changed (by a rename: a reader
 * never sees half a file), and any other file of the fault's directory is removed, since the
 * fault's project loads every wrapper file there.
 */
export function writeSpecWrappers(
  specsDir: string,
  fault: { id: string; expectBroken: string[]; interpretations?: FaultInterpretations },
  specs: string[],
): string[] {
  const fixtures = pathToFileURL(join(repoRoot, 'fixtures', 'index.ts')).href;
  const faultDir = join(specsDir, wrapperDirOf(fault.id));
  mkdirSync(faultDir, { recursive: true });
  const files = specs.map((spec) => {
    const file = join(faultDir, spec.replace(/\.ts$/, '.mts'));
    const specUrl = `${pathToFileURL(join(repoRoot, spec)).href}?sv=${encodeURIComponent(fault.id)}`;
    const text = [
      `// The checks of ${spec} under the self-validation fault ${fault.id} (written by self-validation/batch-specs.ts).`,
      `import { test } from ${JSON.stringify(fixtures)};`,
      `test.use({ selfValidationFault: ${JSON.stringify(fault.id)}, expectBroken: ${JSON.stringify(fault.expectBroken)}${fault.interpretations ? `, selfValidationInterpretations: ${JSON.stringify(fault.interpretations)}` : ''} });`,
      `await import(${JSON.stringify(specUrl)});`,
      '',
    ].join('\n');
    if (textOf(file) !== text) {
      mkdirSync(dirname(file), { recursive: true });
      const next = `${file}.${process.pid}.tmp`;
      writeFileSync(next, text);
      renameSync(next, file);
    }
    return file;
  });
  const wanted = new Set(files.map((f) => relative(faultDir, f)));
  for (const entry of readdirSync(faultDir, { recursive: true, withFileTypes: true }))
    if (entry.isFile() && !wanted.has(relative(faultDir, join(entry.parentPath, entry.name))))
      rmSync(join(entry.parentPath, entry.name), { force: true });
  return files;
}
