// `npm test`: every test stage of the project, one after the other, then one plain closing line
// `N passed, N failed, N skipped` summed over all stages (CI reads it). A stage that ran no test,
// or fewer than its files register, counts failures (scripts/stages/node-test-stage.ts), so the
// closing line cannot look healthy over a stage that proved nothing.
//
//   npm test                 all stages
//   npm test -- unit         only the named stages (unit, conformance, ...)
//
// Each stage runs in a process group of its own with the run's own TMPDIR
// (scripts/stages/run-leftovers.ts): after each stage, a process or a test's temporary directory of
// the run that outlived it is stopped or removed, named, and fails that stage; SIGINT, SIGTERM or
// SIGHUP stop the running stage's group and sweep the same way before the closing line.
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runNodeTestStage } from './stages/node-test-stage.ts';
import { openRunScope, type Leftovers } from './stages/run-leftovers.ts';
import { stopStageGroups } from './stages/stage-process.ts';

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}
/** `optIn` stages run only when named (`npm test -- self-validation`), not in the default set. */
interface Stage {
  name: string;
  optIn?: boolean;
  run(): Promise<Counts>;
}

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

const unitStage: Stage = {
  name: 'unit',
  async run() {
    const files = [
      'reference-server',
      'core',
      'judges',
      'harness',
      'self-validation',
      'fixtures',
      'schemas',
      'requirements',
      'scripts',
      'bench',
    ]
      .flatMap((dir) => findFiles(join(root, dir), '.test.ts'))
      .sort();
    return runNodeTestStage({ name: 'unit', files, concurrency: 2, root, reportsDir });
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
const unknown = wanted.filter((name) => !stages.some((s) => s.name === name));
mkdirSync(reportsDir, { recursive: true });
const total: Counts = { passed: 0, failed: 0, skipped: 0 };
const closingLine = (): string => `${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`;
if (unknown.length > 0) {
  console.log(`no such test stage: ${unknown.join(', ')} (stages: ${stages.map((s) => s.name).join(', ')})`);
  total.failed += 1;
}

const scope = openRunScope();
process.env.TMPDIR = scope.dir; // inherited by every stage: what they leave there is recognisable
/** Names what outlived `stage`; true when something did. */
function reportLeftovers(stage: string, left: Leftovers): boolean {
  for (const p of left.processes) console.log(`${stage}: FAILED a process of the run outlived it (killed): ${p}`);
  for (const p of left.paths)
    console.log(`${stage}: FAILED a temporary directory of the run outlived it (removed): ${p}`);
  return left.processes.length + left.paths.length > 0;
}

let current = 'npm test';
let interrupted = false;
/** Stops the running stage's processes, sweeps, and ends with the closing line (one more failure). */
function interrupt(reason: string, exitCode: number): void {
  if (interrupted) return;
  interrupted = true;
  console.log(`\n=== ${current}: interrupted (${reason}): stopping its processes ===`);
  void stopStageGroups()
    .then(() => scope.close())
    .then((left) => {
      reportLeftovers(current, left);
      total.failed += 1;
      console.log(closingLine());
      process.exit(exitCode);
    });
}
for (const [signal, number] of [
  ['SIGHUP', 1],
  ['SIGINT', 2],
  ['SIGTERM', 15],
] as const)
  process.once(signal, () => interrupt(signal, 128 + number));
// `npm test` killed by a signal does not pass it on through its shell to this process: when the
// parent goes, this run is over too.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) interrupt('its parent process ended', 129);
}, 1000).unref();

for (const stage of stages.filter((s) => (wanted.length === 0 ? !s.optIn : wanted.includes(s.name)))) {
  current = stage.name;
  console.log(`\n=== test stage: ${stage.name} ===`);
  const counts = await stage.run();
  if (interrupted) await new Promise(() => undefined); // the signal handler writes the closing line
  if (reportLeftovers(stage.name, await scope.sweep())) counts.failed += 1;
  console.log(`=== ${stage.name}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped ===`);
  total.passed += counts.passed;
  total.failed += counts.failed;
  total.skipped += counts.skipped;
}
current = 'npm test';
if (reportLeftovers('npm test', await scope.close())) total.failed += 1;
console.log(closingLine());
process.exitCode = total.failed > 0 ? 1 : 0;
