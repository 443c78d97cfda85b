// The spec wrappers of a self-validation batch: for each fault and each spec file its checks live
// in, a one-line module `sv~<fault>/<spec path>.mts` that names the fault and its expected failures
// for the checks it declares and imports the spec file afresh (a query string makes a new module
// instance), so its checks are declared once more, as that fault's. One Playwright project (one
// worker) then runs the checks of many faults; each check knows its fault (`selfValidationFault`),
// which the fault switch puts in force before it starts; a declaration or assumption fault's
// wrappers also name its interpretations, which the check's target takes for that check.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
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

/** Writes a fault's wrappers under `specsDir`; returns their absolute paths. */
export function writeSpecWrappers(
  specsDir: string,
  fault: { id: string; expectBroken: string[]; interpretations?: FaultInterpretations },
  specs: string[],
): string[] {
  const fixtures = pathToFileURL(join(repoRoot, 'fixtures', 'index.ts')).href;
  return specs.map((spec) => {
    const file = join(specsDir, wrapperDirOf(fault.id), spec.replace(/\.ts$/, '.mts'));
    mkdirSync(dirname(file), { recursive: true });
    const specUrl = `${pathToFileURL(join(repoRoot, spec)).href}?sv=${encodeURIComponent(fault.id)}`;
    writeFileSync(
      file,
      [
        `// The checks of ${spec} under the self-validation fault ${fault.id} (written by self-validation/batch-specs.ts).`,
        `import { test } from ${JSON.stringify(fixtures)};`,
        `test.use({ selfValidationFault: ${JSON.stringify(fault.id)}, expectBroken: ${JSON.stringify(fault.expectBroken)}${fault.interpretations ? `, selfValidationInterpretations: ${JSON.stringify(fault.interpretations)}` : ''} });`,
        `await import(${JSON.stringify(specUrl)});`,
        '',
      ].join('\n'),
    );
    return file;
  });
}
