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
import { loadWaivers } from '../gate/waivers.ts';
import { loadProfile } from '../../core/profile/load-profile.ts';
import { playwrightCliPath } from '../playwright/playwright-cli.ts';

const root = join(import.meta.dirname, '..', '..');
const workflowFile = join(root, 'examples', 'github-actions', 'conformance.yml');

interface Step { name?: string; run?: string; uses?: string; env?: Record<string, string> }
interface Job { env?: Record<string, string>; steps: Step[]; strategy?: { matrix?: { shard?: number[] } }; needs?: string | string[] }
interface Workflow { env: Record<string, string>; jobs: Record<string, Job> }

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
  return Object.entries(workflow.jobs).flatMap(([job, j]) => j.steps.filter((s) => s.run).flatMap((s) =>
    s.run!.replace(/\\\n\s*/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#')).map((line) => ({ job, step: s.name ?? s.run!.slice(0, 30), line }))));
}

const expressions = { 'matrix.shard': '1', 'env.SHARD_TOTAL': workflow.env.SHARD_TOTAL ?? '' };

void describe('examples/github-actions/conformance.yml', () => {
  void test('parses as YAML: a sharded job whose matrix matches SHARD_TOTAL, then merge-and-gate after it', () => {
    const shard = workflow.jobs.shard!;
    assert.deepEqual(shard.strategy?.matrix?.shard, Array.from({ length: Number(workflow.env.SHARD_TOTAL) }, (_, i) => i + 1));
    assert.equal(workflow.jobs['merge-and-gate']!.needs, 'shard');
    const uses = Object.values(workflow.jobs).flatMap((j) => j.steps.map((s) => s.uses).filter(Boolean));
    assert.ok(uses.includes('actions/upload-artifact@v4') && uses.includes('actions/download-artifact@v4'), 'reports are uploaded and downloaded as artifacts');
  });

  void test('every secret the profile references comes from the CI secret store under its own name', () => {
    const profile = readFileSync(join(root, workflow.env.PROFILE!), 'utf8');
    const referenced = [...profile.split('\n').filter((l) => !l.trim().startsWith('//')).join('\n').matchAll(/\{\s*"env"\s*:\s*"(\w+)"\s*\}/g)].map((m) => m[1]!);
    assert.ok(referenced.length >= 3, 'the profile references its secrets');
    const env = workflow.jobs.shard!.env ?? {};
    for (const name of referenced) assert.equal(env[name], `\${{ secrets.${name} }}`, `${name} is passed from secrets.${name}`);
    for (const [name, value] of Object.entries(env)) assert.match(value, /^\$\{\{ secrets\.\w+ \}\}$/, `${name}: only secrets in the job env`);
    // With every secret set, the profile loads (its references resolve).
    assert.doesNotThrow(() => loadProfile(join(root, workflow.env.PROFILE!), { env: Object.fromEntries(referenced.map((n) => [n, 'x'])) }));
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
      else if (command === 'merge') assert.doesNotThrow(() => parseArgs({ args, options: mergeOptions, strict: true, allowPositionals: true }), line);
      else if (command === 'gate') assert.doesNotThrow(() => parseArgs({ args, options: gateOptions, strict: true, allowPositionals: true }), line);
      else assert.fail(`no argument check for '${command}': add one`);
    }
    assert.deepEqual([...used].sort(), ['gate', 'merge', 'run'], 'the example runs, merges and gates');
    assert.ok(lines.some((l) => /token-conformance gate .*--require-verified must\b/.test(l.line)), 'the gate requires every MUST verified (a run that verified nothing is not green)');
    const run = lines.map((l) => shellWords(l.line, workflow.env, expressions)).find((w) => w[2] === 'run')!;
    const options = parseRunArgs(run.slice(3));
    assert.equal(options === 'help' ? undefined : options.shard, `1/${workflow.env.SHARD_TOTAL}`);
  });

  void test('the check itself fails on a flag that does not exist (so the test above can fail)', () => {
    assert.throws(() => parseRunArgs(shellWords('npx token-conformance run --target x --shards 1/2', {}, {}).slice(3)), /shards/);
    assert.throws(() => parseArgs({ args: ['r.json', '--waiver', 'w.json'], options: gateOptions, strict: true, allowPositionals: true }), /waiver/);
    assert.throws(() => shellWords('echo ${{ secrets.X }}', {}, {}), /unknown expression/);
  });

  void test('every Playwright command and flag it uses exists (playwright <command> --help)', () => {
    const lines = commandLines().filter((c) => c.line.startsWith('npx playwright'));
    assert.ok(lines.length > 0, 'the blob reports are merged with Playwright');
    const cli = playwrightCliPath();
    for (const { line } of lines) {
      const [, , command, ...args] = shellWords(line, workflow.env, expressions);
      const help = execFileSync(process.execPath, [cli, command!, '--help'], { encoding: 'utf8' });
      for (const flag of args.filter((a) => a.startsWith('--'))) assert.ok(new RegExp(`\\s${flag}\\b`).test(help), `playwright ${command} has no ${flag}: ${line}`);
    }
  });
});
