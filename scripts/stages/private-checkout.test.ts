// A stage run from a private checkout, as a CI runner makes one: the repository in a `mktemp -d`
// directory (mode 0700), the job running as root. PostgreSQL must start and the PostgreSQL store
// tests really run; and where the `postgres` user cannot reach what it needs, the stage is red at
// once, with the reason in one line. (Not as root, PostgreSQL runs as this user: the first test then
// proves the same path from a private directory, the second has nothing to prove.)
import assert from 'node:assert/strict';
import {
  copyFileSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { TestEvent } from './judge-node-test-results.ts';
import { runNodeTestStage } from './node-test-stage.ts';
import { registeredTestsOf } from './registered-tests.ts';

const root = join(import.meta.dirname, '..', '..');
const asRoot = process.getuid?.() === 0;
const STORE_TESTS = join('reference-server', 'test', 'store', 'postgres-store.test.ts');

/** Hard links of a tree (what `cp -al` makes): the files are reachable only through the new path. */
function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    if (entry.isDirectory()) linkTree(source, join(to, entry.name));
    else if (entry.isFile()) linkSync(source, join(to, entry.name));
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), join(to, entry.name));
  }
}

/** The parts of the repository the store tests need, in `dir`: the server, the schemas and node_modules, as `cp -al` links them. */
function privateCheckout(dir: string): string {
  const repo = join(dir, 'repo');
  for (const folder of ['reference-server', 'schemas', 'node_modules'])
    linkTree(join(root, folder), join(repo, folder));
  for (const file of ['package.json', 'tsconfig.json']) copyFileSync(join(root, file), join(repo, file));
  return repo;
}

const readEvents = (file: string): TestEvent[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as TestEvent);

void describe('a stage run from a private checkout (mktemp -d, mode 0700)', () => {
  let dir: string;
  let repo: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tc-private-checkout-'));
    repo = privateCheckout(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  void test(`PostgreSQL starts and the PostgreSQL store tests run${asRoot ? ' (as root)' : ''}`, async () => {
    assert.equal(statSync(dir).mode & 0o777, 0o700, 'setup: the checkout is private');
    const lines: string[] = [];
    const file = join(repo, STORE_TESTS);
    const counts = await runNodeTestStage({
      name: 'private',
      files: [file],
      concurrency: 1,
      root: repo,
      reportsDir: dir,
      quiet: true,
      log: (l) => lines.push(l),
    });
    const registered = registeredTestsOf(file).tests;
    assert.ok(registered > 0, 'setup: the store tests register tests');
    assert.deepEqual(counts, { passed: registered, failed: 0, skipped: 0 }, lines.join('\n'));
  });

  void test(
    'where the postgres user cannot reach its directory, the stage is red with the reason in one line',
    { skip: !asRoot && 'only under root does PostgreSQL run as another user' },
    async () => {
      const lines: string[] = [];
      // TMPDIR inside the private directory: the cluster's own directory is out of the postgres user's reach.
      const counts = await runNodeTestStage({
        name: 'unreachable',
        files: [join(repo, STORE_TESTS)],
        concurrency: 1,
        root: repo,
        reportsDir: dir,
        quiet: true,
        env: { ...process.env, TMPDIR: dir },
        log: (l) => lines.push(l),
      });
      assert.equal(counts.passed, 0, lines.join('\n'));
      assert.ok(counts.failed >= registeredTestsOf(join(repo, STORE_TESTS)).tests, lines.join('\n'));
      const reasons = readEvents(join(dir, 'unreachable.results.jsonl')).map((e) => e.error ?? '');
      assert.ok(
        reasons.some((r) =>
          /^setup: PostgreSQL cannot start: the postgres user \(uid \d+; PostgreSQL refuses root\) cannot run .*EACCES — /.test(
            r,
          ),
        ),
        reasons.join('\n'),
      );
    },
  );
});
