// The bookkeeping of `npm run bench -- --loop N`: a run's reports read back (whole, truncated,
// missing), what is wrong with a run, the loop's summary and its results section, the pins of an
// independent target, the processes of a run, and one command watched from outside (its exit,
// a process it leaves behind, a run that does not end).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parseBenchArgs } from '../bench-options.ts';
import { pinDifferencesOf, pinnedVerdicts } from '../harness/foreign-target.ts';
import {
  loopSection,
  mostFrequent,
  readRunReports,
  runProblems,
  summarizeLoop,
  withSection,
  type LoopRun,
} from '../loop/loop-records.ts';
import { leftBehind, processKey, runProcesses, type ProcessInfo } from '../loop/run-processes.ts';
import { watchRun } from '../loop/watch-run.ts';

const root = join(import.meta.dirname, '..', '..');
const temp = mkdtempSync(join(tmpdir(), 'tc-loop-test-'));
after(() => rmSync(temp, { recursive: true, force: true }));

const pins = new Map([
  ['A-1', 'FAIL'],
  ['B-2', 'WARN'],
]);

/** A reports directory as `run` writes it; `edit` breaks one file. */
function reportsDir(name: string, edit?: (files: Record<string, string>) => void): string {
  const dir = join(temp, name);
  mkdirSync(dir, { recursive: true });
  const files: Record<string, string> = {
    'conformance.json': JSON.stringify({
      verdict: 'FAIL',
      summary: { total: 3, PASS: 1, FAIL: 1, WARN: 1, SKIP: 0 },
      requirements: [
        { id: 'A-1', verdict: 'FAIL' },
        { id: 'B-2', verdict: 'WARN' },
        { id: 'C-3', verdict: 'PASS' },
      ],
      checks: { total: 3, requests: 42, sentAgain: 2 },
    }),
    'checks.json': JSON.stringify({ checks: [] }),
    'junit.xml': '<testsuites id="" name="" tests="1">\n<testsuite name="a"></testsuite>\n</testsuites>',
    'traceability.html': '<!doctype html>\n<html lang="en"><body></body></html>\n',
  };
  edit?.(files);
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

const run = (index: number, changes: Partial<LoopRun> = {}): LoopRun => ({
  index,
  seconds: 30 + index,
  cpuSeconds: 20,
  exitCode: 1,
  signal: null,
  hung: false,
  reports: { problems: [], verdict: 'FAIL', counts: '1 PASS, 1 FAIL, 1 WARN', requests: 42, sentAgain: 0 },
  peakRssMiB: 100 + index,
  leftBehind: [],
  load: '3.00',
  log: `run-${index}.log`,
  ...changes,
});

void describe('readRunReports', () => {
  void test('whole reports: verdict, counts, requests, sent again, the pins compared', () => {
    const read = readRunReports(reportsDir('whole'), pins);
    assert.deepEqual(read, {
      problems: [],
      verdict: 'FAIL',
      counts: '1 PASS, 1 FAIL, 1 WARN',
      requests: 42,
      sentAgain: 2,
      pinned: { same: true, unexpected: [], missing: [] },
    });
  });

  void test('a truncated, a missing, an empty and a cut file are each named', () => {
    const dir = reportsDir('broken', (f) => {
      f['conformance.json'] = f['conformance.json']!.slice(0, 40);
      delete f['junit.xml'];
      f['checks.json'] = '';
      f['traceability.html'] = '<!doctype html>\n<html lang="en"><body><table>';
    });
    const read = readRunReports(dir, pins);
    assert.equal(read.verdict, undefined);
    assert.deepEqual(
      read.problems.map((p) => p.replace(/:.*/, '')),
      [
        'conformance.json does not parse',
        'checks.json empty',
        'junit.xml missing',
        'traceability.html is not a whole HTML page',
      ],
    );
  });

  void test('a junit file cut before its end is not whole', () => {
    const dir = reportsDir('cut-junit', (f) => {
      f['junit.xml'] = '<testsuites id="" name="" tests="1">\n<testsuite name="a">';
    });
    assert.deepEqual(readRunReports(dir, pins).problems, ['junit.xml is not a whole <testsuites> document']);
  });
});

void describe('runProblems', () => {
  void test('a clean run has none', () => {
    assert.deepEqual(runProblems(run(1), 42), []);
  });

  void test('an exit code that does not match the verdict', () => {
    assert.deepEqual(runProblems(run(1, { exitCode: 0 }), 42), ['exit 0, but verdict FAIL means exit 1']);
    const pass = run(2, { exitCode: 1, reports: { problems: [], verdict: 'WARN', requests: 42 } });
    assert.deepEqual(runProblems(pass, 42), ['exit 1, but verdict WARN means exit 0']);
  });

  void test('a hang, a signal, the pins, the request count and a process left behind', () => {
    const hung = run(3, {
      hung: true,
      exitCode: null,
      signal: 'SIGKILL',
      seconds: 780,
      reports: { problems: ['conformance.json missing'] },
    });
    assert.deepEqual(runProblems(hung, 42), ['did not end by itself: killed after 780 s', 'conformance.json missing']);
    assert.deepEqual(runProblems(run(4, { exitCode: null, signal: 'SIGSEGV', reports: { problems: [] } }), 42), [
      'ended by signal SIGSEGV',
    ]);
    const odd = run(5, {
      reports: {
        problems: [],
        verdict: 'FAIL',
        requests: 40,
        pinned: { same: false, unexpected: ['C-3 FAIL'], missing: ['B-2 WARN'] },
      },
      leftBehind: ['123 node worker.js'],
    });
    assert.deepEqual(runProblems(odd, 42), [
      'FAIL/WARN differ from the pins: +C-3 FAIL, -B-2 WARN',
      '40 requests, most runs 42',
      'left behind: 123 node worker.js',
    ]);
  });
});

void describe('summarizeLoop', () => {
  void test('counts ended, with a report, hangs and clean runs; min / median / max of the runs that ended', () => {
    const runs = [
      run(1),
      run(2, { reports: { ...run(2).reports, requests: 41, sentAgain: 3 } }),
      run(3),
      run(4, {
        hung: true,
        exitCode: null,
        signal: 'SIGKILL',
        seconds: 900,
        reports: { problems: ['junit.xml missing'] },
      }),
    ];
    const s = summarizeLoop(runs, 5);
    assert.equal(s.runs, 4);
    assert.equal(s.ended, 3);
    assert.equal(s.withReport, 3);
    assert.equal(s.hangs, 1);
    assert.equal(s.clean, 2);
    assert.deepEqual(s.seconds, { min: 31, median: 32, max: 33 });
    assert.equal(s.peakRssMiB, 104);
    assert.equal(s.sentAgain, 3);
    assert.deepEqual(s.requestCounts, [42, 41]);
    assert.equal(s.usualRequests, 42);
    assert.deepEqual(
      s.problems.map((p) => p.index),
      [2, 4],
    );
  });

  void test('the most frequent value; the median of an even count', () => {
    assert.equal(mostFrequent([5, 7, 7, 5, 7]), 7);
    assert.equal(mostFrequent([]), undefined);
    assert.deepEqual(summarizeLoop([run(1), run(3)], 2).seconds, { min: 31, median: 32, max: 33 });
  });
});

void describe('LOOP-RESULTS.md', () => {
  const header = {
    command: 'npm run bench -- --loop 2',
    startedAt: new Date('2026-01-01T00:00:00Z'),
    finishedAt: new Date('2026-01-01T00:01:00Z'),
    loadStart: '1',
    loadEnd: '2',
    machine: '2 × cpu',
    commit: 'abc',
    hangAfterS: 780,
    deadlineMinutes: 10,
  };

  void test("a loop replaces its target's section and keeps the other target's", () => {
    const runs = [run(1), run(2, { reports: { problems: ['junit.xml missing'], counts: 'a | b' } })];
    const first = loopSection({ ...header, target: 'oidc-provider' }, runs, summarizeLoop(runs, 2));
    assert.match(first, /^## oidc-provider: 2 suite runs in a row$/m);
    assert.match(first, /with a whole report .*: 1 of 2/);
    assert.match(first, /\| 2 \|.*\| junit\.xml missing \|$/m);
    const other = loopSection({ ...header, target: 'jmondi-oauth2-server' }, [run(1)], summarizeLoop([run(1)], 1));
    const file = withSection(withSection('', 'oidc-provider', first), 'jmondi-oauth2-server', other);
    const again = loopSection({ ...header, target: 'oidc-provider' }, [run(1)], summarizeLoop([run(1)], 1));
    const replaced = withSection(file, 'oidc-provider', again);
    assert.equal(replaced.match(/^## /gm)?.length, 2);
    assert.match(replaced, /^## oidc-provider: 1 suite runs in a row$/m);
    assert.match(replaced, /^## jmondi-oauth2-server: 1 suite runs in a row$/m);
    assert.equal(replaced.match(/^# The suite in a loop$/gm)?.length, 1);
  });
});

void describe('pins of the independent targets', () => {
  void test("jmondi's: its rule, its deviations and the suite errors of the run with the rule declared", () => {
    const pinned = pinnedVerdicts(root, 'jmondi-oauth2-server');
    assert.equal(pinned.get('GRANT-CC-001'), 'FAIL'); // the rule
    assert.equal(pinned.get('SEC-TLS-005'), 'WARN'); // a deviation
    assert.equal(pinned.get('AUTH-CLI-002'), 'WARN'); // a suite error of the declared run
    assert.equal(pinned.has('LIMIT-AT-LIFETIME-002'), false); // BLOCKED, of the undeclared run
  });

  void test('differences both ways', () => {
    assert.deepEqual(
      pinDifferencesOf(pins, [
        { id: 'A-1', verdict: 'WARN' },
        { id: 'B-2', verdict: 'WARN' },
        { id: 'C-3', verdict: 'PASS' },
      ]),
      { same: false, unexpected: ['A-1 WARN'], missing: ['A-1 FAIL'] },
    );
  });
});

void describe('bench options', () => {
  void test('--loop with its target, deadline and hang bound; they go with --loop only', () => {
    const o = parseBenchArgs(['--loop', '3', '--target', 'jmondi', '--deadline', '1.5'], '/x/RESULTS.md');
    assert.deepEqual(o.loop, { runs: 3, target: 'jmondi-oauth2-server', deadlineMinutes: 1.5, hangAfterS: 270 });
    assert.equal(o.out, '/x/LOOP-RESULTS.md');
    assert.throws(() => parseBenchArgs(['--target', 'oidc-provider'], '/x/RESULTS.md'), /go with --loop/);
    assert.throws(() => parseBenchArgs(['--loop', '2', '--target', 'keycloak'], '/x/RESULTS.md'), /--target must be/);
    assert.throws(() => parseBenchArgs(['--loop', '2', '--suite'], '/x/RESULTS.md'), /--loop runs the suite only/);
  });
});

const proc = (pid: number, ppid: number, session: number, state = 'S', startTime = 1): ProcessInfo => ({
  pid,
  ppid,
  session,
  startTime,
  state,
  rssBytes: 1,
  command: `p${pid}`,
});

void describe('the processes of a run', () => {
  void test('its session, and descendants by parent id that left it', () => {
    const all = [
      proc(1, 0, 1),
      proc(10, 1, 10),
      proc(11, 10, 10),
      proc(12, 1, 10),
      proc(13, 11, 13),
      proc(14, 13, 13),
      proc(20, 1, 20),
    ];
    assert.deepEqual(
      runProcesses(all, 10)
        .map((p) => p.pid)
        .sort((a, b) => a - b),
      [10, 11, 12, 13, 14],
    );
  });

  void test('left behind: seen and still alive with the same start time, or still in the session; never a zombie', () => {
    const seen = new Map(
      [proc(11, 10, 10), proc(12, 10, 20), proc(13, 10, 10), proc(14, 11, 14)].map((p) => [processKey(p), p]),
    );
    const now = [
      proc(11, 1, 10), // seen, orphaned
      proc(12, 1, 20, 'S', 99), // its pid reused by another process
      proc(13, 1, 10, 'Z'),
      proc(14, 1, 14), // seen, had left the session
      proc(15, 1, 10), // never sampled, still in the session
      proc(16, 1, 16),
    ];
    assert.deepEqual(
      leftBehind(seen, now, 10).map((p) => p.pid),
      [11, 14, 15],
    );
  });
});

void describe('watchRun', () => {
  const node = (script: string): string[] => [process.execPath, '-e', script];
  const watch = (name: string, argv: string[], hangAfterS = 120) =>
    watchRun({
      argv,
      env: process.env,
      cwd: temp,
      logFile: join(temp, `${name}.log`),
      hangAfterS,
      evidenceFile: join(temp, `${name}.hang.txt`),
      nativeStacks: false,
      leftBehindGraceMs: 1000,
    });

  void test('a command that ends: its exit code and output, nothing left behind', async () => {
    const w = await watch('ends', node("console.log('done'); process.exitCode = 3"));
    assert.equal(w.exitCode, 3);
    assert.equal(w.hung, false);
    assert.deepEqual(w.leftBehind, []);
    assert.equal(readFileSync(join(temp, 'ends.log'), 'utf8'), 'done\n');
  });

  void test('a process it started and did not stop is left behind', async () => {
    // The grandchild does not hold the command's output, so that the command ends when its leader exits.
    const w = await watch(
      'leaves',
      node(
        "const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); c.unref(); console.log(c.pid)",
      ),
    );
    const pid = Number(readFileSync(join(temp, 'leaves.log'), 'utf8').trim());
    assert.equal(w.exitCode, 0);
    assert.deepEqual(
      w.leftBehind.map((p) => p.pid),
      [pid],
    );
  });

  void test('a command that does not end is a hang: its processes and its last output are kept, it is killed', async () => {
    // Its bound is a few samples long: the sampler's ticks come before the hang timer's, so its memory
    // was read while it ran (a command that ends at once may end before the first reading sees it).
    const w = await watch('hangs', node("console.log('last words'); setInterval(() => {}, 1000)"), 4);
    assert.equal(w.hung, true);
    assert.ok(w.peakRssMiB > 0, 'its memory was sampled while it ran');
    assert.equal(w.signal, 'SIGKILL');
    const evidence = readFileSync(w.evidence!, 'utf8');
    assert.match(evidence, /its command still running/);
    assert.match(evidence, /=== pid \d+ .*setInterval/);
    assert.match(evidence, /last words/);
  });
});
