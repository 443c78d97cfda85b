// Runs a composite action's steps as a GitHub runner does, for tests: each `run:` step with
// `bash --noprofile --norc -eo pipefail FILE` in the workspace, its `env:` and `if:` evaluated with
// the inputs (defaults applied) and earlier steps' outputs, GITHUB_OUTPUT fresh per step (parsed
// into steps.<id>.outputs), GITHUB_STEP_SUMMARY, GITHUB_WORKSPACE and GITHUB_ACTION_PATH set. A
// `uses:` step (another action: setup-node, upload-artifact) is not run: its outputs come from
// `usesOutputs`. A step that fails fails the job; later steps run only when their `if:` says so.
// `workflowCommands` reads a step's stdout as the runner does: the commands it would act on.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export interface ActionStep {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}
export interface CompositeAction {
  inputs: Record<string, { required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

export interface ActionRun {
  /** 0 when every step that ran succeeded, else the exit code of the first that failed. */
  exitCode: number;
  outputs: Record<string, string>;
  summary: string;
  stdout: string;
  stderr: string;
  /** The names of the steps that ran (a `uses:` step counts as run). */
  ran: string[];
}

export const readAction = (file: string): CompositeAction => parse(readFileSync(file, 'utf8')) as CompositeAction;

interface Context {
  inputs: Record<string, string>;
  steps: Record<string, { outputs: Record<string, string> }>;
  actionPath: string;
  failed: boolean;
}

function lookup(path: string, ctx: Context): string {
  const inputs = /^inputs\.([\w-]+)$/.exec(path);
  if (inputs) return ctx.inputs[inputs[1]!] ?? '';
  const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(path);
  if (output) return ctx.steps[output[1]!]?.outputs[output[2]!] ?? '';
  if (path === 'github.action_path') return ctx.actionPath;
  throw new Error(`unknown expression context: ${path}`);
}

/** `${{ … }}` in a value: each a context path only. */
export function substitute(text: string, ctx: Context): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_m, expr: string) => lookup(expr, ctx));
}

/**
 * An `if:` condition: status functions, context paths, string literals, == != && || ! and
 * parentheses — the subset the action uses; anything else throws, so a condition is never guessed.
 */
export function condition(expression: string | undefined, ctx: Context): boolean {
  const expr = (expression ?? 'success()').replace(/^\$\{\{\s*|\s*\}\}$/g, '');
  const tokens = expr.match(/'[^']*'|[A-Za-z_][\w.-]*\(\)|[A-Za-z_][\w.-]*|==|!=|&&|\|\||!|\(|\)|\S/g) ?? [];
  let at = 0;
  const fns: Record<string, boolean> = {
    'success()': !ctx.failed,
    'failure()': ctx.failed,
    'always()': true,
    'cancelled()': false,
  };
  const truthy = (v: string | boolean) => (typeof v === 'boolean' ? v : v !== '');
  const primary = (): string | boolean => {
    const t = tokens[at++];
    if (t === undefined) throw new Error(`unexpected end of if: ${expr}`);
    if (t === '(') {
      const v = or();
      if (tokens[at++] !== ')') throw new Error(`missing ) in if: ${expr}`);
      return v;
    }
    if (t === '!') return !truthy(primary());
    if (/^'[^']*'$/.test(t)) return t.slice(1, -1);
    if (t in fns) return fns[t]!;
    if (/^[A-Za-z_][\w.-]*$/.test(t)) return lookup(t, ctx);
    throw new Error(`unsupported token '${t}' in if: ${expr}`);
  };
  const equality = (): string | boolean => {
    const left = primary();
    const op = tokens[at];
    if (op !== '==' && op !== '!=') return left;
    at += 1;
    const right = primary();
    return op === '==' ? left === right : left !== right;
  };
  const and = (): string | boolean => {
    let v = equality();
    while (tokens[at] === '&&') {
      at += 1;
      const r = equality();
      v = truthy(v) && truthy(r);
    }
    return v;
  };
  const or = (): string | boolean => {
    let v = and();
    while (tokens[at] === '||') {
      at += 1;
      const r = and();
      v = truthy(v) || truthy(r);
    }
    return v;
  };
  const value = truthy(or());
  if (at !== tokens.length) throw new Error(`unexpected '${tokens[at]}' in if: ${expr}`);
  // A condition without a status function implies success() (GitHub's rule).
  return /\b(success|failure|always|cancelled)\(\)/.test(expr) ? value : !ctx.failed && value;
}

/** `key=value` lines and `key<<DELIM … DELIM` blocks of a GITHUB_OUTPUT file. */
export function parseOutputFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([\w-]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      out[heredoc[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (line.includes('=')) out[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
  }
  return out;
}

export interface WorkflowCommand {
  command: string;
  /** `key=value,…` between the name and `::`, as written. */
  properties: string;
  value: string;
}

/**
 * The workflow commands a GitHub runner acts on in a step's stdout: a line that, after leading
 * whitespace, reads `::name[ properties]::value`. Between `::stop-commands::TOKEN` and `::TOKEN::`
 * the runner acts on none (the pause's own two lines are not listed).
 */
export function workflowCommands(stdout: string): WorkflowCommand[] {
  const commands: WorkflowCommand[] = [];
  let paused: string | undefined;
  for (const line of stdout.split('\n')) {
    const m = /^::([^\s:]+)(?: ([^:]*))?::(.*)$/.exec(line.trimStart().replace(/\r$/, ''));
    if (!m) continue;
    const [, command, properties, value] = m as unknown as [string, string, string | undefined, string];
    if (paused !== undefined) {
      if (command === paused) paused = undefined;
      continue;
    }
    if (command === 'stop-commands') paused = value;
    else commands.push({ command, properties: properties ?? '', value });
  }
  return commands;
}

function runBash(
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  file: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  writeFileSync(file, script);
  return new Promise((done, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', file], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => done({ code: code ?? 1, stdout, stderr }));
  });
}

export async function runCompositeAction(options: {
  action: CompositeAction;
  actionPath: string;
  workspace: string;
  temp: string;
  inputs: Record<string, string>;
  env?: Record<string, string>;
  usesOutputs?: Record<string, Record<string, string>>;
}): Promise<ActionRun> {
  const { action, workspace, temp } = options;
  const inputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries(action.inputs)) {
    const value = options.inputs[name] ?? spec.default;
    if (value === undefined && spec.required) throw new Error(`input ${name} is required`);
    inputs[name] = value ?? '';
  }
  for (const name of Object.keys(options.inputs))
    if (!(name in action.inputs)) throw new Error(`the action has no input '${name}'`);
  const ctx: Context = { inputs, steps: {}, actionPath: options.actionPath, failed: false };
  const summaryFile = join(temp, 'step-summary.md');
  writeFileSync(summaryFile, '');
  const result: ActionRun = { exitCode: 0, outputs: {}, summary: '', stdout: '', stderr: '', ran: [] };
  for (const [i, step] of action.runs.steps.entries()) {
    if (!condition(step.if, ctx)) continue;
    const name = step.name ?? step.uses ?? `step ${i + 1}`;
    result.ran.push(name);
    if (step.uses) {
      if (step.id) ctx.steps[step.id] = { outputs: options.usesOutputs?.[step.id] ?? {} };
      continue;
    }
    if (step.shell !== 'bash') throw new Error(`${name}: shell must be bash (got ${step.shell ?? 'none'})`);
    const outputFile = join(temp, `output-${i}`);
    writeFileSync(outputFile, '');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...options.env,
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: workspace,
      GITHUB_ACTION_PATH: options.actionPath,
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
      RUNNER_TEMP: temp,
      ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, substitute(String(v), ctx)])),
    };
    const r = await runBash(substitute(step.run ?? '', ctx), workspace, env, join(temp, `step-${i}.sh`));
    result.stdout += r.stdout;
    result.stderr += r.stderr;
    if (step.id)
      ctx.steps[step.id] = { outputs: existsSync(outputFile) ? parseOutputFile(readFileSync(outputFile, 'utf8')) : {} };
    if (r.code !== 0 && !ctx.failed) {
      ctx.failed = true;
      result.exitCode = r.code;
    }
  }
  result.outputs = Object.fromEntries(Object.entries(action.outputs).map(([k, o]) => [k, substitute(o.value, ctx)]));
  result.summary = readFileSync(summaryFile, 'utf8');
  return result;
}
