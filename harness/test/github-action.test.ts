// action.yml, executed as a GitHub runner executes a composite action (composite-action-runner.ts):
// green against the reference server, red against a planted fault (examples/broken-target: the
// reference server behind the self-validation's proxy with one fault), with the job summary naming
// the failing requirement and its clause, an ::error annotation, the verdict counts as outputs and
// the gate's exit code. The example workflow that uses the action with shards and a merge only
// passes inputs the action declares.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parse } from 'yaml';
import { readAction, runCompositeAction, workflowCommands } from './composite-action-runner.ts';
import { startTextTarget } from './support/hostile-target/text-target.ts';
import { startBrokenTarget } from './broken-target-process.ts';
import { requirementById } from '../../requirements/index.ts';
import { temporaryDirectory } from './support/temporary-directory.ts';

const root = join(import.meta.dirname, '..', '..');
const action = readAction(join(root, 'action.yml'));
const selection = '--requirement GRANT-CC-001,TOKEN-REQ-001 --passes conformance --reporter dot';
const artifactUrl = 'https://github.invalid/acme/api/actions/runs/1/artifacts/2';

function workspace() {
  const dir = temporaryDirectory('tc-action-');
  const temp = join(dir, 'runner-temp');
  mkdirSync(temp);
  const ws = join(dir, 'workspace');
  mkdirSync(ws);
  return { ws, temp };
}

const stopping: ChildProcess[] = [];
after(() => {
  for (const c of stopping) c.kill('SIGTERM');
});

void describe('the GitHub Action (action.yml)', () => {
  void test('is a composite action whose run steps are bash, with every documented output', () => {
    assert.equal(action.runs.using, 'composite');
    for (const s of action.runs.steps) if (s.run !== undefined) assert.equal(s.shell, 'bash', s.name);
    for (const o of [
      'verdict',
      'pass',
      'fail',
      'warn',
      'blocked',
      'pending',
      'skip',
      'not-applicable',
      'unchecked',
      'total',
      'report',
      'exit-code',
    ])
      assert.ok(o in action.outputs, o);
    for (const i of ['target', 'gate', 'shard', 'expected-failures', 'catalogue', 'merge'])
      assert.ok(i in action.inputs, i);
  });

  void test('green on the reference server: outputs, job summary, gate passes', async () => {
    const { ws, temp } = workspace();
    const run = await runCompositeAction({
      action,
      actionPath: root,
      workspace: ws,
      temp,
      inputs: {
        target: join(root, 'profiles', 'reference.json'),
        'start-reference': 'true',
        args: selection,
        catalogue: '1',
      },
      usesOutputs: { upload: { 'artifact-url': artifactUrl } },
    });
    assert.equal(run.exitCode, 0, `${run.stdout}\n${run.stderr}`);
    assert.equal(run.outputs.verdict, 'PASS');
    assert.equal(run.outputs.pass, '2');
    assert.equal(run.outputs.fail, '0');
    assert.equal(run.outputs['exit-code'], '0');
    assert.equal(run.outputs.report, 'reports/token-conformance/conformance.json');
    assert.ok(JSON.parse(readFileSync(join(ws, run.outputs.report), 'utf8')), 'the report is in the workspace');
    assert.match(run.summary, /^## token-conformance: PASS — reference/m);
    assert.match(run.summary, /catalogue 1: 137 requirements scored/);
    assert.ok(run.summary.includes(`[uploaded reports](${artifactUrl})`));
    assert.doesNotMatch(run.summary, /### FAIL/);
    assert.doesNotMatch(run.stdout, /^::error/m);
    assert.deepEqual(run.ran.slice(-2), ['Job summary and annotations', 'Gate']);
    assert.match(run.stdout, /GATE PASS/);
  });

  void test('red on a planted fault: the failing requirement with its clause in the summary and an ::error annotation, the gate fails the job', async () => {
    const { ws, temp } = workspace();
    const profile = join(temp, 'broken.json');
    stopping.push(await startBrokenTarget('get-answered-404', profile));
    const run = await runCompositeAction({
      action,
      actionPath: root,
      workspace: ws,
      temp,
      inputs: { target: profile, args: selection, 'artifact-name': 'broken' },
      usesOutputs: { upload: { 'artifact-url': artifactUrl } },
    });
    const broken = requirementById('TOKEN-REQ-001');
    assert.equal(run.exitCode, 1, `${run.stdout}\n${run.stderr}`);
    assert.equal(run.outputs.verdict, 'FAIL');
    assert.equal(run.outputs.fail, '1');
    assert.equal(run.outputs.pass, '1');
    assert.equal(run.outputs['exit-code'], '1', 'run reported the FAIL (1), the gate decided');
    assert.match(run.summary, /^## token-conformance: FAIL — reference-with-fault-get-answered-404/m);
    assert.match(run.summary, /### FAIL \(1\)/);
    assert.ok(run.summary.includes(`| TOKEN-REQ-001 | ${broken.source} | MUST |`), run.summary);
    const escapedClause = broken.source.replace(/,/g, '%2C').replace(/:/g, '%3A');
    assert.match(
      run.stdout,
      new RegExp(
        `^::error title=FAIL TOKEN-REQ-001 \\(${escapedClause.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)::`,
        'm',
      ),
    );
    assert.match(run.stdout, /GATE FAIL/);
    assert.deepEqual(run.ran.slice(-2), ['Job summary and annotations', 'Gate']);
  });

  void test("a hostile target: the runner acts on no workflow command in the run's or the gate's output, each paused with a token of its own", async () => {
    const { ws, temp } = workspace();
    const target = await startTextTarget();
    try {
      const profile = join(temp, 'hostile.json');
      writeFileSync(profile, JSON.stringify(target.profile));
      const run = await runCompositeAction({
        action,
        actionPath: root,
        workspace: ws,
        temp,
        inputs: { target: profile, args: `${selection} --skip-preflight` },
        usesOutputs: { upload: { 'artifact-url': artifactUrl } },
      });
      assert.equal(run.outputs['exit-code'], '1', `${run.stdout}\n${run.stderr}`);
      assert.equal(run.exitCode, 1, 'the gate fails the job');
      // The run step quotes the target (its region parity), line by line; the pause is the second net.
      assert.ok(run.stdout.includes('::add-mask::MASKED-BY-TARGET'), 'the target text reached the log, inert');
      const tokens = [...run.stdout.matchAll(/^::stop-commands::([0-9a-f]{32})$/gm)].map((m) => m[1]!);
      assert.equal(tokens.length, 2, 'the run step and the gate step pause commands');
      assert.notEqual(tokens[0], tokens[1], 'a token new each time');
      for (const t of tokens) assert.match(run.stdout, new RegExp(`^::${t}::$`, 'm'), 'and resume them');
      const acted = workflowCommands(run.stdout);
      assert.ok(acted.length > 0, "ci-summary's annotations are acted on");
      for (const c of acted) {
        assert.ok(['error', 'warning'].includes(c.command), JSON.stringify(c));
        assert.match(c.properties, /^title=(FAIL|UNCHECKED|WARN|BLOCKED) [A-Z]+-/, JSON.stringify(c));
      }
      assert.doesNotMatch(JSON.stringify(acted), /MASKED-BY-TARGET|INJECTED|set-output|hijack/);
    } finally {
      await target.close();
    }
  });

  void test('shards, then merge: each shard reports without gating, the merge job summarises the whole run and gates it', async () => {
    const { ws, temp } = workspace();
    const shardRuns = [];
    for (const i of [1, 2]) {
      shardRuns.push(
        await runCompositeAction({
          action,
          actionPath: root,
          workspace: ws,
          temp,
          inputs: {
            target: join(root, 'profiles', 'reference.json'),
            'start-reference': 'true',
            args: selection,
            shard: `${i}/2`,
            reports: `shards/shard-${i}`,
            catalogue: '1',
          },
        }),
      );
    }
    for (const r of shardRuns) {
      assert.equal(r.exitCode, 0, `${r.stdout}\n${r.stderr}`);
      assert.ok(!r.ran.includes('Gate'), 'a shard does not gate');
    }
    const merged = await runCompositeAction({
      action,
      actionPath: root,
      workspace: ws,
      temp,
      inputs: { target: 'unused', merge: 'shards/*', reports: 'reports/merged' },
    });
    assert.equal(merged.exitCode, 0, `${merged.stdout}\n${merged.stderr}`);
    assert.equal(merged.outputs.verdict, 'PASS');
    assert.equal(merged.outputs.pass, '2', "both shards' requirements in one report");
    assert.match(merged.stdout, /MERGED 2 shards/);
    assert.match(merged.stdout, /GATE PASS/);
    assert.match(merged.summary, /## token-conformance: PASS — reference/);
    assert.match(merged.summary, /catalogue 1: 137 requirements scored/);
  });

  void test('examples/github-actions/conformance-action.yml: shards then a merge, each step passing only inputs the action declares', () => {
    const workflow = parse(
      readFileSync(join(root, 'examples', 'github-actions', 'conformance-action.yml'), 'utf8'),
    ) as {
      jobs: Record<
        string,
        { steps: { uses?: string; with?: Record<string, string> }[]; strategy?: { matrix?: { shard?: number[] } } }
      >;
    };
    const uses = Object.values(workflow.jobs)
      .flatMap((j) => j.steps)
      .filter((s) => s.uses?.includes('token-conformance'));
    assert.ok(uses.length >= 2);
    for (const s of uses)
      for (const input of Object.keys(s.with ?? {})) assert.ok(input in action.inputs, `input ${input}`);
    assert.ok(
      uses.some((s) => s.with?.shard !== undefined),
      'a shard job',
    );
    assert.ok(
      uses.some((s) => s.with?.merge !== undefined),
      'a merge job',
    );
  });
});
