// `npm test`: every test stage of the project, one after the other, then one plain closing line
// `N passed, N failed, N skipped` summed over all stages (CI reads it; an empty run shows as 0).
//
//   npm test                 all stages
//   npm test -- unit         only the named stages (unit, conformance, ...)
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

interface Counts { passed: number; failed: number; skipped: number }
/** `optIn` stages run only when named (`npm test -- self-validation`), not in the default set. */
interface Stage { name: string; optIn?: boolean; run(): Promise<Counts> }

const root = join(import.meta.dirname, '..');
const reportsDir = join(root, 'reports');

function findFiles(dir: string, suffix: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const full = join(dir, entry);
    if (entry === 'node_modules') return [];
    return statSync(full).isDirectory() ? findFiles(full, suffix) : full.endsWith(suffix) ? [full] : [];
  });
}

function exec(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

/** Reads the closing counters of a TAP stream written by node's test runner. */
function countsFromTap(file: string): Counts {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const read = (key: string) => Number(text.match(new RegExp(`^# ${key} (\\d+)$`, 'm'))?.[1] ?? 0);
  return { passed: read('pass'), failed: read('fail') + read('cancelled'), skipped: read('skipped') + read('todo') };
}

const unitStage: Stage = {
  name: 'unit',
  async run() {
    const files = ['reference-server', 'core', 'harness', 'fixtures', 'schemas', 'requirements', 'scripts', 'bench']
      .flatMap((dir) => findFiles(join(root, dir), '.test.ts'))
      .map((file) => relative(root, file))
      .sort();
    if (files.length === 0) return { passed: 0, failed: 0, skipped: 0 };
    const tap = join(reportsDir, 'unit.tap');
    const code = await exec(process.execPath, [
      '--import', 'tsx', '--test', '--test-concurrency=2',
      '--test-reporter=spec', '--test-reporter-destination=stdout',
      '--test-reporter=tap', `--test-reporter-destination=${tap}`,
      ...files,
    ]);
    const counts = countsFromTap(tap);
    // A runner that died before reporting must not read as a clean run.
    if (code !== 0 && counts.failed === 0) counts.failed = 1;
    return counts;
  },
};

/** Later stages (the conformance suite, the self-validation) register themselves here. */
const stages: Stage[] = [unitStage];
const extraStages = join(root, 'scripts', 'test-stages.ts');
if (existsSync(extraStages)) {
  const mod = (await import(extraStages)) as { stages: Stage[] };
  stages.push(...mod.stages);
}

const wanted = process.argv.slice(2);
mkdirSync(reportsDir, { recursive: true });
const total: Counts = { passed: 0, failed: 0, skipped: 0 };
for (const stage of stages.filter((s) => (wanted.length === 0 ? !s.optIn : wanted.includes(s.name)))) {
  console.log(`\n=== test stage: ${stage.name} ===`);
  const counts = await stage.run();
  console.log(`=== ${stage.name}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped ===`);
  total.passed += counts.passed;
  total.failed += counts.failed;
  total.skipped += counts.skipped;
}
console.log(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exitCode = total.failed > 0 ? 1 : 0;
