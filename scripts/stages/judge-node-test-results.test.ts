// What a node:test stage proved, from the events of its files (no process: the events are written here).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { judgeNodeTestResults, type TestEvent } from './judge-node-test-results.ts';
import type { RegisteredTests } from './registered-tests.ts';

const A = '/repo/a.test.ts';
const B = '/repo/b.test.ts';
const ev = (over: Partial<TestEvent>): TestEvent => ({
  outcome: 'pass',
  name: 't',
  nesting: 1,
  file: A,
  suite: false,
  skip: false,
  todo: false,
  ...over,
});
const files = (entries: [string, RegisteredTests][]) => new Map(entries);
const reg = (tests: number, suites: RegisteredTests['suites'] = []): RegisteredTests => ({ tests, suites });

void describe('judgeNodeTestResults', () => {
  void test('real tests count; suites do not', () => {
    const r = judgeNodeTestResults(
      [
        ev({}),
        ev({ outcome: 'fail' }),
        ev({ skip: true }),
        ev({ name: 's', nesting: 0, suite: true, outcome: 'fail', failureType: 'subtestsFailed' }),
      ],
      files([[A, reg(3)]]),
    );
    assert.deepEqual(r.counts, { passed: 1, failed: 1, skipped: 1 });
    assert.equal(r.minimum, 3);
    assert.equal(r.shortfall, 0);
    assert.deepEqual(r.files[0]?.problems, []);
  });

  void test("a file's made-up pass (its process exited 0 before its tests reported) is no pass: its registered tests fail, the file named", () => {
    const r = judgeNodeTestResults(
      [ev({ name: A, nesting: 0 }), ev({ file: B })],
      files([
        [A, reg(4)],
        [B, reg(1)],
      ]),
    );
    assert.deepEqual(r.counts, { passed: 1, failed: 4, skipped: 0 });
    assert.equal(r.shortfall, 4);
    assert.match(
      r.files[0]?.problems[0] ?? '',
      /^registers 4 tests, reported 0: 4 never ran — its process exited 0 before they reported/,
    );
  });

  void test('a file that reported fewer tests than it registers fails by the shortfall', () => {
    const r = judgeNodeTestResults([ev({}), ev({ name: A, nesting: 0 })], files([[A, reg(3)]]));
    assert.deepEqual(r.counts, { passed: 1, failed: 2, skipped: 0 });
    assert.match(r.files[0]?.problems[0] ?? '', /registers 3 tests, reported 1: 2 never ran/);
  });

  void test('a file that registers no test, and a file nothing of which reported, fail', () => {
    const r = judgeNodeTestResults(
      [ev({ name: A, nesting: 0 })],
      files([
        [A, reg(0)],
        [B, reg(2)],
      ]),
    );
    assert.deepEqual(r.counts, { passed: 0, failed: 3, skipped: 0 });
    assert.deepEqual(
      r.files.map((f) => f.problems),
      [['registers no node:test test'], ['registers 2 tests, reported 0: 2 never ran — nothing of it was reported']],
    );
  });

  void test("a process that failed outside its tests fails once, with node's reason", () => {
    const crashed = judgeNodeTestResults(
      [ev({ name: A, nesting: 0, outcome: 'fail', failureType: 'testCodeFailure', error: 'test failed' })],
      files([[A, reg(2)]]),
    );
    assert.deepEqual(crashed.counts, { passed: 0, failed: 2, skipped: 0 });
    assert.match(crashed.files[0]?.problems[0] ?? '', /its process failed: test failed$/);
    const after = judgeNodeTestResults(
      [ev({}), ev({ name: A, nesting: 0, outcome: 'fail', failureType: 'testCodeFailure', error: 'exit 1' })],
      files([[A, reg(1)]]),
    );
    assert.deepEqual(after.counts, { passed: 1, failed: 1, skipped: 0 });
  });

  void test("a suite skipped whole counts its registered tests as skipped; a suite's own failure (a hook) counts", () => {
    const skipped = judgeNodeTestResults(
      [ev({ name: 'replicas', nesting: 0, suite: true, skip: true }), ev({ skip: true })],
      files([[A, reg(5, [{ name: 'replicas', tests: 4 }])]]),
    );
    assert.deepEqual(skipped.counts, { passed: 0, failed: 0, skipped: 5 });
    const hook = judgeNodeTestResults(
      [ev({}), ev({ name: 's', nesting: 0, suite: true, outcome: 'fail', failureType: 'hookFailed' })],
      files([[A, reg(1)]]),
    );
    assert.deepEqual(hook.counts, { passed: 1, failed: 1, skipped: 0 });
  });
});
