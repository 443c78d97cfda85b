// The documented CI example (examples/github-actions/conformance.yml) stays true: it parses as
// YAML, its shard matrix matches SHARD_TOTAL, every secret the profile references is passed from
// the CI secret store, its waivers file is valid, and every `npx token-conformance …` and
// `npx playwright …` command of its `run:` steps exists with the flags it uses (checked against the
// CLI's own argument parsers, and Playwright's --help).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { commandNames } from '../cli.ts';
import { gateOptions } from '../commands/gate.command.ts';
import { mergeOptions } from '../commands/merge.command.ts';
import { parseRunArgs } from '../commands/run.command.ts';
import { loadCatalogue } from '../../core/catalogue/catalogue.ts';
import { loadWaivers } from '../waivers/waivers.ts';
import { loadProfile } from '../../core/profile/load-profile.ts';
import { playwrightCliPath } from '../playwright/playwright-cli.ts';

const root = join(import.meta.dirname, '..', '..');
const workflowFile = join(root, 'examples', 'github-actions', 'conformance.yml');

interface Step {
  name?: string;
  run?: string;
  uses?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
interface Job {
  env?: Record<string, string>;
  steps: Step[];
  strategy?: { matrix?: { shard?: number[] } };
  needs?: string | string[];
  if?: string;
}
interface Workflow {
  env: Record<string, string>;
  jobs: Record<string, Job>;
  on: { schedule?: { cron: string }[] };
}

const workflow = parse(readFileSync(workflowFile, 'utf8')) as Workflow;

/**
 * Shell words of one command line (after joining `\` continuations): single and double quotes,
 * $NAME / ${NAME} from `vars`, GitHub `${{ expr }}` from `expressions`. Enough for the example's
 * commands; anything else (pipes, substitutions) is refused so that the test cannot silently skip it.
 */
function shellWords(line: string, vars: Record<string, string>, expressions: Record<string, string>): string[] {
  const withExpressions = line.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_m, expr: string) => {
    if (!(expr in expressions)) throw new Error(`unknown expression \${{ ${expr} }} in: ${line}`);
    return expressions[expr]!;
  });
  if (/[|;&`]|\$\(/.test(withExpressions.replace(/'[^']*'/g, ''))) throw new Error(`not a simple command: ${line}`);
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  const lookup = (_m: string, a?: string, b?: string) => {
    const name = a ?? b!;
    if (!(name in vars)) throw new Error(`unset variable $${name} in: ${line}`);
    return vars[name]!;
  };
  const expand = (s: string) => s.replace(/\$(?:\{(\w+)\}|(\w+))/g, lookup);
  let raw = '';
  const flush = () => {
    if (word !== undefined) words.push(word);
    word = undefined;
  };
  for (const ch of withExpressions) {
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else word = (word ?? '') + ch;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') {
        word = (word ?? '') + expand(raw);
        raw = '';
        quote = undefined;
      } else raw += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      word ??= '';
      continue;
    }
    if (/\s/.test(ch)) {
      flush();
      continue;
    }
    word = (word ?? '') + (ch === '$' ? '\uE000' : ch);
  }
  flush();
  // Unquoted $NAME (marked while splitting): expanded after splitting; single-quoted text stays as written.
  return words.map((w) => w.replace(/\uE000(?:\{(\w+)\}|(\w+))/g, lookup).replace(/\uE000/g, '$'));
}

/** Every command line of every `run:` step, continuations joined. */
function commandLines(): { job: string; step: string; line: string }[] {
  return Object.entries(workflow.jobs).flatMap(([job, j]) =>
    j.steps
      .filter((s) => s.run)
      .flatMap((s) =>
        s
          .run!.replace(/\\\n\s*/g, ' ')
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l !== '' && !l.startsWith('#'))
          .map((line) => ({ job, step: s.name ?? s.run!.slice(0, 30), line })),
      ),
  );
}

const expressions = { 'matrix.shard': '1', 'env.SHARD_TOTAL': workflow.env.SHARD_TOTAL ?? '' };

void describe('examples/github-actions/conformance.yml', () => {
  void test('parses as YAML: a sharded job whose matrix matches SHARD_TOTAL, then merge-and-gate after it', () => {
    const shard = workflow.jobs.shard!;
    assert.deepEqual(
      shard.strategy?.matrix?.shard,
      Array.from({ length: Number(workflow.env.SHARD_TOTAL) }, (_, i) => i + 1),
    );
    assert.equal(workflow.jobs['merge-and-gate']!.needs, 'shard');
    const uses = Object.values(workflow.jobs).flatMap((j) => j.steps.map((s) => s.uses).filter(Boolean));
    assert.ok(
      uses.includes('actions/upload-artifact@v4') && uses.includes('actions/download-artifact@v4'),
      'reports are uploaded and downloaded as artifacts',
    );
  });

  void test('every secret the profile references comes from the CI secret store under its own name', () => {
    const profile = readFileSync(join(root, workflow.env.PROFILE!), 'utf8');
    const referenced = [
      ...profile
        .split('\n')
        .filter((l) => !l.trim().startsWith('//'))
        .join('\n')
        .matchAll(/\{\s*"env"\s*:\s*"(\w+)"\s*\}/g),
    ].map((m) => m[1]!);
    assert.ok(referenced.length >= 3, 'the profile references its secrets');
    const env = workflow.jobs.shard!.env ?? {};
    for (const name of referenced)
      assert.equal(env[name], `\${{ secrets.${name} }}`, `${name} is passed from secrets.${name}`);
    for (const [name, value] of Object.entries(env))
      assert.match(value, /^\$\{\{ secrets\.\w+ \}\}$/, `${name}: only secrets in the job env`);
    // With every secret set, the profile loads (its references resolve).
    assert.doesNotThrow(() =>
      loadProfile(join(root, workflow.env.PROFILE!), { env: Object.fromEntries(referenced.map((n) => [n, 'x'])) }),
    );
  });

  void test('the waivers file is valid', () => {
    assert.ok(loadWaivers(join(root, workflow.env.WAIVERS!)).waivers.length > 0);
  });

  void test('every token-conformance command and flag it uses exists', () => {
    const lines = commandLines().filter((c) => c.line.startsWith('npx token-conformance'));
    const used = new Set<string>();
    for (const { line } of lines) {
      const [, , command, ...args] = shellWords(line, workflow.env, expressions);
      assert.ok(commandNames().includes(command!), `unknown command '${command}' in: ${line}`);
      used.add(command!);
      if (command === 'run') assert.doesNotThrow(() => parseRunArgs(args), line);
      else if (command === 'merge')
        assert.doesNotThrow(
          () => parseArgs({ args, options: mergeOptions, strict: true, allowPositionals: true }),
          line,
        );
      else if (command === 'gate')
        assert.doesNotThrow(
          () => parseArgs({ args, options: gateOptions, strict: true, allowPositionals: true }),
          line,
        );
      else assert.fail(`no argument check for '${command}': add one`);
    }
    assert.deepEqual([...used].sort(), ['gate', 'merge', 'run'], 'the example runs, merges and gates');
    assert.ok(
      lines.some((l) => /token-conformance gate .*--require-verified verifiable\b/.test(l.line)),
      'the gate requires every MUST the profile makes verifiable verified (a run that verified nothing is not green)',
    );
    const run = lines.map((l) => shellWords(l.line, workflow.env, expressions)).find((w) => w[2] === 'run')!;
    const options = parseRunArgs(run.slice(3));
    assert.equal(options === 'help' ? undefined : options.shard, `1/${workflow.env.SHARD_TOTAL}`);
  });

  void test('the check itself fails on a flag that does not exist (so the test above can fail)', () => {
    assert.throws(
      () => parseRunArgs(shellWords('npx token-conformance run --target x --shards 1/2', {}, {}).slice(3)),
      /shards/,
    );
    assert.throws(
      () =>
        parseArgs({
          args: ['r.json', '--waiver', 'w.json'],
          options: gateOptions,
          strict: true,
          allowPositionals: true,
        }),
      /waiver/,
    );
    assert.throws(() => shellWords('echo ${{ secrets.X }}', {}, {}), /unknown expression/);
  });

  void test('every Playwright command and flag it uses exists (playwright <command> --help)', () => {
    const lines = commandLines().filter((c) => c.line.startsWith('npx playwright'));
    assert.ok(lines.length > 0, 'the blob reports are merged with Playwright');
    const cli = playwrightCliPath();
    for (const { line } of lines) {
      const [, , command, ...args] = shellWords(line, workflow.env, expressions);
      const help = execFileSync(process.execPath, [cli, command!, '--help'], { encoding: 'utf8' });
      for (const flag of args.filter((a) => a.startsWith('--')))
        assert.ok(new RegExp(`\\s${flag}\\b`).test(help), `playwright ${command} has no ${flag}: ${line}`);
    }
  });
});

void describe('examples/github-actions/conformance.yml: the scheduled obligations job (issue 15)', () => {
  const crons = (workflow.on.schedule ?? []).map((s) => s.cron);
  const fields = (cron: string) => cron.trim().split(/\s+/);
  const hourly = crons.filter((c) => {
    const [m, h, dom, mon, dow] = fields(c);
    return /^\d+$/.test(m!) && h === '*' && dom === '*' && mon === '*' && dow === '*';
  });
  const weekly = crons.filter((c) => {
    const [m, h, dom, mon, dow] = fields(c);
    return /^\d+$/.test(m!) && /^\d+$/.test(h!) && dom === '*' && mon === '*' && /^[0-6]$/.test(dow!);
  });
  const job = workflow.jobs.obligations!;
  /** The crons a job's `if:` runs it on (github.event.schedule == '…'). */
  const schedulesIn = (condition: string | undefined) =>
    [...(condition ?? '').matchAll(/github\.event\.schedule\s*==\s*'([^']+)'/g)].map((m) => m[1]!);

  void test('an hourly schedule (3600 s tokens) and a weekly one (the 7-day refresh rule) run the obligations job, and only it', () => {
    assert.equal(hourly.length, 1, `one hourly cron among ${crons.join(' | ')}`);
    assert.equal(weekly.length, 1, `one weekly cron among ${crons.join(' | ')}`);
    assert.ok(job, 'a job named obligations');
    assert.match(job.if ?? '', /github\.event_name == 'schedule'/);
    assert.deepEqual(
      schedulesIn(job.if).sort(),
      [...hourly, ...weekly].sort(),
      'it runs on exactly the hourly and weekly schedules',
    );
    for (const name of ['shard', 'merge-and-gate']) {
      const other = workflow.jobs[name]!;
      assert.ok(
        schedulesIn(other.if).every((c) => !hourly.includes(c) && !weekly.includes(c)) &&
          /github\.event_name != 'schedule'/.test(other.if ?? ''),
        `${name} does not run on the obligations schedules`,
      );
      for (const c of schedulesIn(other.if)) assert.ok(crons.includes(c), `${name}: ${c} is one of on.schedule`);
    }
  });

  void test('the state file is restored from the cache, passed with --state, saved under a new key even after a refused run; never uploaded with the reports', () => {
    const restore = job.steps.find((s) => s.uses === 'actions/cache/restore@v4');
    const save = job.steps.find((s) => s.uses === 'actions/cache/save@v4');
    assert.ok(restore && save, 'actions/cache/restore and actions/cache/save');
    assert.equal(restore.with?.path, save.with?.path, 'the same path');
    assert.equal(restore.with?.path, '${{ env.STATE_DIR }}');
    assert.match(
      save.with?.key ?? '',
      /\$\{\{ github\.run_id \}\}/,
      'a new cache key every run (entries are immutable)',
    );
    assert.equal(restore.with?.key, save.with?.key);
    assert.ok(
      save.with!.key!.startsWith(restore.with['restore-keys']!),
      'restore-keys finds the entries earlier runs saved',
    );
    assert.equal(save.if, '${{ !cancelled() }}', 'saved after a failed or refused run too');
    const order = (s: Step | undefined) => job.steps.indexOf(s!);
    const runStep = job.steps.find((s) => s.run?.includes('token-conformance run'));
    assert.ok(order(restore) < order(runStep) && order(runStep) < order(save), 'restore, run, save');
    const line = commandLines().find((l) => l.job === 'obligations' && l.line.startsWith('npx token-conformance run'))!;
    const options = parseRunArgs(shellWords(line.line, workflow.env, expressions).slice(3));
    assert.ok(options !== 'help');
    assert.equal(options.state, `${workflow.env.STATE_DIR}/state.bin`, '--state inside the cached directory');
    assert.ok(
      !options.state.startsWith('reports') && !options.state.startsWith(options.reportsDir),
      'the state file is not under the reports',
    );
    for (const upload of job.steps.filter((s) => s.uses === 'actions/upload-artifact@v4'))
      assert.doesNotMatch(upload.with?.path ?? '', /STATE_DIR|conformance-state/, 'the state file is never uploaded');
  });

  void test("it runs exactly the requirements that need a clock, with the state key and the profile's secrets from the secret store", () => {
    const line = commandLines().find((l) => l.job === 'obligations' && l.line.startsWith('npx token-conformance run'))!;
    const options = parseRunArgs(shellWords(line.line, workflow.env, expressions).slice(3));
    assert.ok(options !== 'help');
    const clockRules = loadCatalogue()
      .filter((r) => r.needs?.includes('clock-control'))
      .map((r) => r.id)
      .sort();
    assert.ok(clockRules.length >= 4);
    assert.deepEqual(
      workflow.env.TIME_RULES!.split(',').sort(),
      clockRules,
      'TIME_RULES lists every requirement that needs a clock',
    );
    assert.match(line.line, /--requirement "\$TIME_RULES"/);
    const env = job.env ?? {};
    assert.equal(env.CONFORMANCE_STATE_KEY, '${{ secrets.CONFORMANCE_STATE_KEY }}');
    const profile = readFileSync(join(root, workflow.env.PROFILE!), 'utf8');
    for (const [, name] of profile
      .split('\n')
      .filter((l) => !l.trim().startsWith('//'))
      .join('\n')
      .matchAll(/\{\s*"env"\s*:\s*"(\w+)"\s*\}/g))
      assert.equal(env[name!], `\${{ secrets.${name!} }}`, `${name!} is passed`);
    for (const [name, value] of Object.entries(env))
      assert.match(value, /^\$\{\{ secrets\.\w+ \}\}$/, `${name}: only secrets in the job env`);
  });

  void test('its gate fails on a FAIL settlement and allows PENDING (a later run settles it)', () => {
    const gates = commandLines().filter(
      (l) => l.job === 'obligations' && l.line.startsWith('npx token-conformance gate'),
    );
    assert.equal(gates.length, 1);
    const args = shellWords(gates[0]!.line, workflow.env, expressions).slice(3);
    const { values } = parseArgs({ args, options: gateOptions, strict: true, allowPositionals: true });
    assert.equal(values['allow-pending'], true);
    assert.ok(values['require-verified'] !== undefined, '--allow-pending goes with a coverage rule');
  });
});
