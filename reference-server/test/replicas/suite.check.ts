// The whole conformance suite against three replicas on one PostgreSQL behind HAProxy: a profile
// like profiles/reference.json (as `run --start-reference` builds it) pointing at the balancer.
// The replicas share the test clock, the fault switch and the HTTPS certificate through the
// database. The gateway's rate limits are counted per replica (README, "Running it for a team"),
// and HAProxy (mode tcp) deals connections, not requests: a client's keep-alive connection stays
// on one replica, so the deployment enforces no one threshold (seen in CI: the quota check met the
// replica's spike limit, 000-2001 for 000-2000). The profile therefore declares no rate limits
// here, and the rate-limit requirements read SKIP in this run (verified against one server by
// the conformance stage); every other requirement must PASS.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { killOnExit, removeOnExit } from '../support/exit-reaper.ts';
import { haproxyAvailable, startDeployment } from './support/deployment.ts';

const root = join(import.meta.dirname, '..', '..', '..');
const REPLICAS = 3;

function withoutRateLimit(capabilities: Profile['capabilities']): Profile['capabilities'] {
  const rest = { ...capabilities };
  delete rest.rateLimit;
  return rest;
}

interface Profile {
  capabilities: {
    rateLimit?: { spikePerSecond: number; quotaPerWindow: number; windowSeconds: number };
    clockControlUrl?: string;
    faultControlUrl?: string;
  };
  [key: string]: unknown;
}

void test(
  'the whole conformance suite passes against three replicas behind HAProxy',
  { skip: !haproxyAvailable() && 'no HAProxy (apt-get install haproxy)' },
  async (t) => {
    const profile = JSON.parse(readFileSync(join(root, 'profiles', 'reference.json'), 'utf8')) as Profile;
    const d = await startDeployment({ replicas: REPLICAS, https: true, serveArgs: ['--test-controls'] });
    const dir = mkdtempSync(join(tmpdir(), 'tc-replicas-suite-'));
    const removeDir = removeOnExit(dir);
    try {
      const target = {
        ...profile,
        name: 'reference-replicas',
        authUrlUs: d.baseUrl,
        authUrlEu: d.baseUrl,
        baseUrl: d.baseUrl,
        plainHttpUrl: d.baseUrl.replace(/^https:/, 'http:'),
        ...(d.caFile !== undefined && { caFile: d.caFile }),
        capabilities: {
          ...withoutRateLimit(profile.capabilities),
          clockControlUrl: `${d.baseUrl}/__test/clock`,
          faultControlUrl: `${d.baseUrl}/__test/faults`,
        },
      };
      delete (target as Record<string, unknown>).$schema;
      const file = join(dir, 'profile.json');
      writeFileSync(file, JSON.stringify(target, null, 2));
      const reports = join(dir, 'reports');
      const code = await new Promise<number | null>((resolve) => {
        const child = spawn(
          process.execPath,
          [join(root, 'bin', 'token-conformance.js'), 'run', '--target', file, '--reports', reports],
          { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
        );
        killOnExit(child);
        let out = '';
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
        });
        child.on('exit', (c) => {
          t.diagnostic(
            out
              .split('\n')
              .filter((l) => /CONFORMANCE|FAIL |WARN |BLOCKED|SKIP/.test(l))
              .join('\n'),
          );
          resolve(c);
        });
      });
      const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as {
        summary: Record<string, number>;
        requirements: { id: string; verdict: string }[];
      };
      t.diagnostic(`summary: ${JSON.stringify(report.summary)}`);
      assert.equal(code, 0, 'the run passes (exit 0)');
      const notPass = report.requirements
        .filter((r) => r.verdict !== 'PASS' && r.verdict !== 'NOT_APPLICABLE')
        .map((r) => `${r.id} ${r.verdict}`)
        .sort();
      // Only the rate limits (no declared thresholds here), BEARER-015 (no production server) and
      // STATE-RT-USED-003 (no restart control, no state file: reference-server/test/reliability/restart.test.ts
      // restarts a server on PostgreSQL instead) are not verified.
      assert.deepEqual(notPass, [
        'BEARER-015 SKIP',
        'ERR-GW-2000 SKIP',
        'ERR-GW-2001 SKIP',
        'LIMIT-RATE-001 SKIP',
        'LIMIT-RATE-002 SKIP',
        'LIMIT-RATE-004 SKIP',
        'STATE-RT-USED-003 SKIP',
      ]);
    } finally {
      removeDir();
      await d.stop();
    }
  },
);
