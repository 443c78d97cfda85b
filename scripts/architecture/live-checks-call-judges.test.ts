// One function decides each requirement traffic can show: a live check of a requirement that has a
// judge (judges/registry.ts) drives its requests and hands what it saw to that judge — the one
// `audit` runs on recorded traffic — instead of asserting the rule a second time. For every check
// Playwright lists (its requirement IDs are its tags, requirement() in fixtures/requirement.ts), this
// reads the check's function (and the functions of its own file that it calls) with the TypeScript
// parser and asks, for each judged ID it cites, whether its verdict goes through the judge: a
// `toSatisfy('<ID>')` (or `toSatisfy(x)` with a computed ID), or a helper known to call the judge.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import ts from 'typescript';
import { playwrightCommand } from '../../harness/playwright/playwright-cli.ts';
import { judges } from '../../judges/registry.ts';
import { judgedLifecycleRules } from '../../fixtures/support/properties/lifecycle/run-judgement.ts';

const root = join(import.meta.dirname, '..', '..');

/**
 * Helpers a check calls that hand the answer to a judge: the call, the requirement IDs it decides
 * through the judge, and the module where it does (checked to call the judges below).
 */
const routers: { call: RegExp; decides: RegExp; module: string; calls: RegExp }[] = [
  // The code a trigger gets is the check's; the code's status is its ERR-GW-nnnn judge's.
  {
    call: /\.toBeGatewayError\(/,
    decides: /^ERR-GW-\d{4}$/,
    module: 'fixtures/matchers.ts',
    calls: /\bgatewayJudgement\(/,
  },
  // pickTrigger's assertion: toBeGatewayError on the picked trigger.
  {
    call: /\.answeredWithCode\(/,
    decides: /^ERR-GW-\d{4}$/,
    module: 'fixtures/support/gateway/gateway-trigger.ts',
    calls: /\.toBeGatewayError\(/,
  },
  // The gateway input property: what an answer alone shows judged by its judge (gateway-answer.judge.ts);
  // which code the generated input gets, and which inputs need a 401, stay the property's.
  {
    call: /\bgatewayInputJudge\(/,
    decides: /^(ERR-GW-GEN-00[12]|ERR-GW-\d{4}|BEARER-002|BEARER-013)$/,
    module: 'fixtures/support/properties/gateway-answer.judge.ts',
    calls: /\bgatewayJudgement\(/,
  },
  // The token endpoint input property: what an answer alone shows judged by its judges (token-answer.judge.ts);
  // which requirements the generated input exercises, and which answers the catalogue allows for it, stay the oracle's.
  {
    call: /\bjudgeTokenAnswer\(/,
    decides: /^(TOKEN-REQ-00[13569]|ERR-TOK-00[1245]|GRANT-PW-004|GRANT-RT-007)$/,
    module: 'fixtures/support/properties/token-answer.judge.ts',
    calls: /\btokenJudgement\(/,
  },
  // The lifecycle property: the run's answers in order (the clock control's among them) through one
  // judgement (run-judgement.ts); which rule an answer exercises stays the model's.
  {
    call: /\blifecycleProperty\(/,
    decides: new RegExp(`^(${judgedLifecycleRules.join('|')})$`),
    module: 'fixtures/support/properties/lifecycle/run-judgement.ts',
    calls: /\bnew TrafficJudgement\(/,
  },
];

interface ListedSpec {
  file: string;
  line: number;
  column: number;
  title: string;
  tags: string[];
}
interface ListedSuite {
  specs?: ListedSpec[];
  suites?: ListedSuite[];
}

/** Every check Playwright lists (no target contacted), with its place in its file. */
function listedChecks(): ListedSpec[] {
  const args = playwrightCommand([
    'test',
    '--config',
    join(root, 'playwright.config.ts'),
    '--list',
    '--reporter',
    'json',
  ]);
  const run = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  assert.equal(run.status, 0, `Playwright could not list the checks: ${run.stderr}`);
  const out: ListedSpec[] = [];
  const walk = (suite: ListedSuite) => {
    for (const spec of suite.specs ?? []) out.push(spec);
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of (JSON.parse(run.stdout) as { suites: ListedSuite[] }).suites) walk(suite);
  return out;
}

const sources = new Map<string, ts.SourceFile>();
function sourceOf(file: string): ts.SourceFile {
  let source = sources.get(file);
  if (!source) {
    source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
    sources.set(file, source);
  }
  return source;
}

/** The functions a file declares by name (function declarations and `const f = (…) => …`). */
function namedFunctions(source: ts.SourceFile): Map<string, ts.Node> {
  const found = new Map<string, ts.Node>();
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionDeclaration(node) && node.name) found.set(node.name.text, node);
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer &&
      (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))
    )
      found.set(node.name.text, node.initializer);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The text of the check listed at line:column — its function, and the functions of its file it calls (transitively). */
function checkText(spec: ListedSpec): string {
  const file = join('specs', spec.file);
  const source = sourceOf(file);
  const at = source.getPositionOfLineAndCharacter(spec.line - 1, spec.column - 1);
  let check: ts.CallExpression | undefined;
  const visit = (node: ts.Node): void => {
    if (check) return;
    if (ts.isCallExpression(node) && node.getStart() === at) check = node;
    else ts.forEachChild(node, visit);
  };
  visit(source);
  assert.ok(check, `${file}:${spec.line}: no call where Playwright lists the check "${spec.title}"`);
  const body = check.arguments.at(-1)!;
  const functions = namedFunctions(source);
  const texts: string[] = [];
  const seen = new Set<ts.Node>();
  const pending: ts.Node[] = [body];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    const text = node.getText(source);
    texts.push(text);
    for (const [name, fn] of functions) if (new RegExp(`\\b${name}\\(`).test(text)) pending.push(fn);
  }
  return texts.join('\n');
}

/** Whether a check's text hands `id`'s verdict to its judge. */
function callsJudge(text: string, id: string): boolean {
  // toSatisfy with the ID, or with a computed one (a check generated per requirement: toSatisfy(id)).
  // Prettier ends a call it breaks over lines with a trailing comma: not part of the argument.
  for (const m of text.matchAll(/\.toSatisfy\(\s*([^)]*?)\s*,?\s*\)/g)) {
    const argument = m[1]!;
    if (argument === `'${id}'` || !/^['"`]/.test(argument)) return true;
  }
  return routers.some((r) => r.decides.test(id) && r.call.test(text));
}

void describe("every judged requirement's live checks call its judge", () => {
  const checks = listedChecks();
  const judged = new Set(judges.keys());
  /** Judged requirement → the checks citing it that do not call its judge. */
  const decidedTwice = new Map<string, string[]>();
  const cited = new Set<string>();
  for (const spec of checks) {
    const ids = spec.tags.map((t) => t.replace(/^@/, '')).filter((t) => judged.has(t));
    if (ids.length === 0) continue;
    const text = checkText(spec);
    for (const id of ids) {
      cited.add(id);
      if (callsJudge(text, id)) continue;
      decidedTwice.set(id, [...(decidedTwice.get(id) ?? []), `specs/${spec.file}:${spec.line} ${spec.title}`]);
    }
  }

  void test('the helpers known to call a judge do call one', () => {
    for (const r of routers)
      assert.match(readFileSync(join(root, r.module), 'utf8'), r.calls, `${r.module} no longer calls ${r.calls}`);
  });

  // A judge that declares an active half (judges/judge.ts) says, with why, what its live checks decide themselves.
  void test('no judged requirement is decided twice, but the active half its judge declares', (t) => {
    const twice = [...decidedTwice.keys()].sort();
    t.diagnostic(
      `${twice.length} of ${cited.size} judged requirements with a live check are still decided twice (the check asserts the rule itself): ${twice.join(' ') || 'none'}`,
    );
    const unlisted = twice.filter((id) => judges.get(id)?.activeHalf === undefined);
    assert.deepEqual(
      unlisted,
      [],
      `live checks that decide a judged requirement themselves (call expect(…).toSatisfy('<ID>') on the exchanges they drove):\n${unlisted
        .map(
          (id) =>
            `  ${id}:\n${decidedTwice
              .get(id)!
              .map((c) => `    ${c}`)
              .join('\n')}`,
        )
        .join('\n')}`,
    );
  });

  void test('a judge that declares an active half has a live check to decide it, and says why', () => {
    for (const [id, judge] of judges) {
      if (judge.activeHalf === undefined) continue;
      assert.ok(judge.activeHalf.trim().length > 0, `${id}: say why its checks decide that half`);
      assert.ok(cited.has(id), `${id}'s judge declares an active half, but no live check cites ${id}`);
    }
  });
});
