// record + audit with real clients: openid-client 6 and simple-oauth2 5 drive the reference server
// through `record`; `audit` judges the recording. Clean: no FAIL, and every requirement is either
// observed (with its count) or UNOBSERVED, never a bare PASS. With a planted server fault (the
// self-validation's fault proxy between the recorder and the server), the audit FAILs exactly the
// fault's requirements and names the exchanges. No secret appears in clear in any file written.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { repoRoot } from '../../../core/catalogue/catalogue.ts';
import { parseJsonc } from '../../../core/profile/jsonc.ts';
import { startReference, type ReferenceServer } from '../../reference/start-reference.ts';
import { faults } from '../../../self-validation/faults/index.ts';
import { startProxy, type RunningProxy } from '../../../self-validation/proxy.ts';
import { auditMain } from '../../commands/audit.command.ts';
import { recordMain } from '../../commands/record.command.ts';
import type { ConformanceReport } from '../../reporter/report.schema.ts';
import { runClientScenario } from './client-scenario.ts';

const keyEnv = 'CONFORMANCE_RECORD_KEY';
const env = { ...process.env, [keyEnv]: 'test-key-0123456789abcdef0123456789abcdef' };
interface ReferenceProfile {
  credentials: {
    clients: Record<string, { clientId: string; clientSecret: { value: string } }>;
    users: Record<string, { username: string; password: { value: string } }>;
  };
  capabilities: Record<string, unknown>;
  expectations: { ccLifetime: number };
}
const reference = parseJsonc(readFileSync(join(repoRoot, 'profiles', 'reference.json'), 'utf8')) as ReferenceProfile;
const clients = reference.credentials.clients;
const users = reference.credentials.users;
const cred = (name: string) => ({ clientId: clients[name]!.clientId, clientSecret: clients[name]!.clientSecret.value });
const creds = {
  usClient: cred('usClient'),
  euClient: cred('euClient'),
  passwordClient: cred('usPasswordClient'),
  user: { username: users.user!.username, password: users.user!.password.value },
};
const ccLifetime = reference.expectations.ccLifetime;

let dir: string;
let server: ReferenceServer;
void before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'token-conformance-audit-'));
  server = await startReference({ logDir: dir });
});
void after(async () => {
  await server?.stop();
  if (!process.env.KEEP_AUDIT_DIR) rmSync(dir, { recursive: true, force: true });
  else console.error('kept', dir);
});

/** A profile of the reference server's data at `origin` (the server itself, or a fault proxy in front of it). */
function profileAt(name: string, origin: string, caFile: string): string {
  const file = join(dir, `${name}.profile.json`);
  writeFileSync(
    file,
    JSON.stringify(
      {
        ...reference,
        $schema: undefined,
        name,
        authUrlUs: origin,
        authUrlEu: origin,
        baseUrl: origin,
        caFile,
        capabilities: {
          ...reference.capabilities,
          clockControlUrl: `${origin}/__test/clock`,
          faultControlUrl: `${origin}/__test/faults`,
        },
      },
      null,
      2,
    ),
  );
  return file;
}

/** Records the client scenario in front of `profile`, then audits it; returns the report and every file written. */
async function recordAndAudit(
  name: string,
  profile: string,
): Promise<{ report: ConformanceReport; log: string[]; files: string[]; exit: number; stdout: string }> {
  const recording = join(dir, `${name}.jsonl`);
  let release!: () => void;
  const stopped = new Promise<void>((r) => {
    release = r;
  });
  let ready!: (line: string) => void;
  const readyLine = new Promise<string>((r) => {
    ready = r;
  });
  const errors: string[] = [];
  const recorder = recordMain(
    ['--target', profile, '--out', recording],
    { out: ready, err: (l) => errors.push(l) },
    env,
    { stop: () => stopped },
  );
  const urls = JSON.parse(
    await Promise.race([
      readyLine,
      recorder.then((code) => {
        throw new Error(`record exited ${code}: ${errors.join('\n')}`);
      }),
    ]),
  ) as { authUrlUs: string; authUrlEu: string; baseUrl: string };
  let log: string[];
  try {
    ({ log } = await runClientScenario(urls, creds, ccLifetime));
  } finally {
    release();
    assert.equal(await recorder, 0, errors.join('\n'));
  }
  const out = join(dir, `${name}-audit`);
  const stdout: string[] = [];
  const exit = await auditMain(
    [recording, '--target', profile, '--out', out],
    { out: (l) => stdout.push(l), err: (l) => stdout.push(l) },
    env,
  );
  const report = JSON.parse(readFileSync(join(out, 'conformance.json'), 'utf8')) as ConformanceReport;
  return {
    report,
    log,
    files: [recording, ...readdirSync(out).map((f) => join(out, f))],
    exit,
    stdout: stdout.join('\n'),
  };
}

const failing = (r: ConformanceReport) =>
  r.requirements
    .filter((x) => x.verdict === 'FAIL')
    .map((x) => x.id)
    .sort();
const secrets = [
  ...Object.values(clients).map((c) => c.clientSecret.value),
  ...Object.values(users).map((u) => u.password.value),
];

function assertNoSecretIn(files: string[], extra: string[] = []): void {
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const s of [...secrets, ...extra])
      assert.ok(!text.includes(s) && !text.includes(encodeURIComponent(s)), `${file} holds a secret in clear`);
    // Every bearer or refresh token the recording holds is a digest.
    for (const m of text.matchAll(/"(?:access_token|refresh_token)"\s*:\s*"([^"]+)"/g))
      assert.match(m[1]!, /^hmac-sha256:/, `${file}: a token in clear`);
    assert.ok(!/eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\./.test(text), `${file} holds a JWT in clear`);
  }
}

void describe('record + audit with openid-client 6 and simple-oauth2 5', () => {
  void test('clean: no FAIL, every requirement observed (with its count) or UNOBSERVED, no secret in clear', async () => {
    const { report, log, files, exit, stdout } = await recordAndAudit(
      'clean',
      profileAt('clean', server.listening.authUrlUs, server.listening.caFile!),
    );
    assert.ok(log.includes('expired cc token: 401'), log.join('\n'));
    assert.ok(
      log.some((l) => l.startsWith('openid-client reuse: refused')),
      log.join('\n'),
    );
    assert.deepEqual(failing(report), [], stdout);
    assert.equal(exit, 0, stdout);
    for (const r of report.requirements) {
      assert.ok(['PASS', 'WARN', 'UNOBSERVED', 'NOT_APPLICABLE'].includes(r.verdict), `${r.id}: ${r.verdict}`);
      if (r.verdict === 'PASS') assert.match(r.reason ?? '', /^observed conformant in \d+ exchanges?$/);
    }
    const observed = report.requirements.filter((r) => r.verdict === 'PASS').map((r) => r.id);
    for (const id of [
      'TOKEN-RESP-001',
      'TOKEN-RESP-005',
      'GRANT-CC-001',
      'GRANT-CC-002',
      'GRANT-PW-001',
      'GRANT-RT-001',
      'STATE-RT-USED-001',
      'STATE-RT-USED-002',
      'STATE-AT-EXP-001',
      'BEARER-001',
      'BEARER-002',
      'BEARER-013',
      'ERR-GW-1201',
      'ERR-GW-1202',
    ]) {
      assert.ok(observed.includes(id), `${id} not observed: ${report.requirements.find((r) => r.id === id)?.verdict}`);
    }
    assert.equal(report.summary.UNOBSERVED! > 0, true);
    assertNoSecretIn(files);
    for (const secret of secrets) assert.ok(!stdout.includes(secret), 'the terminal output holds a secret');
  });

  const planted: { fault: string; fails: string[] }[] = [
    { fault: 'refresh-token-reusable', fails: ['STATE-RT-USED-001', 'STATE-RT-USED-002'] },
    { fault: 'expired-token-grace', fails: ['STATE-AT-EXP-001'] },
    { fault: 'cc-with-refresh-token', fails: ['GRANT-CC-001', 'GRANT-CC-002'] },
    { fault: 'gateway-codes-swapped', fails: ['ERR-GW-1201', 'ERR-GW-1202'] },
  ];
  for (const { fault: id, fails } of planted) {
    void test(`fault ${id}: FAILs exactly ${fails.join(', ')}, naming the exchanges`, async () => {
      const fault = faults.find((f) => f.id === id);
      assert.ok(fault, id);
      for (const f of fails)
        assert.ok(
          [...fault.breaks, ...(fault.collateral?.ids ?? [])].includes(f),
          `${f} is not among the fault's requirements`,
        );
      let proxy: RunningProxy | undefined;
      try {
        proxy = await startProxy({
          upstream: server.listening.authUrlUs,
          upstreamCa: readFileSync(server.listening.caFile!, 'utf8'),
          dir,
          fault: fault.create({
            clients: { usClient: creds.usClient, usPasswordClient: creds.passwordClient },
            users: { user: creds.user },
          }),
        });
        const { report, files, exit, stdout } = await recordAndAudit(id, profileAt(id, proxy.url, proxy.caFile));
        assert.deepEqual(failing(report), fails, stdout);
        assert.equal(exit, 1);
        for (const f of fails) {
          const findings = report.audit!.findings.filter((x) => x.requirement === f);
          assert.ok(
            findings.length > 0 && findings.every((x) => x.exchanges.length > 0),
            `${f}: no finding with exchanges`,
          );
        }
        const sarif = JSON.parse(
          readFileSync(
            files.find((f) => f.endsWith('audit.sarif'))!,
            'utf8',
          ),
        ) as { version: string; runs: { results: { ruleId: string; locations: unknown[] }[] }[] };
        assert.equal(sarif.version, '2.1.0');
        assert.deepEqual(
          [...new Set(sarif.runs[0]!.results.filter((r) => fails.includes(r.ruleId)).map((r) => r.ruleId))].sort(),
          fails,
        );
        assertNoSecretIn(files);
        for (const secret of secrets) assert.ok(!stdout.includes(secret), 'the terminal output holds a secret');
      } finally {
        await proxy?.close();
      }
    });
  }
});
