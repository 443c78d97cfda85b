// `--start-reference`: the production reference server (the other environment's access token,
// BEARER-015), the plain-HTTP address (SEC-TLS-002), and the query/body samples of the profile's
// routes (ERR-GW-2111/2112/2121/2122). The worker's side of the hand-over (the token as an
// environment variable, redacted; the Target's SKIPs): fixtures/test/target-handoff.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadProfile, ProfileError, validateProfile } from '../../core/profile/load-profile.ts';
import {
  applyListening,
  plainHttpOrigin,
  productionClientId,
  seedClientSecret,
  serveArgs,
  startReference,
  startReferenceServers,
  referenceStartSafetyNetMs,
  type ListeningLine,
} from '../reference/start-reference.ts';
import { repoRoot } from '../../core/catalogue/catalogue.ts';

const referenceProfile = join(repoRoot, 'profiles', 'reference.json');
const listening: ListeningLine = {
  event: 'listening',
  authUrlUs: 'https://127.0.0.1:41234',
  authUrlEu: 'https://127.0.0.1:41234',
  baseUrl: 'https://127.0.0.1:41234',
  testControls: true,
};

void describe('--start-reference: plain HTTP (SEC-TLS-002)', () => {
  void test("plainHttpUrl is the server's own origin with the http: scheme", () => {
    assert.equal(plainHttpOrigin('https://127.0.0.1:41234'), 'http://127.0.0.1:41234');
    assert.equal(plainHttpOrigin('https://[::1]:8443/some/path'), 'http://[::1]:8443');
    const profile = applyListening(loadProfile(referenceProfile).profile, listening);
    assert.equal(
      profile.plainHttpUrl,
      'http://127.0.0.1:41234',
      'SEC-TLS-002 is not SKIPPED (fixtures/test/target-handoff.test.ts)',
    );
  });
});

void describe("--start-reference: the other environment's token (BEARER-015)", () => {
  void test('the production server is started without test controls, with the seed', () => {
    const args = serveArgs({ environment: 'production', seed: '/x/seed.json' });
    assert.deepEqual(args, [
      'serve',
      '--port',
      '0',
      '--data',
      ':memory:',
      '--env',
      'production',
      '--seed',
      '/x/seed.json',
    ]);
    assert.ok(!args.includes('--test-controls'));
    assert.ok(serveArgs({}).includes('--test-controls'), 'the sandbox server has its test controls');
  });

  void test("the production client's secret comes from the seed", () => {
    const seed = JSON.parse(readFileSync(join(repoRoot, 'fixtures', 'reference-seed.json'), 'utf8')) as {
      clients: { clientId: string; clientSecret: string; environment: string }[];
    };
    const client = seed.clients.find((c) => c.clientId === productionClientId)!;
    assert.equal(client.environment, 'production');
    assert.equal(seedClientSecret(productionClientId), client.clientSecret);
  });

  void test('a declared otherEnvironment token is a secret of the profile: resolved from the environment, refused as a literal when not local', () => {
    const base = {
      name: 'x',
      authUrlUs: 'https://a.example.com',
      credentials: { tokens: { otherEnvironment: { env: 'PROD_TOKEN' } } },
    };
    const loaded = validateProfile(base, 'p.json', { env: { PROD_TOKEN: 'prod-token-value' } });
    assert.deepEqual(
      loaded.secrets.map((s) => s.path),
      ['credentials.tokens.otherEnvironment'],
    );
    assert.throws(
      () => validateProfile(base, 'p.json', { env: {} }),
      (e: unknown) =>
        e instanceof ProfileError && /otherEnvironment: environment variable PROD_TOKEN is not set/.test(e.message),
    );
    assert.throws(
      () =>
        validateProfile({ ...base, credentials: { tokens: { otherEnvironment: { value: 'x' } } } }, 'p.json', {
          env: {},
        }),
      ProfileError,
    );
  });

  void test(
    'both servers start concurrently; the production one issues a token of the other environment',
    // A safety net: the starts are awaited on their listening lines.
    { timeout: 600_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'tc-test-'));
      const servers = await startReferenceServers({ logDir: dir, profile: loadProfile(referenceProfile).profile });
      try {
        assert.equal(servers.otherEnvironmentProblem, undefined);
        assert.ok(servers.production, 'a production server');
        assert.equal(servers.production.listening.env, 'production');
        assert.ok(!servers.production.listening.testControls, 'no test controls in production');
        assert.equal(servers.server.listening.env ?? 'sandbox', 'sandbox');
        assert.notEqual(servers.production.listening.authUrlUs, servers.server.listening.authUrlUs);
        assert.equal(typeof servers.otherEnvironmentToken, 'string');
        assert.ok(servers.otherEnvironmentToken!.length > 20);
      } finally {
        await servers.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

void describe('profile: samples of the routes (ERR-GW-2111/2112/2121/2122)', () => {
  const base = { name: 'x', local: true, authUrlUs: 'https://a.example.com' };
  const problems = (resources: unknown): string[] => {
    try {
      validateProfile({ ...base, resources }, 'p.json', { env: {} });
      return [];
    } catch (e) {
      assert.ok(e instanceof ProfileError);
      return e.problems;
    }
  };

  void test('the reference profile declares them', () => {
    const r = loadProfile(referenceProfile).profile.resources;
    assert.deepEqual(r.jsonBodyRoute?.sampleBody, { text: 'conformance note' });
    assert.deepEqual(r.queryRoute?.query, { lastName: 'Lovelace', limit: '5' });
    assert.deepEqual(r.queryRoute?.required, ['lastName']);
    assert.deepEqual(r.queryRoute?.typed, { limit: 'integer' });
  });

  void test('they are optional', () => {
    assert.deepEqual(problems({ jsonBodyRoute: { method: 'POST', path: '/v1/x' }, queryRoute: { path: '/v1/s' } }), []);
  });

  const refused: [string, unknown, RegExp][] = [
    [
      'a required parameter not in the query',
      { queryRoute: { path: '/v1/s', query: { a: '1' }, required: ['b'] } },
      /^resources\.queryRoute\.required: "b" is not a parameter of `query`/,
    ],
    [
      'a typed parameter not in the query',
      { queryRoute: { path: '/v1/s', query: { a: '1' }, typed: { b: 'integer' } } },
      /^resources\.queryRoute\.typed: "b" is not a parameter of `query`/,
    ],
    [
      'required without a query',
      { queryRoute: { path: '/v1/s', required: ['a'] } },
      /^resources\.queryRoute\.required: needs `query`/,
    ],
    [
      'an unknown parameter type',
      { queryRoute: { path: '/v1/s', query: { a: '1' }, typed: { a: 'date' } } },
      /^resources\.queryRoute\.typed\.a: /,
    ],
    [
      'a query string in the path',
      { queryRoute: { path: '/v1/s?a=1' } },
      /^resources\.queryRoute\.path: .*a sample query goes in `query`/,
    ],
    [
      'a sample body that is not an object',
      { jsonBodyRoute: { method: 'POST', path: '/v1/x', sampleBody: 'text' } },
      /^resources\.jsonBodyRoute\.sampleBody: /,
    ],
    [
      'an empty sample body',
      { jsonBodyRoute: { method: 'POST', path: '/v1/x', sampleBody: {} } },
      /^resources\.jsonBodyRoute\.sampleBody: must have at least one member/,
    ],
  ];
  for (const [name, resources, expected] of refused) {
    void test(`refuses ${name}`, () => {
      const found = problems(resources);
      assert.ok(
        found.some((p) => expected.test(p)),
        `expected ${expected}, got:\n${found.join('\n')}`,
      );
    });
  }
});

void describe('--start-reference: a start that fails says what it waited for and what the server printed', () => {
  void test('the default bound is a safety net of minutes, not an estimate of a start', () => {
    assert.ok(referenceStartSafetyNetMs >= 120_000, `${referenceStartSafetyNetMs} ms`);
  });

  void test('no listening line within the bound: the line it waited for, the process still running, its output', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-test-'));
    try {
      // A bound no start can meet: the timer fires before the server has printed anything.
      await assert.rejects(startReference({ logDir: dir, timeoutMs: 1 }), (error: Error) => {
        assert.match(
          error.message,
          /^the sandbox reference server did not report 'listening' within 0\.001 s \(waited for its \{"event":"listening"\} line on stdout; the process was still running, pid \d+, started with serve --port 0 --data :memory: --test-controls\); nothing else on stdout\nnothing on stderr$/,
        );
        return true;
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void test('an exit before listening: its code and what it printed on stderr', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-test-'));
    try {
      await assert.rejects(startReference({ logDir: dir, extraArgs: ['--no-such-flag'] }), (error: Error) => {
        assert.match(
          error.message,
          /^the sandbox reference server exited with code 2 before listening \([\d.]+ s after its start\); nothing else on stdout\nstderr:\n.*unknown option '--no-such-flag'/,
        );
        return true;
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
