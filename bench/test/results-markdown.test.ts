// RESULTS.md never shows a speed for a row with errors, and a goal that needs such a row is
// "not measured", never met; rounds combine into medians.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LoadResult } from '../load/load-generator.ts';
import { combineRounds, median } from '../load/rounds.ts';
import { goalLines, renderResults, type BenchRun, type ThroughputRow } from '../results-markdown.ts';

const load = (throughput: number, errors = 0, p99 = 5): LoadResult => ({
  requests: 1000,
  errors,
  errorSamples: errors > 0 ? ['HTTP 500 (expected 200)'] : [],
  elapsedMs: 1000,
  throughput,
  latency: { p50: 1, p99, max: 9 },
});
const row = (id: string, throughput: number, errors = 0, p99s: number[] = [5]): ThroughputRow => ({
  id,
  label: id,
  kind: 'reference',
  result: combineRounds(p99s.map((p99) => ({ load: load(throughput, errors, p99), serverCpuSeconds: 1 }))),
});
const run = (rows: ThroughputRow[]): BenchRun => ({
  startedAt: new Date(0),
  finishedAt: new Date(1000),
  command: 'npm run bench',
  machine: { cpuModel: 'cpu', cpuCount: 2, node: 'v20', niceness: 0 },
  loadStart: '0',
  loadEnd: '0',
  pinned: true,
  durationS: 1,
  rounds: 1,
  warmupS: 0,
  connections: 1,
  versions: {},
  rows,
  timings: [],
});

void describe('RESULTS.md', () => {
  void test('a row with errors shows its errors and leaves its goals unmeasured', () => {
    const r = run([
      row('ref-cc-us', 9000, 3),
      row('ceiling-jose-sign', 5000),
      row('peer-oidc-provider', 1000),
      row('peer-oauth2-server', 2000),
    ]);
    const text = renderResults(r);
    assert.match(text, /\| ref-cc-us \| \*\*3 errors\*\* of 1,000 \|/);
    assert.doesNotMatch(text, /9,000/);
    const issuance = goalLines(r).filter((g) => g.goal.startsWith('token issuance'));
    assert.equal(issuance.length, 3);
    for (const goal of issuance) assert.equal(goal.met, undefined, goal.goal);
  });

  void test('ratios against the best peer and the ceiling', () => {
    const lines = goalLines(
      run([
        row('ref-cc-us', 4600),
        row('ceiling-jose-sign', 5000),
        row('peer-oidc-provider', 1000),
        row('peer-oauth2-server', 2500),
      ]),
    );
    const peer = lines.find((g) => g.goal.includes('best peer'))!;
    assert.equal(peer.met, false);
    assert.match(peer.measured, /^1\.84× .*peer-oauth2-server/);
    const ceiling = lines.find((g) => g.goal.includes('signing ceiling'))!;
    assert.equal(ceiling.met, true);
    assert.match(ceiling.measured, /^0\.92×/);
  });

  void test("the tail: p99 of client_credentials over the signing ceiling's, both under the tail rows' connections", () => {
    const tail = (ours: number[], ceiling: number[]) =>
      goalLines(run([row('ref-cc-us-tail', 4000, 0, ours), row('ceiling-jose-sign-tail', 5000, 0, ceiling)])).find(
        (g) => g.goal.startsWith('client_credentials p99'),
      )!;
    const missed = tail([40, 90, 30], [10, 12, 11]);
    assert.equal(missed.met, false);
    assert.match(
      missed.measured,
      /^3\.64× \(p99 40\.00 vs 11\.00 ms;.*rounds' p99 40\.0, 90\.0, 30\.0 vs 10\.0, 12\.0, 11\.0 ms\)$/,
    );
    assert.equal(tail([20, 25, 30], [10, 12, 11]).met, true);
    const issuance = goalLines(run([row('ref-cc-us-tail', 4000), row('ceiling-jose-sign-tail', 5000)])).find((g) =>
      g.goal.includes('signing ceiling, 50 connections'),
    )!;
    assert.equal(issuance.met, false);
    assert.match(issuance.measured, /^0\.80×/);
    const withErrors = goalLines(run([row('ref-cc-us-tail', 4000, 2, [20]), row('ceiling-jose-sign-tail', 5000)])).find(
      (g) => g.goal.startsWith('client_credentials p99'),
    )!;
    assert.equal(withErrors.met, undefined);
  });

  void test('rounds: medians of throughput and latency, CPU per answer over all rounds', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    const combined = combineRounds([
      { load: load(100), serverCpuSeconds: 0.5 },
      { load: load(300, 2), serverCpuSeconds: 0.5 },
      { load: load(200), serverCpuSeconds: 1 },
    ]);
    assert.equal(combined.throughput, 200);
    assert.equal(combined.errors, 2);
    assert.equal(combined.requests, 3000);
    assert.equal(Math.round(combined.cpuMicrosPerRequest), Math.round((2 * 1e6) / 3000));
    assert.deepEqual(combined.roundThroughputs, [100, 300, 200]);
  });
});
