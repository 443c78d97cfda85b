// Errors that say what to do: each mistake a new user is likely to make gets one line naming
// the field or option, what was expected and where it is documented, and exit code 2.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { keygenMain, bundleMain, verifyMain } from '../commands/bundle.command.ts';
import { gateMain } from '../commands/gate.command.ts';
import { runMain } from '../commands/run.command.ts';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'token-conformance.js');
const dir = mkdtempSync(join(tmpdir(), 'tc-usage-errors-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const reference = JSON.parse(readFileSync(join(root, 'profiles', 'reference.json'), 'utf8')) as Record<string, unknown>;
delete reference.$schema;

/** Runs a command main with captured output. */
async function capture(
  main: (args: string[], io: { out: (l: string) => void; err: (l: string) => void }) => Promise<number>,
  args: string[],
) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(...l.split('\n')) });
  return { code, out, err };
}

/** `run --target` on a profile written from `text`; the lines about the profile. */
async function runOn(name: string, text: string) {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, text);
  const result = await capture(runMain, ['--target', file]);
  return {
    ...result,
    problems: result.err
      .filter((l) => l.startsWith(`profile ${file}: `))
      .map((l) => l.slice(`profile ${file}: `.length)),
  };
}

/** The bin as a child: exit code and stderr. */
function cli(args: string[], cwd = dir): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? 1, stderr }));
  });
}

const fieldsDoc = /\(see "Fields" in profiles\/README\.md and schemas\/target-profile\.schema\.json\)$/;

void describe('profile mistakes: one line naming the field, the expectation and the documentation; exit 2', () => {
  void test('a wrong type says the expected and the given type (not "required")', async () => {
    const r = await runOn('wrong-type', JSON.stringify({ ...reference, local: 'yes' }));
    assert.equal(r.code, 2);
    assert.deepEqual(r.problems.length, 1);
    assert.match(r.problems[0]!, /^local: expected boolean, got string "yes" /);
    assert.match(r.problems[0]!, fieldsDoc);
  });

  void test('a bad enum value lists the allowed values', async () => {
    const r = await runOn('bad-enum', JSON.stringify({ ...reference, environment: 'staging' }));
    assert.equal(r.code, 2);
    assert.deepEqual(r.problems, [
      'environment: expected one of "sandbox", "production", got "staging" (see "Fields" in profiles/README.md and schemas/target-profile.schema.json)',
    ]);
  });

  void test('a JSON syntax error gives line and column', async () => {
    const text = JSON.stringify(reference, null, 2).replace('"local": true,', '"local": true');
    const r = await runOn('syntax', text);
    assert.equal(r.code, 2);
    assert.equal(r.problems.length, 1);
    assert.match(r.problems[0]!, /^not valid JSON at line 5, column 3: Expected ',' or '}' after property value/);
  });

  void test('authUrlEu given as the full token URL is refused before anything runs', async () => {
    const r = await runOn(
      'eu-token-url',
      JSON.stringify({ ...reference, authUrlEu: 'https://127.0.0.1:8443/oauth2/default/v1/token' }),
    );
    assert.equal(r.code, 2);
    assert.deepEqual(r.problems, [
      'authUrlEu: expected the server\'s origin (scheme://host[:port]), not the token URL https://127.0.0.1:8443/oauth2/default/v1/token — the suite appends /oauth2/default/v1/token itself (see "Fields" in profiles/README.md)',
    ]);
    const origin = await runOn(
      'eu-origin-with-prefix',
      JSON.stringify({ ...reference, authUrlEu: 'https://127.0.0.1:1/oauth2/token' }),
    );
    assert.match(
      origin.problems[0] ?? '',
      /^authUrlEu: expected the server's origin/,
      'any …/token path is a token URL',
    );
  });

  void test('the reference profile without --start-reference: the hint names the flag', async () => {
    const file = join(dir, 'reference.json');
    // Port 1 on loopback: nothing listens there on any machine this runs on.
    writeFileSync(file, JSON.stringify(reference).replaceAll('127.0.0.1:8443', '127.0.0.1:1'));
    const r = await capture(runMain, ['--target', file]);
    assert.equal(r.code, 2);
    assert.match(
      r.err.at(-1)!,
      /^token-conformance run: hint: this is the bundled reference server's profile; add --start-reference/,
    );
  });

  void test('a profile that keeps a state file, run with --shard: refused before anything starts, exit 2', async () => {
    const file = join(dir, 'stateful.json');
    // Port 1: were anything started or contacted, the error would be a different one.
    writeFileSync(
      file,
      JSON.stringify({
        ...reference,
        state: { file: 'obligations.state', key: { env: 'TC_TEST_STATE_KEY' } },
      }).replaceAll('127.0.0.1:8443', '127.0.0.1:1'),
    );
    const r = await capture(runMain, ['--target', file, '--shard', '1/2']);
    assert.equal(r.code, 2);
    assert.equal(r.err.length, 1);
    assert.match(
      r.err[0]!,
      /^token-conformance run: the profile keeps a state file \(.*obligations\.state\) and --shard was given: they exclude each other/,
    );
  });
});

void describe('command mistakes', () => {
  void test('serve on a port in use: one line naming --port, exit 2 (no stack trace)', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const r = await cli(['serve', '--port', String(port), '--http', '--data', ':memory:', '--log-level', 'warn']);
      assert.equal(r.code, 2);
      assert.deepEqual(r.stderr.trim().split('\n'), [
        `token-conformance serve: --port ${port}: 127.0.0.1:${port} is already in use; stop what listens there or choose another port (--port 0 picks a free one; see serve --help)`,
      ]);
    } finally {
      taken.close();
    }
  });

  void test('bundle --key <public key>: says it is the public key and which key to give; exit 2', async () => {
    const keys = { private: join(dir, 'signing.pem'), public: join(dir, 'signing.pub.pem') };
    assert.equal(
      await keygenMain(['--private', keys.private, '--public', keys.public], { out: () => {}, err: () => {} }),
      0,
    );
    const r = await capture(bundleMain, [
      '--key',
      keys.public,
      '--out',
      join(dir, 'b.json'),
      '--reports',
      join(root, 'harness', 'test', 'fixtures', 'gate'),
    ]);
    assert.equal(r.code, 2);
    assert.deepEqual(r.err, [
      `token-conformance bundle: --key: ${keys.public} is a public key; bundle signs with the private key (the --private file of token-conformance keygen), the public key is for verify (see bundle --help)`,
    ]);
  });

  void test('verify on a missing file: bad input, exit 2 (not "not verified", 1)', async () => {
    const missing = join(dir, 'missing.bundle.json');
    const r = await capture(verifyMain, [missing, '--key', join(dir, 'whatever.pem')]);
    assert.equal(r.code, 2);
    assert.deepEqual(r.err, [
      `token-conformance verify: cannot read ${missing} (ENOENT); give the bundle file written by token-conformance bundle --out (see verify --help)`,
    ]);
  });

  void test('a misspelled waiver key names the waivers documentation, not the profile one', async () => {
    const waivers = join(dir, 'waivers.json');
    writeFileSync(
      waivers,
      JSON.stringify({
        waivers: [
          {
            requirement: 'TOKEN-REQ-001',
            owner: 'a@example.com',
            justification: 'x',
            expires: '2099-01-01',
            tiket: 'T-1',
          },
        ],
      }),
    );
    const r = await capture(gateMain, [
      join(root, 'harness', 'test', 'fixtures', 'gate', 'report-pass.json'),
      '--waivers',
      waivers,
      '--out',
      join(dir, 'gate.json'),
    ]);
    assert.equal(r.code, 2);
    const line = r.err.find((l) => l.includes('tiket'));
    assert.match(
      line ?? '',
      /waivers\.0\.tiket: unknown key "tiket" \(check the spelling; see schemas\/waivers\.schema\.json and docs\/gating-waivers-bundles\.md\)$/,
    );
    assert.ok(!r.err.some((l) => l.includes('profiles/README.md')), r.err.join('\n'));
  });
});
