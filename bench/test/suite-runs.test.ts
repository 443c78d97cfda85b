// The distant run's figures: the longest sequential chain from two runs' check durations, and the
// profile moved onto the proxy's ports.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { TargetProfile } from '../../core/profile/profile.schema.ts';
import {
  phaseLine,
  profileHasClockSandboxes,
  sequentialChain,
  throughProxy,
  type CheckCost,
} from '../harness/suite-runs.ts';

const check = (key: string, durationMs: number, requests: number, status = 'passed'): CheckCost => ({
  key,
  project: 'conformance',
  durationMs,
  requests,
  status,
});

void describe('sequentialChain', () => {
  void test('extra time over 2 × delay per round trip; checks only in one run are not compared', () => {
    const local = [check('a', 100, 10), check('b', 50, 300), check('c', 10, 3)];
    const distant = [
      check('a', 100 + 40 * 10, 10),
      check('b', 50 + 40 * 4, 300),
      check('c', 10 + 40 * 3, 3),
      check('only-distant', 9000, 1),
    ];
    const chain = sequentialChain(local, distant, 20);
    assert.deepEqual(chain, { check: 'a', roundTrips: 10, requests: 10, mostRequests: { check: 'b', requests: 300 } });
  });

  void test('a check faster at a distance counts no round trips; no common check, no chain', () => {
    assert.equal(sequentialChain([check('a', 500, 1)], [check('a', 100, 1)], 20)?.roundTrips, 0);
    assert.equal(sequentialChain([check('a', 1, 1)], [check('b', 1, 1)], 20), undefined);
  });
});

void describe('throughProxy', () => {
  void test('every address of the proxied port moves to the proxy; other ports stay', () => {
    const profile = {
      authUrlUs: 'https://127.0.0.1:8443',
      authUrlEu: 'https://127.0.0.1:8443',
      baseUrl: 'https://127.0.0.1:8443/',
      plainHttpUrl: 'http://127.0.0.1:8443',
      capabilities: {
        clockControlUrl: 'https://127.0.0.1:8443/__test/clock',
        faultControlUrl: 'https://127.0.0.1:9000/__test/faults',
      },
    } as unknown as TargetProfile;
    const moved = throughProxy(profile, new Map([[8443, 40001]]));
    assert.equal(moved.authUrlUs, 'https://127.0.0.1:40001');
    assert.equal(moved.authUrlEu, 'https://127.0.0.1:40001');
    assert.equal(moved.baseUrl, 'https://127.0.0.1:40001/');
    assert.equal(moved.plainHttpUrl, 'http://127.0.0.1:40001');
    assert.equal(moved.capabilities.clockControlUrl, 'https://127.0.0.1:40001/__test/clock');
    assert.equal(moved.capabilities.faultControlUrl, 'https://127.0.0.1:9000/__test/faults');
  });
});

void describe('phaseLine', () => {
  void test("the phases `run --timings` printed, from the run's log; none when it printed none", () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-phase-'));
    try {
      const log = join(dir, 'run.log');
      writeFileSync(
        log,
        'token-conformance run: reference server listening at https://127.0.0.1:1\nCONFORMANCE PASS\ntoken-conformance run: phases: profile 0.2 s, checks 11.0 s (total 14.8 s)\n',
      );
      assert.equal(phaseLine(log), 'phases: profile 0.2 s, checks 11.0 s (total 14.8 s)');
      writeFileSync(log, 'CONFORMANCE PASS\n');
      assert.equal(phaseLine(log), undefined);
      assert.equal(phaseLine(join(dir, 'missing.log')), undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

void describe('profileHasClockSandboxes', () => {
  void test("this version's profile can declare clock sandboxes; a version without them (no such schema key) runs the one-clock row alone", () => {
    assert.equal(profileHasClockSandboxes(join(import.meta.dirname, '..', '..')), true);
    const dir = mkdtempSync(join(tmpdir(), 'tc-old-version-'));
    try {
      assert.equal(profileHasClockSandboxes(dir), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
