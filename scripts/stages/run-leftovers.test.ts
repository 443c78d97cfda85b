// What a run leaves behind is found, stopped, removed and named: processes that carry the run's
// TMPDIR or work inside it (also ones that left the stage's process group), and the tests'
// temporary directories. An interrupted stage: its group is stopped.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { openRunScope, runProcesses } from './run-leftovers.ts';
import { runInGroup, stopStageGroups } from './stage-process.ts';

const linux = existsSync('/proc');
const forever = 'setInterval(() => undefined, 1000)';

/** Waits until `dir`'s processes number `n` (each check is an event: a /proc read). */
async function processesReach(dir: string, n: number): Promise<void> {
  while (runProcesses(dir).length !== n) await new Promise((resolve) => setTimeout(resolve, 20));
}

void describe('the leftovers of a run', { skip: !linux && 'the process sweep reads /proc' }, () => {
  const base = mkdtempSync(join(tmpdir(), 'tc-leftovers-'));
  after(() => rmSync(base, { recursive: true, force: true }));

  void test("a detached process with the run's TMPDIR, one working inside it, a test's directory: killed, removed, named", async () => {
    const scope = openRunScope(base);
    const env = { ...process.env, TMPDIR: scope.dir };
    const work = join(scope.dir, 'tc-postgres-x');
    mkdirSync(work);
    const marked = spawn(process.execPath, ['-e', forever], { env, detached: true, stdio: 'ignore' });
    const inside = spawn(process.execPath, ['-e', forever], {
      cwd: work,
      env: { ...process.env, TMPDIR: base },
      detached: true,
      stdio: 'ignore',
    });
    const exits = [marked, inside].map((c) => new Promise((resolve) => c.once('exit', resolve)));
    await processesReach(scope.dir, 2);
    const left = await scope.sweep();
    assert.deepEqual(left.processes.map((p) => Number(p.split(' ')[0])).sort(), [marked.pid, inside.pid].sort());
    assert.deepEqual(left.paths, [work]);
    await Promise.all(exits);
    assert.deepEqual(await scope.close(), { processes: [], paths: [] });
    assert.equal(existsSync(scope.dir), false);
  });

  void test('an interrupted stage: its whole process group stopped; what left the group is swept', async () => {
    const scope = openRunScope(base);
    const env = { ...process.env, TMPDIR: scope.dir };
    // A stage whose child stays in the group and whose other child leaves it (detached).
    const script = `const { spawn } = require('node:child_process');
      spawn(process.execPath, ['-e', '${forever}'], { stdio: 'ignore' });
      spawn(process.execPath, ['-e', '${forever}'], { stdio: 'ignore', detached: true });
      ${forever}`;
    const stage = runInGroup(process.execPath, ['-e', script], { cwd: base, env, quiet: true });
    // Three processes is not enough: a child counts from its fork, and the detached one leaves the
    // group (setsid) only before its exec; a SIGTERM in between stops it with the group. Both
    // children have exec'd once their command line is their own.
    const child = `${process.execPath} -e ${forever}`;
    while (runProcesses(scope.dir).filter((p) => p.command === child).length !== 2) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await stopStageGroups();
    assert.equal(await stage, 128, 'the stage ended by a signal');
    const left = await scope.close();
    assert.equal(
      left.processes.length,
      1,
      `only the process that left the group was left: ${left.processes.join('; ')}`,
    );
    assert.deepEqual(runProcesses(scope.dir), []);
  });
});
