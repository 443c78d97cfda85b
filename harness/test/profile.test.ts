// Target-profile validation: every mistake is one clear line naming the field; `run` exits 2
// before anything runs.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runMain } from '../commands/run.command.ts';
import { parseJsonc } from '../../core/profile/jsonc.ts';
import { loadProfile, validateProfile } from '../../core/profile/load-profile.ts';
import { toWorkerProfile } from '../../core/profile/worker-profile.ts';
import { temporaryDirectory } from './support/temporary-directory.ts';
import { profileProblems } from './support/profile-problems.ts';

const base = {
  name: 'staging',
  authUrlUs: 'https://auth.example.com',
  baseUrl: 'https://api.example.com',
  credentials: { clients: { usClient: { clientId: 'abc', clientSecret: { env: 'US_SECRET' } } } },
};

const problems = profileProblems;

void describe('target profile validation', () => {
  void test('an address ending with a path the suite appends itself (/v1, /api/v1, /oauth2/default): one line naming the field and the origin to set', () => {
    assert.deepEqual(problems({ ...base, baseUrl: 'https://api.example.com/v1/' }), [
      'baseUrl: https://api.example.com/v1/ ends with /v1, which the suite appends itself (it would call https://api.example.com/v1/v1/…) — set baseUrl to https://api.example.com',
    ]);
    assert.deepEqual(problems({ ...base, authUrlUs: 'https://auth.example.com/gw/api/v1' }), [
      'authUrlUs: https://auth.example.com/gw/api/v1 ends with /api/v1, which the suite appends itself (it would call https://auth.example.com/gw/api/v1/api/v1/…) — set authUrlUs to https://auth.example.com/gw',
    ]);
    assert.deepEqual(
      problems({ ...base, authUrlUs: 'https://auth.example.com/gw', baseUrl: 'https://api.example.com/v10' }),
      [],
      "a deployment prefix the suite does not append is the target's own",
    );
  });

  void test('a valid profile loads, with secrets resolved from the environment', () => {
    const loaded = validateProfile(base, 'p.json', { env: { US_SECRET: 's3cret-value' } });
    assert.equal(loaded.profile.name, 'staging');
    assert.deepEqual(
      loaded.secrets.map((s) => [s.path, s.value]),
      [['credentials.clients.usClient.clientSecret', 's3cret-value']],
    );
    assert.equal(loaded.profile.capabilities.load.allowed, false, 'load is off unless allowed');
  });

  const cases: { name: string; raw: unknown; env?: NodeJS.ProcessEnv; expect: RegExp }[] = [
    {
      name: 'unknown top-level key',
      raw: { ...base, authUrlUS: 'https://x.example.com' },
      expect: /^authUrlUS: unknown key "authUrlUS"/,
    },
    {
      name: 'unknown nested key',
      raw: { ...base, capabilities: { clockUrl: 'https://x.example.com' } },
      expect: /^capabilities\.clockUrl: unknown key "clockUrl"/,
    },
    {
      name: 'unknown client name',
      raw: { ...base, credentials: { clients: { usClinet: { clientId: 'a', clientSecret: { env: 'US_SECRET' } } } } },
      expect: /^credentials\.clients\.usClinet: unknown key/,
    },
    {
      name: 'literal secret in a non-local profile',
      raw: { ...base, credentials: { clients: { usClient: { clientId: 'a', clientSecret: { value: 'x' } } } } },
      expect:
        /^credentials\.clients\.usClient\.clientSecret: a literal secret .* refused in a profile not marked "local": true/,
    },
    {
      name: 'missing environment variable',
      raw: base,
      env: {},
      expect: /^credentials\.clients\.usClient\.clientSecret: environment variable US_SECRET is not set$/,
    },
    {
      name: 'bad URL',
      raw: { ...base, authUrlUs: 'not a url' },
      expect:
        /^authUrlUs: must be an absolute http\(s\) URL \(see "Fields" in profiles\/README\.md and schemas\/target-profile\.schema\.json\)$/,
    },
    {
      name: 'plain HTTP to a non-local target',
      raw: { ...base, baseUrl: 'http://api.example.com' },
      expect: /^baseUrl: plain HTTP .* refused for a target not marked "local": true/,
    },
    {
      name: 'secret given as a bare string',
      raw: { ...base, credentials: { clients: { usClient: { clientId: 'a', clientSecret: 'x' } } } },
      expect: /^credentials\.clients\.usClient\.clientSecret: /,
    },
    {
      name: 'no token server at all',
      raw: { name: 'x', baseUrl: 'https://api.example.com' },
      expect: /^authUrlUs: at least one of authUrlUs and authUrlEu is required$/,
    },
    {
      name: 'missing name',
      raw: { authUrlUs: 'https://a.example.com' },
      expect:
        /^name: required \(string; see "Fields" in profiles\/README\.md and schemas\/target-profile\.schema\.json\)$/,
    },
    {
      name: 'interpretation value not allowed',
      raw: { ...base, interpretations: { invalidClientStatus: 402 } },
      expect: /^interpretations\.invalidClientStatus: /,
    },
    {
      name: 'unknown interpretation key',
      raw: { ...base, interpretations: { noSuchChoice: 'x' } },
      expect: /^interpretations\.noSuchChoice: unknown key/,
    },
    {
      name: 'structured interpretation checked against its schema',
      raw: { ...base, interpretations: { gatewayCodes: { matching: 'fuzzy' } } },
      expect: /^interpretations\.gatewayCodes: must match the schema of OI-14/,
    },
    {
      name: 'a code not produced that §7.2 does not list',
      raw: { ...base, interpretations: { gatewayCodes: { notProduced: ['000-1999'] } } },
      expect: /^interpretations\.gatewayCodes: must match the schema of OI-14/,
    },
    {
      name: '000-1020 declared not produced (§9 requires it)',
      raw: { ...base, interpretations: { gatewayCodes: { notProduced: ['000-1020'] } } },
      expect: /^interpretations\.gatewayCodes: must match the schema of OI-14/,
    },
    {
      name: 'a condition answered by a code that does not fit it',
      raw: { ...base, interpretations: { gatewayCodes: { conditions: { nonBearerScheme: '000-1202' } } } },
      expect: /^interpretations\.gatewayCodes: must match the schema of OI-14/,
    },
    {
      name: 'an unknown condition',
      raw: { ...base, interpretations: { gatewayCodes: { conditions: { expiredToken: '000-1202' } } } },
      expect: /^interpretations\.gatewayCodes: must match the schema of OI-14/,
    },
    { name: 'missing CA file', raw: { ...base, caFile: './nope.pem' }, expect: /^caFile: file not found: / },
    {
      name: 'rate limits without a number',
      raw: { ...base, capabilities: { rateLimit: {} } },
      expect:
        /^capabilities\.rateLimit: declare at least one of spikePerSecond, quotaPerWindow and windowSeconds, or leave rateLimit out/,
    },
    {
      name: 'a rate-limit number that is not a positive whole number',
      raw: { ...base, capabilities: { rateLimit: { spikePerSecond: 2.5 } } },
      expect: /^capabilities\.rateLimit\.spikePerSecond: /,
    },
  ];
  for (const c of cases) {
    void test(`refuses: ${c.name}`, () => {
      const found = problems(c.raw, c.env);
      assert.ok(found.length >= 1, 'a problem is reported');
      assert.ok(
        found.some((p) => c.expect.test(p)),
        `expected a line matching ${c.expect}, got:\n${found.join('\n')}`,
      );
      for (const p of found) assert.ok(!p.includes('\n'), 'one line per problem');
    });
  }

  void test('accepts declared interpretations of every kind', () => {
    assert.deepEqual(
      problems({
        ...base,
        interpretations: {
          invalidClientStatus: 401,
          unsupportedGrantError: 'invalid_request',
          passwordScopes: ['openid'],
          gatewayCodes: { matching: 'family' },
        },
      }),
      [],
    );
    assert.deepEqual(
      problems({
        ...base,
        interpretations: {
          gatewayCodes: {
            notProduced: ['000-1000', '000-1200'],
            conditions: { nonBearerScheme: '000-1205', unknownToken: '000-1205', perSecondLimit: '000-2000' },
          },
        },
      }),
      [],
    );
  });

  void test('each rate-limit number is declared on its own: whatever is known, and only that, is in the profile', () => {
    for (const rateLimit of [
      { spikePerSecond: 5 },
      { quotaPerWindow: 100, windowSeconds: 60 },
      { quotaPerWindow: 100 },
      { spikePerSecond: 50, quotaPerWindow: 1000, windowSeconds: 60 },
    ]) {
      const raw = { ...base, capabilities: { rateLimit } };
      assert.deepEqual(problems(raw), [], JSON.stringify(rateLimit));
      const { profile } = validateProfile(raw, 'p.json', { env: { US_SECRET: 's3cret-value' } });
      assert.deepEqual(profile.capabilities.rateLimit, rateLimit);
    }
    const misspelt = problems({ ...base, capabilities: { rateLimit: { spike: 5 } } });
    assert.deepEqual(
      misspelt.map((p) => p.split(' (')[0]),
      ['capabilities.rateLimit.spike: unknown key "spike"'],
      'a misspelt number is one line, not a second one saying no number is declared',
    );
  });

  void test('a local profile may hold literal secrets and plain HTTP', () => {
    assert.deepEqual(
      problems({
        ...base,
        local: true,
        baseUrl: 'http://127.0.0.1:8080',
        credentials: { clients: { usClient: { clientId: 'a', clientSecret: { value: 'demo' } } } },
      }),
      [],
    );
  });

  void test('the error message names the file and every problem', () => {
    const error = (() => {
      try {
        validateProfile({ name: 'x', authUrlUs: 'nope', foo: 1 }, 'profiles/x.json', { env: {} });
      } catch (e) {
        return e as Error;
      }
      return undefined;
    })();
    assert.ok(error);
    assert.match(error.message, /^profile profiles\/x\.json: /m);
    assert.match(error.message, /foo: unknown key/);
    assert.match(error.message, /authUrlUs: /);
  });
});

void describe('JSONC', () => {
  void test('comments and trailing commas are accepted; comment-like text in strings is kept', () => {
    const parsed = parseJsonc(
      '// head\n{\n  "a": "http://x//y", /* b */ "b": [1, 2,],\n  "c": "/* not a comment */", // tail\n}\n',
    );
    assert.deepEqual(parsed, { a: 'http://x//y', b: [1, 2], c: '/* not a comment */' });
  });

  void test('the example profiles load', () => {
    const env = {
      STAGING_US_CLIENT_SECRET: 'a',
      STAGING_US_PW_CLIENT_SECRET: 'b',
      STAGING_USER_PASSWORD: 'c',
      STAGING_EU_CLIENT_SECRET: 'd',
      STAGING_US_RL_SECRET: 'e',
      EU_CLIENT_SECRET: 'f',
    };
    for (const file of [
      'profiles/examples/staging-us.jsonc',
      'profiles/examples/eu-only.jsonc',
      'profiles/reference.json',
    ]) {
      assert.doesNotThrow(() => loadProfile(join(import.meta.dirname, '..', '..', file), { env }), file);
    }
  });
});

void describe('hand-off to the workers', () => {
  void test('literal secrets move into environment variables; the written profile holds only references', () => {
    const loaded = validateProfile(
      {
        ...base,
        local: true,
        credentials: {
          clients: { usClient: { clientId: 'a', clientSecret: { value: 'demo-secret-1' } } },
          users: { user: { username: 't\\u', password: { env: 'PW' } } },
        },
      },
      'p.json',
      { env: { PW: 'pw-secret-2' } },
    );
    const handoff = toWorkerProfile(loaded);
    const text = JSON.stringify(handoff.profile);
    assert.ok(!text.includes('demo-secret-1') && !text.includes('pw-secret-2'), 'no secret in the profile file');
    const ref = handoff.profile.credentials.clients.usClient?.clientSecret;
    assert.ok(ref && 'env' in ref);
    assert.equal(handoff.env[ref.env], 'demo-secret-1');
    assert.match(handoff.env.TOKEN_CONFORMANCE_SECRET_ENV ?? '', /PW/);
  });
});

void describe('run: exit code 2 before anything runs', () => {
  const dir = temporaryDirectory('tc-profile-test-');
  const capture = () => {
    const lines: string[] = [];
    return { lines, io: { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) } };
  };

  void test('a bad profile', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ ...base, extra: true }));
    const { lines, io } = capture();
    assert.equal(await runMain(['--target', file], io), 2);
    assert.ok(
      lines.some((l) => /extra: unknown key/.test(l)),
      lines.join('\n'),
    );
  });

  void test('bad arguments', async () => {
    const { lines, io } = capture();
    assert.equal(await runMain(['--target', 'x.json', '--level', 'most'], io), 2);
    assert.ok(lines.some((l) => /--level must be must, should or all/.test(l)));
    assert.equal(await runMain(['--target', 'x.json', '--shard', '3/2'], capture().io), 2);
    assert.equal(await runMain(['--bogus'], capture().io), 2);
  });

  void test('an unreachable address, named with its field', async () => {
    const file = join(dir, 'unreachable.json');
    writeFileSync(
      file,
      JSON.stringify({ name: 'closed', local: true, authUrlUs: 'http://127.0.0.1:9', baseUrl: 'http://127.0.0.1:9' }),
    );
    const { lines, io } = capture();
    assert.equal(await runMain(['--target', file], io), 2);
    assert.ok(
      lines.some((l) => /authUrlUs http:\/\/127\.0\.0\.1:9 is not reachable: connection refused/.test(l)),
      lines.join('\n'),
    );
    assert.ok(lines.some((l) => /nothing was run/.test(l)));
  });
});

void describe('profiles/reference.json', () => {
  void test('its credentials are those of fixtures/reference-seed.json (ids and secrets match)', () => {
    const root = join(import.meta.dirname, '..', '..');
    const seed = JSON.parse(readFileSync(join(root, 'fixtures', 'reference-seed.json'), 'utf8')) as {
      clients: { clientId: string; clientSecret: string }[];
      users: { username: string; password: string }[];
    };
    const { profile, secrets } = loadProfile(join(root, 'profiles', 'reference.json'));
    const value = (path: string) => secrets.find((s) => s.path === path)?.value;
    for (const [name, c] of Object.entries(profile.credentials.clients)) {
      if (!c) continue;
      const s = seed.clients.find((x) => x.clientId === c.clientId);
      assert.ok(s, `${name}: ${c.clientId} is not in the seed`);
      assert.equal(
        value(`credentials.clients.${name}.clientSecret`),
        s.clientSecret,
        `${name}: secret differs from the seed`,
      );
    }
    for (const [name, u] of Object.entries(profile.credentials.users)) {
      if (!u) continue;
      const s = seed.users.find((x) => x.username === u.username);
      assert.ok(s, `${name}: ${u.username} is not in the seed`);
      assert.equal(value(`credentials.users.${name}.password`), s.password, `${name}: password differs from the seed`);
    }
  });
});
