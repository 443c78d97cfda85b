// templates/gitlab/token-conformance.gitlab-ci.yml, run as a GitLab runner runs a job: the
// `token-conformance` job's script (from the hidden job it extends) in one bash with
// `set -eo pipefail`, the template's variables (and the project's overrides) in the environment,
// CI_PROJECT_DIR the workspace. Green against the reference server, red against a planted fault
// (examples/broken-target), with the JUnit file, the dotenv report and summary.md where the
// artifacts declaration says, the failing requirement and its clause in summary.md and the log.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parse } from 'yaml';
import { startBrokenTarget } from './broken-target-process.ts';
import { requirementById } from '../../requirements/index.ts';
import { temporaryDirectory } from './support/temporary-directory.ts';
import { startTextTarget } from './support/hostile-target/text-target.ts';
import { markdownRendered, rawInLog } from './support/hostile-target/text-payloads.ts';

const root = join(import.meta.dirname, '..', '..');
const templateFile = join(root, 'templates', 'gitlab', 'token-conformance.gitlab-ci.yml');

interface GitlabJob {
  extends?: string;
  script?: string[];
  rules?: { if: string }[];
  artifacts?: { when?: string; paths?: string[]; reports?: { junit?: string[]; dotenv?: string } };
}
const template = parse(readFileSync(templateFile, 'utf8')) as Record<string, GitlabJob> & {
  variables: Record<string, string>;
};

/** A job with the keys of the job it extends (one level, as the template uses). */
function resolved(name: string): GitlabJob {
  const job = template[name]!;
  return job.extends ? { ...template[job.extends], ...job } : job;
}

/** `$NAME` in an artifacts path, from the job's variables. */
const expand = (path: string, vars: Record<string, string>) =>
  path.replace(/\$(\w+)/g, (_m, n: string) => vars[n] ?? '');

async function runJob(
  name: string,
  overrides: Record<string, string>,
  workspace = temporaryDirectory('tc-gitlab-'),
): Promise<{ code: number; log: string; vars: Record<string, string>; workspace: string }> {
  const vars = { ...template.variables, ...overrides };
  const script = join(workspace, '.job.sh');
  writeFileSync(script, (resolved(name).script ?? []).join('\n'));
  const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
    cwd: workspace,
    env: { ...process.env, ...vars, CI: 'true', GITLAB_CI: 'true', CI_PROJECT_DIR: workspace },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr.on('data', (d: Buffer) => (log += d.toString()));
  const code = await new Promise<number>((done) => child.on('close', (c) => done(c ?? 1)));
  return { code, log, vars, workspace };
}

const cli = `${process.execPath} ${join(root, 'bin', 'token-conformance.js')}`;
const selection = '--requirement GRANT-CC-001,TOKEN-REQ-001 --passes conformance --reporter dot';
const stopping: ChildProcess[] = [];
after(() => {
  for (const c of stopping) c.kill('SIGTERM');
});

/** The workspace's files an artifacts glob matches (`*` within one path segment, as GitLab reads it). */
function glob(pattern: string, workspace: string): string[] {
  const re = new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]*')}$`,
  );
  return readdirSync(workspace, { recursive: true, encoding: 'utf8' })
    .filter((f) => re.test(f))
    .sort();
}

function artifacts(job: GitlabJob, vars: Record<string, string>, workspace: string) {
  const reports = job.artifacts!.reports!;
  return {
    junit: (reports.junit ?? []).flatMap((g) => glob(expand(g, vars), workspace)),
    dotenv: Object.fromEntries(
      readFileSync(join(workspace, expand(reports.dotenv!, vars)), 'utf8')
        .trim()
        .split('\n')
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    ),
  };
}

void describe('the GitLab CI template', () => {
  void test('an include-able file: a visible job that runs only when CONFORMANCE_TARGET is set, extending hidden jobs a project can reuse', () => {
    assert.deepEqual(template['token-conformance']?.rules, [{ if: '$CONFORMANCE_TARGET' }]);
    assert.equal(template['token-conformance']?.extends, '.token-conformance');
    for (const name of ['.token-conformance', '.token-conformance-merge'])
      assert.equal(template[name]?.artifacts?.when, 'always', name);
    for (const v of Object.keys(template.variables)) assert.match(v, /^CONFORMANCE_[A-Z_]+$/);
  });

  void test('green on the reference server: JUnit and dotenv artifacts, the gate passes', async () => {
    const job = resolved('token-conformance');
    const run = await runJob('token-conformance', {
      CONFORMANCE_TARGET: join(root, 'profiles', 'reference.json'),
      CONFORMANCE_START_REFERENCE: 'true',
      CONFORMANCE_PACKAGE: '',
      CONFORMANCE_CLI: cli,
      CONFORMANCE_ARGS: selection,
      CONFORMANCE_CATALOGUE: '1',
    });
    assert.equal(run.code, 0, run.log);
    const a = artifacts(job, run.vars, run.workspace);
    assert.deepEqual(a.junit, ['reports/token-conformance/junit.xml']);
    assert.equal(a.dotenv.CONFORMANCE_VERDICT, 'PASS');
    assert.equal(a.dotenv.CONFORMANCE_CATALOGUE, '1');
    assert.equal(a.dotenv.CONFORMANCE_PASS, '2');
    assert.match(
      readFileSync(join(run.workspace, 'reports/token-conformance/summary.md'), 'utf8'),
      /^## token-conformance: PASS — reference/,
    );
    assert.match(run.log, /GATE PASS/);
  });

  void test("a hostile target: the job log forges no section, colour or command, summary.md renders none of the target's Markdown", async () => {
    const target = await startTextTarget();
    try {
      const profile = join(temporaryDirectory('tc-gitlab-hostile-'), 'hostile.json');
      writeFileSync(profile, JSON.stringify(target.profile));
      const run = await runJob('token-conformance', {
        CONFORMANCE_TARGET: profile,
        CONFORMANCE_PACKAGE: '',
        CONFORMANCE_CLI: cli,
        CONFORMANCE_ARGS: `${selection} --skip-preflight`,
      });
      assert.equal(run.code, 1, run.log);
      assert.ok(run.log.includes('section_start:1700000000:forged'), 'the target text reached the log, inert');
      assert.deepEqual(rawInLog(run.log), []);
      const summary = readFileSync(join(run.workspace, 'reports/token-conformance/summary.md'), 'utf8');
      assert.deepEqual(rawInLog(summary), []);
      assert.deepEqual(markdownRendered(summary), []);
    } finally {
      await target.close();
    }
  });

  void test('red on a planted fault: the failing requirement with its clause in summary.md and the log, a JUnit failure, the gate fails the job', async () => {
    const job = resolved('token-conformance');
    const profile = join(temporaryDirectory('tc-gitlab-broken-'), 'broken.json');
    stopping.push(await startBrokenTarget('get-answered-404', profile));
    const run = await runJob('token-conformance', {
      CONFORMANCE_TARGET: profile,
      CONFORMANCE_PACKAGE: '',
      CONFORMANCE_CLI: cli,
      CONFORMANCE_ARGS: selection,
    });
    assert.equal(run.code, 1, run.log);
    const broken = requirementById('TOKEN-REQ-001');
    const a = artifacts(job, run.vars, run.workspace);
    assert.equal(a.dotenv.CONFORMANCE_VERDICT, 'FAIL');
    assert.equal(a.dotenv.CONFORMANCE_FAIL, '1');
    assert.match(readFileSync(join(run.workspace, a.junit[0]!), 'utf8'), /<failure /);
    const summary = readFileSync(join(run.workspace, 'reports/token-conformance/summary.md'), 'utf8');
    assert.ok(summary.includes(`| TOKEN-REQ-001 | ${broken.source} | MUST |`), summary);
    assert.ok(run.log.includes(`FAIL TOKEN-REQ-001 (${broken.source}): `), run.log);
    assert.match(run.log, /GATE FAIL/);
  });

  void test('parallel shards (CI_NODE_INDEX/CI_NODE_TOTAL) report without gating; a job extending .token-conformance-merge merges, summarises and gates', async () => {
    const reference = {
      CONFORMANCE_TARGET: join(root, 'profiles', 'reference.json'),
      CONFORMANCE_START_REFERENCE: 'true',
      CONFORMANCE_PACKAGE: '',
      CONFORMANCE_CLI: cli,
      CONFORMANCE_ARGS: selection,
    };
    const first = await runJob('token-conformance', { ...reference, CI_NODE_INDEX: '1', CI_NODE_TOTAL: '2' });
    assert.equal(first.code, 0, first.log);
    const second = await runJob(
      'token-conformance',
      { ...reference, CI_NODE_INDEX: '2', CI_NODE_TOTAL: '2' },
      first.workspace,
    );
    assert.equal(second.code, 0, second.log);
    for (const r of [first, second]) assert.doesNotMatch(r.log, /GATE /, 'a shard does not gate');
    assert.ok(
      artifacts(resolved('token-conformance'), first.vars, first.workspace).junit.length >= 1,
      "the shards' JUnit files match the artifacts globs",
    );
    const merged = await runJob(
      '.token-conformance-merge',
      { CONFORMANCE_PACKAGE: '', CONFORMANCE_CLI: cli },
      first.workspace,
    );
    assert.equal(merged.code, 0, merged.log);
    assert.match(merged.log, /MERGED 2 shards/);
    assert.match(merged.log, /GATE PASS/);
    const dotenv = artifacts(resolved('.token-conformance-merge'), merged.vars, merged.workspace).dotenv;
    assert.equal(dotenv.CONFORMANCE_VERDICT, 'PASS');
    assert.equal(dotenv.CONFORMANCE_PASS, '2');
  });
});
