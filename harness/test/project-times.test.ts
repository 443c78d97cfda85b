// `run --timings`' per-project line: each project's checks, workers, wall span and summed time, read
// from checks.json; checks that did not run count nowhere.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { projectTimes, renderProjectTimes } from '../commands/project-times.ts';

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
const checks = [
  { project: 'conformance', startedAt: at(0), workerIndex: 0, durationMs: 400, requests: 2 },
  { project: 'conformance', startedAt: at(100), workerIndex: 1, durationMs: 900, requests: 3 },
  { project: 'conformance', startedAt: at(500), workerIndex: 0, durationMs: 300, requests: 1 },
  { project: 'time-travel', startedAt: at(1000), workerIndex: 2, durationMs: 200, requests: 5 },
  { project: 'time-travel', durationMs: 0 },
];

void test('per project: checks, distinct workers, first start to last end, summed durations, requests', () => {
  assert.deepEqual(projectTimes(checks), [
    { project: 'conformance', checks: 3, workers: 2, wallMs: 1000, checksMs: 1600, requests: 6 },
    { project: 'time-travel', checks: 1, workers: 1, wallMs: 200, checksMs: 200, requests: 5 },
  ]);
});

void test('one line from a reports directory; none without checks.json', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tc-project-times-'));
  try {
    assert.equal(renderProjectTimes(dir), undefined);
    writeFileSync(join(dir, 'checks.json'), JSON.stringify({ checks }));
    assert.equal(
      renderProjectTimes(dir),
      'projects: conformance 3 checks on 2 workers 1.0 s (checks summed 1.6 s, 6 requests); time-travel 1 checks on 1 workers 0.2 s (checks summed 0.2 s, 5 requests)',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
