// The operator command `token-conformance register-client`: options, and the real binary writing a
// production client into a data file that a production server then authenticates.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseRegisterClientArgs } from '../../src/register-client-main.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { attempt, cc, issued, testServices } from '../helpers.ts';

const root = join(import.meta.dirname, '..', '..', '..');
const run = (args: string[]) =>
  spawnSync(process.execPath, [join(root, 'bin', 'token-conformance.js'), 'register-client', ...args], {
    cwd: root,
    encoding: 'utf8',
  });

void describe('register-client options', () => {
  void test("defaults: production, US, client_credentials, the environment's data file", () => {
    const parsed = parseRegisterClientArgs(
      ['--tenant-id', 'acme', '--role', 'people-reader', '--name', 'Acme HR'],
      '/srv',
    );
    assert.notEqual(parsed, 'help');
    if (parsed === 'help') return;
    assert.deepEqual(parsed.registration, {
      tenantId: 'acme',
      role: 'people-reader',
      name: 'Acme HR',
      environment: 'production',
      region: 'us',
      grants: ['client_credentials'],
    });
    assert.equal(parsed.dataFile, '/srv/data/reference-server/production.sqlite');
  });

  void test('each mistake is named', () => {
    const base = ['--tenant-id', 'acme', '--role', 'r', '--name', 'n'];
    for (const [args, message] of [
      [['--role', 'r', '--name', 'n'], /--tenant-id is required/],
      [[...base, '--env', 'staging'], /--env must be production or sandbox/],
      [[...base, '--region', 'apac'], /--region must be us or eu/],
      [[...base, '--grants', 'client_credentials,implicit'], /unknown grant 'implicit'/],
      [[...base, '--bogus'], /Unknown option/],
    ] as const) {
      assert.throws(() => parseRegisterClientArgs([...args], '/srv'), message);
    }
  });
});

void describe('register-client (the real binary)', () => {
  void test('writes a production client with tenant and role; the secret is printed once; a taken id exits 1, a bad option 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-register-'));
    const data = join(dir, 'production.sqlite');
    try {
      // A --data file that does not exist is refused (one line, exit 2), not created.
      const missing = run(['--data', data, '--tenant-id', 'acme', '--role', 'people-reader', '--name', 'Acme HR']);
      assert.equal(missing.status, 2);
      assert.match(
        missing.stderr,
        /^token-conformance register-client: --data: no store file at .*serve --env production --data FILE/,
      );
      assert.equal(missing.stderr.trim().split('\n').length, 1);
      assert.equal(existsSync(data), false);
      await new SqliteStore(data).close(); // the data file of a server that ran once
      const ok = run([
        '--data',
        data,
        '--tenant-id',
        'acme',
        '--role',
        'people-reader',
        '--name',
        'Acme HR',
        '--client-id',
        'acme-hr',
        '--json',
      ]);
      assert.equal(ok.status, 0, ok.stderr);
      const printed = JSON.parse(ok.stdout) as { client_id: string; client_secret: string; environment: string };
      assert.equal(printed.client_id, 'acme-hr');
      assert.equal(printed.environment, 'production');
      assert.match(printed.client_secret, /^[A-Za-z0-9_-]{43}$/);

      const taken = run([
        '--data',
        data,
        '--tenant-id',
        'acme',
        '--role',
        'people-reader',
        '--name',
        'Again',
        '--client-id',
        'acme-hr',
      ]);
      assert.equal(taken.status, 1);
      assert.match(taken.stderr, /already exists/);
      const bad = run(['--data', data, '--role', 'people-reader', '--name', 'x']);
      assert.equal(bad.status, 2);
      assert.equal(bad.stderr.trim().split('\n').length, 1);

      const store = new SqliteStore(data);
      const s = await testServices({ store, environment: 'production' });
      try {
        assert.deepEqual((await store.findClient('acme-hr'))?.registration, {
          tenantId: 'acme',
          role: 'people-reader',
        });
        assert.equal((await store.findClient('acme-hr'))?.secretHash.includes(printed.client_secret), false);
        issued(await attempt(s, cc({ id: 'acme-hr', secret: printed.client_secret })));
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
