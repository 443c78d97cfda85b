// `npm run bench:profile -- --row ref-cc-us`: one throughput row of scenarios.ts against its own
// freshly started target, run under `node --cpu-prof`, then the target's top self-time frames.
// The .cpuprofile files stay in --dir (open the largest, the main thread, in Chrome DevTools).
// Not pinned and not interleaved: a profile says where a request's time goes, not how fast it is.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { summarizeProfile, type CpuProfile } from './cpu-profile-summary.ts';
import { startReferenceServer } from './harness/reference-target.ts';
import { startTarget, type TargetProcess } from './harness/target-process.ts';
import { runLoad } from './load/load-generator.ts';
import { scenarios } from './scenarios.ts';

const usage = `Usage: npm run bench:profile -- --row <id> [--seconds S] [--connections N] [--top N] [--dir DIR]
  --row ID          one row id of bench/scenarios.ts (${scenarios.map((s) => s.id).join(', ')})
  --seconds S       measured seconds under the profiler, after 2 s of warm-up (default 8)
  --connections N   connections of the load generator (default the row's own, else 16)
  --top N           frames to print (default 25)
  --dir DIR         where the .cpuprofile files go (default a new directory under the temp dir)`;

const benchDir = import.meta.dirname;
const root = join(benchDir, '..');

async function main(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        row: { type: 'string' },
        seconds: { type: 'string' },
        connections: { type: 'string' },
        top: { type: 'string' },
        dir: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (error) {
    console.error(`bench:profile: ${(error as Error).message}\n${usage}`);
    return 2;
  }
  if (values.help) {
    console.log(usage);
    return 0;
  }
  const scenario = scenarios.find((s) => s.id === values.row);
  const seconds = Number(values.seconds ?? '8');
  const connections = Number(values.connections ?? String(scenario?.connections ?? 16));
  const top = Number(values.top ?? '25');
  if (
    !scenario ||
    !(seconds > 0 && seconds <= 600) ||
    !Number.isInteger(connections) ||
    connections < 1 ||
    connections > 1024 ||
    !Number.isInteger(top) ||
    top < 1
  ) {
    console.error(
      `bench:profile: ${scenario ? 'bad --seconds, --connections or --top' : `unknown --row '${values.row ?? ''}'`}\n${usage}`,
    );
    return 2;
  }
  const dir = values.dir ?? mkdtempSync(join(tmpdir(), 'tc-profile-'));
  mkdirSync(dir, { recursive: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'tc-profile-data-'));
  const nodeFlags = ['--cpu-prof', `--cpu-prof-dir=${dir}`];
  let target: TargetProcess | undefined;
  try {
    target =
      scenario.target === 'reference' || scenario.target === 'reference-info-log'
        ? await startReferenceServer({
            root,
            dataFile: join(dataDir, 'profile.sqlite'),
            cpu: undefined,
            nodeFlags,
            logLevel: scenario.target === 'reference' ? 'warn' : 'info',
          })
        : await startTarget({
            nodeArgs: [...nodeFlags, '--import', 'tsx', join(benchDir, 'targets', `${scenario.target}.ts`)],
            cwd: root,
            cpu: undefined,
          });
    const started = target;
    const load = await runLoad({
      origin: started.listening.baseUrl,
      connections,
      warmupMs: 2000,
      bound: { durationMs: seconds * 1000 },
      createWorker: (pool, index) => scenario.createWorker(started.listening, pool, index),
    });
    console.log(
      `bench:profile: ${scenario.label}: ${load.requests} answers, ${load.errors} errors, ${load.throughput.toFixed(0)} req/s (under the profiler)`,
    );
    if (load.errors > 0) console.log(`  errors: ${load.errorSamples.join('; ')}`);
  } finally {
    await target?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  // The main thread's profile is the largest (tsx's loader thread writes a small one).
  const profiles = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(dir, f));
  const main = profiles.sort((a, b) => statSync(b).size - statSync(a).size)[0];
  if (main === undefined) {
    console.error(`bench:profile: no .cpuprofile in ${dir}`);
    return 1;
  }
  const summary = summarizeProfile(JSON.parse(readFileSync(main, 'utf8')) as CpuProfile, top);
  const busyShare = summary.busySamples / (summary.busySamples + summary.idleSamples);
  console.log(
    `bench:profile: ${main}: ${summary.busySamples} busy samples (${(busyShare * 100).toFixed(0)}% of the thread's time); top self time:`,
  );
  for (const f of summary.top) console.log(`  ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.frame}`);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
