// CLI conventions: --version, help <command>, run --list, --requirement, --last-failed,
// --max-failures and --reporter (their argument checks; the selection through Playwright's listing).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parseRunArgs, runMain } from '../commands/run.command.ts';
import { requirementGrep } from '../commands/run-selection.ts';

const root = join(import.meta.dirname, '..', '..');
const profile = join(root, 'profiles', 'reference.json');
const dir = mkdtempSync(join(tmpdir(), 'tc-run-selection-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function run(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runMain(['--target', profile, ...args], {
    out: (l) => out.push(...l.split('\n')),
    err: (l) => err.push(...l.split('\n')),
  });
  return { code, out, err };
}

void describe('token-conformance --version and help <command>', () => {
  const cli = (args: string[]) =>
    spawnSync(process.execPath, [join(root, 'bin', 'token-conformance.js'), ...args], { encoding: 'utf8' });
  void test('--version prints the package version', () => {
    const r = cli(['--version']);
    assert.equal(r.status, 0);
    assert.equal(
      r.stdout.trim(),
      (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version,
    );
  });
  void test("help run prints the run command's usage, help of an unknown command is exit 2", () => {
    const r = cli(['help', 'run']);
    assert.equal(r.status, 0);
    assert.match(r.stdout, /^Usage: token-conformance run --target FILE/);
    assert.equal(cli(['help', 'nope']).status, 2);
  });
});

void describe('run: selection options', () => {
  void test('--requirement with an unknown ID is exit 2 naming it; a known ID becomes a tag grep that does not match longer IDs', async () => {
    assert.throws(
      () => parseRunArgs(['--target', 'x', '--requirement', 'GRANT-CC-001,NOPE-1']),
      /^Error: --requirement: unknown requirement ID NOPE-1 /,
    );
    const r = await run(['--requirement', 'NOPE-1']);
    assert.equal(r.code, 2);
    assert.match(r.err[0]!, /^token-conformance run: --requirement: unknown requirement ID NOPE-1/);
    const grep = new RegExp(requirementGrep(['GRANT-CC-001']));
    assert.ok(grep.test('… @must @grants @GRANT-CC-001'));
    assert.ok(!grep.test('… @GRANT-CC-0010'));
  });

  void test('--reporter and --max-failures refuse what they do not know', () => {
    assert.throws(
      () => parseRunArgs(['--target', 'x', '--reporter', 'fancy']),
      /--reporter must be compact, list or dot/,
    );
    assert.throws(
      () => parseRunArgs(['--target', 'x', '--max-failures', '0']),
      /--max-failures must be a positive integer/,
    );
    const parsed = parseRunArgs(['--target', 'x', '--max-failures', '3']);
    assert.ok(parsed !== 'help' && parsed.maxFailures === 3 && parsed.terminalReporter === 'compact');
  });

  void test('--list --requirement: the checks of that requirement and its ID, nothing run, no target contacted', async () => {
    const r = await run(['--requirement', 'GRANT-CC-001', '--list']);
    assert.equal(r.code, 0, r.err.join('\n'));
    assert.deepEqual(
      r.out.filter((l) => l.startsWith('  specs/')),
      [
        '  specs/grants/client-credentials.spec.ts › GRANT-CC-001 a US client_credentials request gets a token without refresh_token or scope',
      ],
    );
    assert.equal(r.out.at(-1), '1 check covering 1 requirement: GRANT-CC-001');
  });

  void test("--last-failed: the previous run's failed checks only; none failed is exit 0, no previous run is exit 2", async () => {
    const reports = join(dir, 'reports');
    mkdirSync(reports, { recursive: true });
    const check = (title: string, status: string) => ({
      title: `specs/grants/client-credentials.spec.ts › grant_type=client_credentials › ${title}`,
      file: 'specs/grants/client-credentials.spec.ts',
      project: 'conformance',
      requirementIds: [],
      status,
      durationMs: 1,
    });
    writeFileSync(
      join(reports, 'checks.json'),
      JSON.stringify({
        checks: [
          check('GRANT-CC-001 a US client_credentials request gets a token without refresh_token or scope', 'failed'),
          check(
            'GRANT-CC-002 an EU client_credentials request gets a token whose scope is exactly empty_default, without refresh_token',
            'passed',
          ),
        ],
      }),
    );
    const r = await run(['--reports', reports, '--last-failed', '--list']);
    assert.equal(r.code, 0, r.err.join('\n'));
    assert.deepEqual(
      r.out.filter((l) => l.startsWith('  specs/')).map((l) => l.split(' › ')[1]!.split(' ')[0]),
      ['GRANT-CC-001'],
    );

    writeFileSync(join(reports, 'checks.json'), JSON.stringify({ checks: [check('GRANT-CC-001 x', 'passed')] }));
    const none = await run(['--reports', reports, '--last-failed']);
    assert.equal(none.code, 0);
    assert.match(none.out.join('\n'), /no check failed in the previous run/);

    const fresh = await run(['--reports', join(dir, 'never-ran'), '--last-failed']);
    assert.equal(fresh.code, 2);
    assert.match(fresh.err[0]!, /--last-failed: no previous run in /);
  });
});
