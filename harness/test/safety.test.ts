// Safe by default against a real environment, on the CLI's side:
// - the terminal summary lists what was held back, with the reason and the requirement ids;
// - profile and CLI mistakes: one line naming the field or flag, exit 2, nothing run, no report.
// The workers' side (capability gate, budgets, plain HTTP, TLS): fixtures/test/safety.test.ts.
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { validateProfile } from '../../core/profile/load-profile.ts';
import { runMain } from '../commands/run.command.ts';
import type { ConformanceReport } from '../reporter/report.schema.ts';
import { renderSummary } from '../reporter/terminal-summary.ts';
import { temporaryDirectory } from './support/temporary-directory.ts';

const staging = { name: 'staging', authUrlUs: 'https://auth.example.com', baseUrl: 'https://api.example.com' };

void describe('the terminal says what was held back and why', () => {
  void test('a compact block: count, reason, requirement ids (the first six, then how many more)', () => {
    const req = (id: string, verdict: string, reason?: string) => ({
      id,
      level: 'MUST',
      area: 'limits',
      source: 's',
      statement: 's',
      verdict,
      ...(reason ? { reason } : {}),
      checks: [],
    });
    const report = {
      reportVersion: 1,
      suiteVersion: '1',
      target: { name: 'staging', local: false, interpretations: {} },
      selection: { level: 'all' },
      requirements: [
        req('LIMIT-RATE-001', 'SKIP', 'profile does not allow load-like checks (capabilities.load.allowed)'),
        req('LIMIT-RATE-002', 'SKIP', 'profile does not allow load-like checks (capabilities.load.allowed)'),
        req('LIMIT-RATE-003', 'SKIP', 'profile does not allow destructive checks (capabilities.destructive.allowed)'),
        ...Array.from({ length: 8 }, (_, i) => req(`CLK-${i}`, 'SKIP', 'target has no clock control')),
        req('GRANT-CC-001', 'PASS'),
      ],
      unknownRequirementIds: [],
      checksWithoutRequirement: [],
      summary: { PASS: 1, FAIL: 0, WARN: 0, SKIP: 11, NOT_APPLICABLE: 0, UNCHECKED: 0, total: 12 },
      checks: { total: 12 },
      verdict: 'PASS',
    } as unknown as ConformanceReport;
    const text = renderSummary(report);
    const block = text.slice(text.indexOf('Held back (SKIP):'));
    assert.match(
      block,
      /\n\s+2 × profile does not allow load-like checks \(capabilities\.load\.allowed\): LIMIT-RATE-001 LIMIT-RATE-002\n/,
    );
    assert.match(
      block,
      /\n\s+1 × profile does not allow destructive checks \(capabilities\.destructive\.allowed\): LIMIT-RATE-003\n/,
    );
    assert.match(block, /\n\s+8 × target has no clock control: CLK-0 CLK-1 CLK-2 CLK-3 CLK-4 CLK-5 … \+2 more\n/);
  });
});

void describe('profile and CLI mistakes: one line naming the field, exit 2, nothing run', () => {
  const dir = temporaryDirectory('tc-safety-');
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
    {
      name: 'a number given as a string',
      raw: { ...staging, capabilities: { load: { allowed: true, maxRequests: 'many' } } },
      expect: /^capabilities\.load\.maxRequests: /,
    },
    { name: 'a boolean given as a string', raw: { ...staging, local: 'yes' }, expect: /^local: / },
    {
      name: 'a negative budget',
      raw: { ...staging, capabilities: { load: { allowed: true, maxRequestsPerSecond: -5 } } },
      expect: /^capabilities\.load\.maxRequestsPerSecond: /,
    },
    {
      name: 'a client without its secret',
      raw: { ...staging, credentials: { clients: { usClient: { clientId: 'abc' } } } },
      expect: /^credentials\.clients\.usClient\.clientSecret: required$/,
    },
    {
      name: 'a secret as a bare string (the value is not echoed)',
      raw: {
        ...staging,
        credentials: { clients: { usClient: { clientId: 'abc', clientSecret: 'bare-secret-value' } } },
      },
      expect: /^credentials\.clients\.usClient\.clientSecret: must be \{"env": "VARIABLE_NAME"\}/,
    },
    {
      name: 'a user without a password',
      raw: { ...staging, credentials: { users: { user: { username: 't\\u' } } } },
      expect: /^credentials\.users\.user\.password: required$/,
    },
    {
      name: 'an unknown key in a budget',
      raw: { ...staging, capabilities: { load: { allowed: true, maxRPS: 5 } } },
      expect: /^capabilities\.load\.maxRPS: unknown key/,
    },
    {
      name: 'plain HTTP clock control on a non-local target',
      raw: { ...staging, capabilities: { clockControlUrl: 'http://ctl.example.com/clock' } },
      expect: /^capabilities\.clockControlUrl: plain HTTP/,
    },
  ]) {
    void test(`profile: ${c.name}`, () => {
      const found = problems(c.raw);
      assert.ok(
        found.some((p) => c.expect.test(p)),
        `expected ${c.expect}, got:\n${found.join('\n')}`,
      );
      for (const p of found)
        assert.ok(!p.includes('\n') && !p.includes('bare-secret-value'), 'one line per problem, no secret');
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
    writeFileSync(
      missing,
      JSON.stringify({
        ...staging,
        credentials: {
          clients: { usClient: { clientId: 'abc', clientSecret: { env: 'TC_SAFETY_TEST_UNSET_SECRET' } } },
        },
      }),
    );
    const a = capture();
    assert.equal(await runMain(['--target', missing, '--reports', reports], a.io), 2);
    assert.ok(
      a.lines.some((l) =>
        /credentials\.clients\.usClient\.clientSecret: environment variable TC_SAFETY_TEST_UNSET_SECRET is not set/.test(
          l,
        ),
      ),
      a.lines.join('\n'),
    );
    assert.ok(a.lines.some((l) => /nothing was run/.test(l)));

    const closed = join(dir, 'closed.json');
    writeFileSync(
      closed,
      JSON.stringify({ name: 'closed', authUrlUs: 'https://127.0.0.1:9', baseUrl: 'https://127.0.0.1:9' }),
    );
    const b = capture();
    assert.equal(await runMain(['--target', closed, '--reports', reports], b.io), 2);
    assert.ok(
      b.lines.some((l) => /^token-conformance run: authUrlUs https:\/\/127\.0\.0\.1:9 is not reachable: /.test(l)),
      b.lines.join('\n'),
    );
    assert.ok(b.lines.some((l) => /nothing was run/.test(l)));
    assert.equal(existsSync(reports), false, 'no partial run: no report directory');
  });
});
