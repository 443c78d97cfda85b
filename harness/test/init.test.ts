// `token-conformance init`: a profile from flags, validated, with its export lines; then, edited
// in nothing, `run --check-profile` and a run of the interpretation checks against a reference
// server started with `serve` (a target like any other) give a verdict without a FAIL.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, test } from 'node:test';
import { initMain } from '../commands/init.command.ts';
import { runMain } from '../commands/run.command.ts';
import { loadProfile } from '../../core/profile/load-profile.ts';

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'tc-init-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function capture(
  main: (args: string[], io: { out: (l: string) => void; err: (l: string) => void }) => Promise<number>,
  args: string[],
) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (l) => out.push(...l.split('\n')), err: (l) => err.push(...l.split('\n')) });
  return { code, out, err };
}

interface SecretRef {
  value: string;
}
const reference = JSON.parse(readFileSync(join(root, 'profiles', 'reference.json'), 'utf8')) as {
  credentials: {
    clients: Record<string, { clientId: string; clientSecret: SecretRef }>;
    users: Record<string, { username: string; password: SecretRef }>;
  };
};

void describe('token-conformance init', () => {
  void test('refuses unknown client names, a missing --out and an existing file; one line, exit 2', async () => {
    const bad = await capture(initMain, [
      '--out',
      join(dir, 'x.jsonc'),
      '--name',
      'x',
      '--auth-url-us',
      'https://a.example.com',
      '--client',
      'usClinet=abc',
    ]);
    assert.equal(bad.code, 2);
    assert.match(bad.err[0]!, /^token-conformance init: --client usClinet=abc: 'usClinet' is not one of usClient, /);
    assert.equal((await capture(initMain, ['--name', 'x'])).code, 2);
    const tokenUrl = await capture(initMain, [
      '--out',
      join(dir, 'y.jsonc'),
      '--name',
      'y',
      '--auth-url-us',
      'https://a.example.com/api/v1/auth/oauth2/token',
    ]);
    assert.equal(tokenUrl.code, 2, 'what init writes is validated by the same loader as run');
    assert.ok(tokenUrl.err.some((l) => l.includes("authUrlUs: expected the server's origin")));
  });

  void test('with no flags and a terminal, the answers to its questions become the flags', async () => {
    const file = join(dir, 'asked.jsonc');
    const answers = [
      'asked',
      file,
      'https://auth-us.example.com',
      '',
      'https://api.example.com',
      'sandbox',
      'usClient=abc, euClient=def',
      'user=acme\\alice',
    ];
    const questions: string[] = [];
    const r = await capture(
      (args, io) =>
        initMain(args, io, (q) => {
          questions.push(q);
          return Promise.resolve(answers[questions.length - 1] ?? '');
        }),
      [],
    );
    assert.equal(r.code, 0, r.err.join('\n'));
    assert.ok(
      questions.length > answers.length,
      'then burnable user, people, lifetimes, Basic, rate limits, state file',
    );
    assert.ok(
      questions.some((q) => /burn/.test(q)) &&
        questions.some((q) => /people/.test(q)) &&
        questions.some((q) => /state file/.test(q)) &&
        questions.some((q) => /Basic/.test(q)),
      questions.join('\n'),
    );
    assert.deepEqual(
      r.out.filter((l) => l.startsWith('export ')),
      ['export ASKED_US_CLIENT_SECRET=…', 'export ASKED_EU_CLIENT_SECRET=…', 'export ASKED_USER_PASSWORD=…'],
    );
    const written = readFileSync(file, 'utf8');
    assert.match(written, /"authUrlUs": "https:\/\/auth-us\.example\.com"/);
    assert.match(written, /\/\/ "authUrlEu": "…"/, 'an empty answer leaves the address out');
    assert.match(written, /"username": "acme\\\\alice"/);
  });

  void test('init → edit nothing → check-profile and the interpretation-reading checks against a served reference server: no FAIL', async () => {
    const server = spawn(
      process.execPath,
      [join(root, 'bin', 'token-conformance.js'), 'serve', '--port', '0', '--data', ':memory:', '--log-level', 'warn'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise((resolve) => server.once('exit', resolve));
    try {
      const listening = await new Promise<{ authUrlUs: string; caFile: string }>((resolve, reject) => {
        createInterface({ input: server.stdout }).on('line', (l) => {
          if (l.includes('"listening"')) resolve(JSON.parse(l) as { authUrlUs: string; caFile: string });
        });
        server.once('exit', (code) => reject(new Error(`serve exited (${code}) before listening`)));
      });
      const file = join(dir, 'served.jsonc');
      const clients = Object.entries(reference.credentials.clients).filter(([n]) => n !== 'otherEnvironmentClient');
      const users = Object.entries(reference.credentials.users);
      const init = await capture(initMain, [
        '--out',
        file,
        '--name',
        'served',
        '--environment',
        'sandbox',
        '--env-prefix',
        'SERVED_',
        '--auth-url-us',
        listening.authUrlUs,
        '--auth-url-eu',
        listening.authUrlUs,
        '--base-url',
        listening.authUrlUs,
        '--ca-file',
        listening.caFile,
        ...clients.flatMap(([n, c]) => ['--client', `${n}=${c.clientId}`]),
        ...users.flatMap(([n, u]) => ['--user', `${n}=${u.username}`]),
      ]);
      assert.equal(init.code, 0, init.err.join('\n'));
      const exports = init.out.filter((l) => l.startsWith('export '));
      assert.equal(exports.length, clients.length + users.length, 'one export line per referenced secret');
      assert.ok(exports.includes('export SERVED_US_CLIENT_SECRET=…'));
      const text = readFileSync(file, 'utf8');
      assert.match(text, /^\/\/ Target profile "served"/);
      assert.match(text, /"interpretations": \{\}/, 'no interpretation is guessed');

      // The user sets the variables init printed (here: the reference seed's demo secrets).
      const values: Record<string, string> = {
        ...Object.fromEntries(
          clients.map(([n, c]) => [
            `SERVED_${n.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}_SECRET`,
            c.clientSecret.value,
          ]),
        ),
        ...Object.fromEntries(
          users.map(([n, u]) => [
            `SERVED_${n.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}_PASSWORD`,
            u.password.value,
          ]),
        ),
      };
      assert.deepEqual(Object.keys(values).sort(), exports.map((e) => e.slice('export '.length, -2)).sort());
      Object.assign(process.env, values);
      assert.doesNotThrow(() => loadProfile(file));

      const check = await capture(runMain, ['--target', file, '--check-profile']);
      assert.equal(check.code, 0, check.err.join('\n'));
      assert.match(check.out.at(-1)!, /no check was run \(--check-profile\)/);

      const reports = join(dir, 'reports');
      // The checks that read declared interpretations (invalidClientStatus, unsupportedGrantError, …).
      const run = await capture(runMain, [
        '--target',
        file,
        '--spec',
        'specs/client-auth/form-credentials.spec.ts',
        '--spec',
        'specs/grants/client-credentials.spec.ts',
        '--reports',
        reports,
        '--passes',
        'conformance',
      ]);
      const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as {
        verdict: string;
        requirements: { id: string; verdict: string; reason?: string }[];
      };
      const failed = report.requirements.filter((r) => r.verdict === 'FAIL' || r.verdict === 'WARN');
      assert.deepEqual(
        failed.map((r) => `${r.id}: ${r.reason ?? ''}`),
        [],
        'no FAIL from a guessed interpretation',
      );
      assert.equal(run.code, 0, run.err.join('\n'));
      const checks = (
        JSON.parse(readFileSync(join(reports, 'checks.json'), 'utf8')) as { checks: { status: string }[] }
      ).checks;
      assert.ok(
        checks.filter((c) => c.status === 'passed').length >= 5,
        `the interpretation checks ran (${checks.length} checks)`,
      );
    } finally {
      server.kill('SIGTERM');
      await exited;
    }
  });
});
