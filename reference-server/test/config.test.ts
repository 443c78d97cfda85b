import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BUNDLED_SEED, DEFAULT_PORT, UsageError, parseServeArgs, serveDefaults, serveUsage } from '../src/config.ts';
import { originFor } from '../src/main.ts';

const parse = (args: string[], env: NodeJS.ProcessEnv = {}) => parseServeArgs(args, env, '/srv');
const usage = (args: string[], env: NodeJS.ProcessEnv = {}): string => {
  try {
    parse(args, env);
  } catch (error) {
    assert.ok(error instanceof UsageError, 'a UsageError');
    assert.doesNotMatch(error.message, /\n/, 'one line');
    return error.message;
  }
  throw new Error('expected a usage error');
};

void describe('serve options', () => {
  void test('defaults', () => {
    const c = parse([]);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.port, DEFAULT_PORT);
    assert.equal(c.http, false);
    assert.equal(c.testControls, false);
    assert.equal(c.environment, 'sandbox');
    assert.equal(c.dataFile, '/srv/data/reference-server/sandbox.sqlite');
    assert.equal(c.seedFile, BUNDLED_SEED);
    assert.equal(c.seedExplicit, false);
    assert.equal(c.clientCredentialsLifetimeSeconds, 3600);
    assert.equal(c.passwordLifetimeSeconds, 604_800);
    assert.deepEqual(c.lockout, { userFailures: 10, clientFailures: 50, lockSeconds: 900, sourceFailures: 1000 });
  });

  void test('the help states each default once, from the table the parser applies', () => {
    const help = serveUsage().split('\n');
    const line = (flag: string) => help.find((l) => l.startsWith(`  --${flag} `)) ?? `no line for --${flag}`;
    const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    for (const [flag, value] of Object.entries(serveDefaults))
      assert.match(line(flag), new RegExp(`\\(default ${escaped(String(value))}\\) \\[TC_`), flag);
    assert.match(line('data'), /\(default \.\/data\/reference-server\/<env>\.sqlite\)/);
    assert.match(line('seed'), /\(default fixtures\/reference-seed\.json\)/);
    for (const l of help.filter((x) => x.startsWith('  --')))
      assert.ok((l.match(/default/g) ?? []).length <= 1, `one default: ${l}`);
    const c = parse([]);
    assert.deepEqual(
      [c.host, c.port, c.environment, c.synchronous, c.logLevel, c.maxHeaderSize, c.timeouts, c.rateLimits],
      [
        serveDefaults.host,
        serveDefaults.port,
        serveDefaults.env,
        'NORMAL',
        serveDefaults['log-level'],
        serveDefaults['max-header-size'],
        { headersMs: serveDefaults['headers-timeout'] * 1000, requestMs: serveDefaults['request-timeout'] * 1000 },
        {
          spikePerSecond: serveDefaults['rate-spike'],
          quotaPerWindow: serveDefaults['rate-quota'],
          windowSeconds: serveDefaults['rate-window'],
        },
      ],
    );
  });

  void test('brute-force lock options: flags and variables', () => {
    assert.deepEqual(
      parse(['--lockout-user', '5', '--lockout-client=20', '--lockout-seconds', '60', '--lockout-source', '7']).lockout,
      { userFailures: 5, clientFailures: 20, lockSeconds: 60, sourceFailures: 7 },
    );
    assert.deepEqual(
      parse([], { TC_LOCKOUT_USER: '3', TC_LOCKOUT_CLIENT: '4', TC_LOCKOUT_SECONDS: '5', TC_LOCKOUT_SOURCE: '6' })
        .lockout,
      { userFailures: 3, clientFailures: 4, lockSeconds: 5, sourceFailures: 6 },
    );
    assert.match(usage(['--lockout-user', '0']), /--lockout-user/);
    assert.match(usage([], { TC_LOCKOUT_SECONDS: 'soon' }), /TC_LOCKOUT_SECONDS/);
  });

  void test('flags in both forms, environment variables, flags win', () => {
    const c = parse(['--port', '0', '--http', '--test-controls', '--data=:memory:', '--env', 'sandbox', '--host=::1'], {
      TC_PORT: '9000',
      TC_HOST: 'x',
    });
    assert.deepEqual([c.port, c.http, c.testControls, c.dataFile, c.host], [0, true, true, ':memory:', '::1']);
    const e = parse([], {
      TC_PORT: '9000',
      TC_HTTP: 'true',
      TC_TEST_CONTROLS: '0',
      TC_DATA: 'x.sqlite',
      TC_ENV: 'production',
      TC_SEED: BUNDLED_SEED,
    });
    assert.deepEqual(
      [e.port, e.http, e.testControls, e.dataFile, e.environment, e.seedFile, e.seedExplicit],
      [9000, true, false, '/srv/x.sqlite', 'production', BUNDLED_SEED, true],
    );
  });

  void test('bad values name the flag (or the variable) in one line', () => {
    assert.match(usage(['--port', 'abc']), /--port/);
    assert.match(usage(['--port', '70000']), /--port/);
    assert.match(usage(['--env', 'staging']), /--env.*sandbox or production/);
    assert.match(usage([], { TC_PORT: '-1' }), /TC_PORT/);
    assert.match(usage(['--bogus']), /unknown option '--bogus'/);
    assert.match(usage(['--port']), /--port needs a value/);
    assert.match(usage(['--port', '1', '--port', '2']), /twice/);
    assert.match(usage(['--http=maybe']), /--http/);
    assert.match(usage(['--seed', 'missing.json']), /seed file not found: \/srv\/missing\.json/);
  });

  void test('--test-controls is refused with --env production', () => {
    assert.match(usage(['--test-controls', '--env', 'production']), /--test-controls.*production/);
    assert.match(usage([], { TC_TEST_CONTROLS: 'true', TC_ENV: 'production' }), /--test-controls.*production/);
  });

  void test('origins', () => {
    assert.equal(originFor({ host: '127.0.0.1', http: false }, 8443), 'https://127.0.0.1:8443');
    assert.equal(originFor({ host: '0.0.0.0', http: true }, 80), 'http://127.0.0.1:80');
    assert.equal(originFor({ host: '::1', http: false }, 1), 'https://[::1]:1');
  });
});
