// The two projects without a project dependency: `run` (as a direct `npx playwright test`) runs
// them in one invocation and orders them with the pass gate (against one shared clock the
// time-travel worker waits until every selected conformance check ended).
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { projectsArgs } from '../commands/run.command.ts';
import { PassGate, waitForGate } from '../../core/run/pass-gate.ts';
import config from '../../playwright.config.ts';
import { temporaryDirectory } from './support/temporary-directory.ts';

void describe('pass order', () => {
  void test('the projects do not depend on each other; time-travel runs on one worker', () => {
    const projects = config.projects ?? [];
    assert.deepEqual(
      projects.map((p) => p.name),
      ['conformance', 'time-travel'],
    );
    for (const p of projects) assert.deepEqual(p.dependencies ?? [], [], `${p.name} has no dependency`);
    assert.equal(projects[1]!.workers, 1);
  });

  void test('run: both projects in one invocation, the conformance checks handed out first (listed first)', () => {
    assert.deepEqual(projectsArgs(['conformance', 'time-travel']).slice(0, 3), [
      '--project',
      'conformance',
      'time-travel',
    ]);
    assert.equal((config.projects ?? [])[0]!.name, 'conformance');
  });

  void test('the gate opens when the last conformance check ends, not before', async () => {
    const dir = temporaryDirectory('tc-gate-');
    try {
      const file = join(dir, 'open');
      const gate = new PassGate(file, ['a', 'b']);
      let opened = false;
      const waiting = waitForGate(file, 5000, 10).then(() => {
        opened = true;
      });
      gate.ended('a');
      gate.ended('unknown');
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(opened, false, 'one check still runs');
      gate.ended('b');
      await waiting;
      assert.equal(opened, true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void test('with no conformance check selected (the second pass of run) the gate is open at once', () => {
    const dir = temporaryDirectory('tc-gate-');
    try {
      new PassGate(join(dir, 'open'), []);
      assert.ok(existsSync(join(dir, 'open')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void test('no gate named: nothing waits; a gate that never opens times out', async () => {
    await waitForGate(undefined, 10);
    await assert.rejects(waitForGate(join(tmpdir(), 'tc-gate-never-opened'), 50, 10), /did not end within/);
  });
});
