// Safe by default against a real environment:
// - a target not marked local gets no load-like or destructive check unless its profile allows it
//   (the capability gate SKIPs them with the reason), and a check that sends bursts stays within
//   the profile's budgets (requests per second, total requests);
// - the terminal summary lists what was held back, with the reason and the requirement ids;
// - credentials never go over plain HTTP to a non-local target (refused before any byte is sent);
//   TLS is always verified (a custom CA file is the way), nowhere turned off;
// - profile and CLI mistakes: one line naming the field or flag, exit 2, nothing run, no report.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Transcript } from '../../fixtures/http/exchange.ts';
import { createAgent, HttpSender, PlainHttpRefusedError } from '../../fixtures/http/sender.ts';
import { Target } from '../../fixtures/target.ts';
import { createCertificatePems } from '../../reference-server/src/crypto/tls.ts';
import { LoadBudget, type BudgetClock } from '../../fixtures/support/limits/load-budget.ts';
import { loadCatalogue, repoRoot } from '../../core/catalogue/catalogue.ts';
import { runMain } from '../commands/run.command.ts';
import { validateProfile } from '../../core/profile/load-profile.ts';
import { Redactor } from '../../core/redaction/redact.ts';
import type { ConformanceReport } from '../reporter/report.schema.ts';
import { renderSummary } from '../reporter/terminal-summary.ts';

const staging = { name: 'staging', authUrlUs: 'https://auth.example.com', baseUrl: 'https://api.example.com' };

void describe('a target not marked local: no load-like or destructive checks unless allowed', () => {
  const gated = loadCatalogue().filter((r) => r.needs?.some((n) => n === 'load' || n === 'destructive'));

  void test('by default every load-like and destructive requirement is held back, with the field to set', () => {
    const target = new Target(validateProfile(staging, 'p.json', { env: {} }).profile, {});
    assert.ok(gated.length >= 5, `setup: the catalogue has gated requirements (${gated.map((r) => r.id).join(' ')})`);
    assert.deepEqual(target.gap('load'), { verdict: 'SKIP', reason: 'profile does not allow load-like checks (capabilities.load.allowed)' });
    assert.deepEqual(target.gap('destructive'), { verdict: 'SKIP', reason: 'profile does not allow destructive checks (capabilities.destructive.allowed)' });
    for (const r of gated) {
      const gaps = (r.needs ?? []).map((n) => target.gap(n as Parameters<Target['gap']>[0])).filter((g) => g !== undefined);
      assert.ok(gaps.some((g) => g.verdict === 'SKIP' && /capabilities\.(load|destructive)\.allowed/.test(g.reason)), `${r.id} is held back`);
    }
    const { load } = target.profile.capabilities;
    assert.deepEqual(load, { allowed: false, maxRequestsPerSecond: 10, maxRequests: 200 }, 'modest budgets by default');
  });

  void test('allowed by the profile: the gate opens', () => {
    const target = new Target(validateProfile({ ...staging, capabilities: { load: { allowed: true, maxRequestsPerSecond: 5, maxRequests: 50 }, destructive: { allowed: true } } }, 'p.json', { env: {} }).profile, {});
    assert.equal(target.gap('load'), undefined);
    assert.equal(target.gap('destructive'), undefined);
  });

  void test('a burst never exceeds the budget: at most maxRequestsPerSecond starts in any second, never more than maxRequests', async () => {
    // The budget's own time, as a busy machine gives it: every sleep ends late (by 0 to 250 ms),
    // never early. Timestamps taken by the test in real time would lag the budget's by the load
    // (they once failed at a load of ~8); on this clock, the starts are exactly the budget's.
    const lateness = [0, 37, 250, 3, 120];
    let now = 0;
    let sleeps = 0;
    const busyClock: BudgetClock = {
      now: () => now,
      sleep: (ms) => {
        const wake = now + ms + lateness[sleeps++ % lateness.length]!;
        return new Promise((resolve) => setImmediate(() => { now = Math.max(now, wake); resolve(); }));
      },
    };
    const budget = new LoadBudget(7, 4, busyClock);
    const starts: number[] = [];
    await budget.burst(6, () => { starts.push(now); return Promise.resolve(); });
    assert.equal(starts.length, 6);
    assert.ok(sleeps > 0, 'setup: the burst had to wait');
    for (const s of starts) assert.ok(starts.filter((x) => x >= s && x - s < 1000).length <= 4, `at most 4 starts within any second: ${starts.join(' ')}`);
    const sorted = [...starts].sort((a, b) => a - b);
    assert.ok(sorted[4]! - sorted[0]! >= 1000, `the fifth start waited for the first one's second to pass: ${starts.join(' ')}`);
    await budget.slot();
    await assert.rejects(budget.slot(), /exceeded its load budget of 7 requests \(capabilities\.load\.maxRequests\)/);
  });

  void test('in real time the fifth start of a burst comes a second or more after the burst began', async () => {
    // A lower bound only (the budget's first stamp is never before `began`), so load cannot break it.
    const budget = new LoadBudget(5, 4);
    const began = performance.now();
    const starts: number[] = [];
    await budget.burst(5, () => { starts.push(performance.now()); return Promise.resolve(); });
    assert.ok(Math.max(...starts) - began >= 1000, `the fifth start after ${Math.round(Math.max(...starts) - began)} ms`);
  });
});

void describe('the terminal says what was held back and why', () => {
  void test('a compact block: count, reason, requirement ids (the first six, then how many more)', () => {
    const req = (id: string, verdict: string, reason?: string) => ({ id, level: 'MUST', area: 'limits', source: 's', statement: 's', verdict, ...(reason ? { reason } : {}), checks: [] });
    const report = {
      reportVersion: 1, suiteVersion: '1', target: { name: 'staging', local: false, interpretations: {} },
      selection: { level: 'all' },
      requirements: [
        req('LIMIT-RATE-001', 'SKIP', 'profile does not allow load-like checks (capabilities.load.allowed)'),
        req('LIMIT-RATE-002', 'SKIP', 'profile does not allow load-like checks (capabilities.load.allowed)'),
        req('LIMIT-RATE-003', 'SKIP', 'profile does not allow destructive checks (capabilities.destructive.allowed)'),
        ...Array.from({ length: 8 }, (_, i) => req(`CLK-${i}`, 'SKIP', 'target has no clock control')),
        req('GRANT-CC-001', 'PASS'),
      ],
      unknownRequirementIds: [], checksWithoutRequirement: [],
      summary: { PASS: 1, FAIL: 0, WARN: 0, SKIP: 11, NOT_APPLICABLE: 0, UNCHECKED: 0, total: 12 },
      checks: { total: 12 }, verdict: 'PASS',
    } as unknown as ConformanceReport;
    const text = renderSummary(report);
    const block = text.slice(text.indexOf('Held back (SKIP):'));
    assert.match(block, /\n\s+2 × profile does not allow load-like checks \(capabilities\.load\.allowed\): LIMIT-RATE-001 LIMIT-RATE-002\n/);
    assert.match(block, /\n\s+1 × profile does not allow destructive checks \(capabilities\.destructive\.allowed\): LIMIT-RATE-003\n/);
    assert.match(block, /\n\s+8 × target has no clock control: CLK-0 CLK-1 CLK-2 CLK-3 CLK-4 CLK-5 … \+2 more\n/);
  });
});

void describe('credentials never over plain HTTP to a non-local target; TLS always verified', () => {
  let plain: Server;
  let plainUrl: string;
  let connections = 0;
  before(async () => {
    plain = createHttpServer((_req, res) => res.end('{}'));
    plain.on('connection', () => { connections += 1; });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => plain.close(() => resolve())));

  const sender = (local: boolean, secrets: string[]) => {
    const redactor = new Redactor(secrets);
    return new HttpSender(createAgent(undefined), new Transcript(redactor), redactor, local);
  };

  void test('refused before a byte is sent: a secret in the body, the URL or a header', async () => {
    const secret = 'staging-client-secret-42';
    const s = sender(false, [secret]);
    connections = 0;
    for (const options of [
      { method: 'POST', url: `${plainUrl}/token`, body: `client_secret=${secret}` },
      { method: 'GET', url: `${plainUrl}/token?client_secret=${encodeURIComponent(secret)}` },
      { method: 'GET', url: `${plainUrl}/x`, headers: [['authorization', `Basic ${Buffer.from(`id:${secret}`).toString('base64')}`]] as [string, string][] },
    ]) {
      await assert.rejects(s.send(options), (e: unknown) => e instanceof PlainHttpRefusedError && /plain HTTP .*not marked local/.test(e.message) && !e.message.includes(secret));
    }
    assert.equal(connections, 0, 'no connection was opened');
  });

  void test('plain HTTP without a credential is allowed (how SEC-TLS-002 probes); a local target may use plain HTTP', async () => {
    assert.equal((await sender(false, ['staging-client-secret-42']).send({ method: 'GET', url: `${plainUrl}/probe` })).status, 200);
    assert.equal((await sender(true, ['local-demo-secret-1']).send({ method: 'POST', url: `${plainUrl}/token`, body: 'client_secret=local-demo-secret-1' })).status, 200);
  });

  void test('TLS verification: a certificate the agent does not trust is refused; the profile\'s CA file is the way', async () => {
    const pems = await createCertificatePems('127.0.0.1', new Date(), 1);
    const tls = createHttpsServer({ key: pems.key, cert: pems.cert }, (_req, res) => res.end('{}'));
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(tls.address() as AddressInfo).port}/`;
    try {
      const redactor = new Redactor();
      const untrusting = new HttpSender(createAgent(undefined, {}, 3000), new Transcript(redactor), redactor, false);
      await assert.rejects(untrusting.send({ method: 'GET', url }), /SELF_SIGNED|self[- ]signed|certificate/i);
      const trusting = new HttpSender(createAgent(pems.cert, {}, 3000), new Transcript(redactor), redactor, false);
      assert.equal((await trusting.send({ method: 'GET', url })).status, 200);
    } finally {
      await new Promise<void>((resolve) => { tls.closeAllConnections(); tls.close(() => resolve()); });
    }
  });

  void test('nothing in the suite turns TLS verification off', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir)) {
        const full = join(dir, entry);
        if (entry === 'node_modules') continue;
        if (statSync(full).isDirectory()) walk(full);
        else if (/\.(ts|js|json|jsonc)$/.test(entry) && !full.endsWith('safety.test.ts')) {
          // Code only: comments may name the forbidden setting ("never rejectUnauthorized:false").
          const text = readFileSync(full, 'utf8').split('\n').filter((l) => !/^\s*(\/\/|\*|\/\*)/.test(l)).join('\n');
          if (/rejectUnauthorized\s*:\s*false|NODE_TLS_REJECT_UNAUTHORIZED|checkServerIdentity\s*:\s*\(\)\s*=>\s*undefined/.test(text)) offenders.push(relative(repoRoot, full));
        }
      }
    };
    for (const dir of ['core', 'harness', 'fixtures', 'specs', 'playwright.config.ts', 'profiles']) {
      const full = join(repoRoot, dir);
      if (statSync(full).isDirectory()) walk(full);
      else if (/rejectUnauthorized\s*:\s*false|NODE_TLS_REJECT_UNAUTHORIZED/.test(readFileSync(full, 'utf8'))) offenders.push(dir);
    }
    assert.deepEqual(offenders, []);
  });
});

void describe('profile and CLI mistakes: one line naming the field, exit 2, nothing run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tc-safety-'));
  const capture = () => {
    const lines: string[] = [];
    return { lines, io: { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) } };
  };
  const problems = (raw: unknown, env: NodeJS.ProcessEnv = {}): string[] => {
    try {
      validateProfile(raw, 'p.json', { env });
      return [];
    } catch (error) {
      return (error as { problems: string[] }).problems;
    }
  };

  for (const c of [
    { name: 'a number given as a string', raw: { ...staging, capabilities: { load: { allowed: true, maxRequests: 'many' } } }, expect: /^capabilities\.load\.maxRequests: / },
    { name: 'a boolean given as a string', raw: { ...staging, local: 'yes' }, expect: /^local: / },
    { name: 'a negative budget', raw: { ...staging, capabilities: { load: { allowed: true, maxRequestsPerSecond: -5 } } }, expect: /^capabilities\.load\.maxRequestsPerSecond: / },
    { name: 'a client without its secret', raw: { ...staging, credentials: { clients: { usClient: { clientId: 'abc' } } } }, expect: /^credentials\.clients\.usClient\.clientSecret: required$/ },
    { name: 'a secret as a bare string (the value is not echoed)', raw: { ...staging, credentials: { clients: { usClient: { clientId: 'abc', clientSecret: 'bare-secret-value' } } } }, expect: /^credentials\.clients\.usClient\.clientSecret: must be \{"env": "VARIABLE_NAME"\}/ },
    { name: 'a user without a password', raw: { ...staging, credentials: { users: { user: { username: 't\\u' } } } }, expect: /^credentials\.users\.user\.password: required$/ },
    { name: 'an unknown key in a budget', raw: { ...staging, capabilities: { load: { allowed: true, maxRPS: 5 } } }, expect: /^capabilities\.load\.maxRPS: unknown key/ },
    { name: 'plain HTTP clock control on a non-local target', raw: { ...staging, capabilities: { clockControlUrl: 'http://ctl.example.com/clock' } }, expect: /^capabilities\.clockControlUrl: plain HTTP/ },
  ]) {
    void test(`profile: ${c.name}`, () => {
      const found = problems(c.raw);
      assert.ok(found.some((p) => c.expect.test(p)), `expected ${c.expect}, got:\n${found.join('\n')}`);
      for (const p of found) assert.ok(!p.includes('\n') && !p.includes('bare-secret-value'), 'one line per problem, no secret');
    });
  }

  void test('CLI: a bad --workers, --grep, a positional argument, no --target: exit 2, the flag named', async () => {
    for (const [args, expect] of [
      [['--target', 'x.json', '--workers', '0'], /--workers must be a positive integer/],
      [['--target', 'x.json', '--grep', '(unclosed'], /--grep is not a valid regular expression/],
      [['--target', 'x.json', 'extra'], /extra/],
      [['--level', 'all'], /--target FILE is required/],
      [['--target', 'x.json', '--seed', 'abc'], /--seed must be an integer/],
    ] as const) {
      const { lines, io } = capture();
      assert.equal(await runMain([...args], io), 2, args.join(' '));
      assert.match(lines[0] ?? '', expect, args.join(' '));
    }
  });

  void test('a missing secret variable and an unreachable HTTPS address: exit 2, named, no report written', async () => {
    const reports = join(dir, 'reports');
    const missing = join(dir, 'missing.json');
    writeFileSync(missing, JSON.stringify({ ...staging, credentials: { clients: { usClient: { clientId: 'abc', clientSecret: { env: 'TC_SAFETY_TEST_UNSET_SECRET' } } } } }));
    const a = capture();
    assert.equal(await runMain(['--target', missing, '--reports', reports], a.io), 2);
    assert.ok(a.lines.some((l) => /credentials\.clients\.usClient\.clientSecret: environment variable TC_SAFETY_TEST_UNSET_SECRET is not set/.test(l)), a.lines.join('\n'));
    assert.ok(a.lines.some((l) => /nothing was run/.test(l)));

    const closed = join(dir, 'closed.json');
    writeFileSync(closed, JSON.stringify({ name: 'closed', authUrlUs: 'https://127.0.0.1:9', baseUrl: 'https://127.0.0.1:9' }));
    const b = capture();
    assert.equal(await runMain(['--target', closed, '--reports', reports], b.io), 2);
    assert.ok(b.lines.some((l) => /^token-conformance run: authUrlUs https:\/\/127\.0\.0\.1:9 is not reachable: /.test(l)), b.lines.join('\n'));
    assert.ok(b.lines.some((l) => /nothing was run/.test(l)));
    assert.equal(existsSync(reports), false, 'no partial run: no report directory');
  });
});
