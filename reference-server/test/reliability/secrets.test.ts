// Secrets at rest and in logs.
// - A real process on a new store (seeded by the server itself, production scrypt cost), its log
//   (stderr, level debug) captured through a full flow: every grant, HTTP Basic, a refresh and its
//   replay, wrong secrets and passwords, credentials in a query string, protected calls (token in
//   the header, and in the query), a note. The log holds no secret of fixtures/reference-seed.json,
//   no password, no access or refresh token seen (raw, URL-encoded, or as a Basic credential).
// - The store holds scrypt hashes (N=2^14, r=8, p=1) with a salt per record (no two alike), and
//   refresh tokens only as SHA-256 hashes.
// - Verification compares with crypto.timingSafeEqual, for right and wrong secrets alike.
// - The portal (a real HTTPS process, level debug): signing in (also with a wrong password, and a
//   password typed into the user-name field), registering, rotating and deleting a sandbox client,
//   changing a password, signing out. The log holds none of the passwords, client secrets, session
//   ids or CSRF tokens seen, and no URL the browser was sent to holds one either.
// - Opt-in (TC_RELIABILITY_CONFORMANCE_RUN=1, ~25 s): the same search over the reference server's
//   log of a conformance run (`run --start-reference --grep @grants`), against every token the run saw.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto, { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, mock, test } from 'node:test';
import Database from 'better-sqlite3';
import { ScryptSecretHasher, testScryptCost } from '../../src/crypto/scrypt-hasher.ts';
import { Agent, request } from 'undici';
import { bundledSeed } from '../demo-credentials.ts';
import { startPortalServer } from '../portal/e2e/portal-server.ts';
import { agent, form, send, startServer, US_TOKEN } from './support/server-process.ts';

const root = join(import.meta.dirname, '..', '..', '..');
const seed = bundledSeed;
const seedSecrets = [...seed.clients.map((c) => c.clientSecret), ...seed.users.map((u) => u.password)];
const secretOf = (id: string) => seed.clients.find((c) => c.clientId === id)!.clientSecret;
const passwordOf = (name: string) => seed.users.find((u) => u.username === name)!.password;
const basic = (id: string, secret: string) =>
  Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64');

/** Every form in which a value could appear in a log line. */
function forms(value: string): string[] {
  return [
    ...new Set([
      value,
      encodeURIComponent(value),
      new URLSearchParams({ v: value }).toString().slice(2),
      JSON.stringify(value).slice(1, -1),
    ]),
  ];
}
function assertAbsent(log: string, values: Iterable<string>, what: string): number {
  let n = 0;
  for (const value of values) {
    if (value.length < 8) continue;
    n += 1;
    for (const f of forms(value))
      assert.equal(log.includes(f), false, `${what} (length ${value.length}) appears in the log`);
  }
  return n;
}

void describe('secrets', () => {
  void test('the log of a full flow (level debug) holds no seed secret, password or token; the store holds only slow salted hashes', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-secrets-'));
    const file = join(dir, 'store.sqlite');
    const server = await startServer(['--data', file], { TC_LOG_LEVEL: 'debug' });
    const http = agent(8);
    const tokens: string[] = [];
    const url = `${server.baseUrl}${US_TOKEN}`;
    const keep = <R extends { json: Record<string, unknown> | undefined }>(r: R): R => {
      for (const k of ['access_token', 'refresh_token']) if (typeof r.json?.[k] === 'string') tokens.push(r.json[k]);
      return r;
    };
    try {
      const pwClient = { client_id: 'us-pw-client', client_secret: secretOf('us-pw-client') };
      const cc = keep(
        await send(
          http,
          url,
          form({
            grant_type: 'client_credentials',
            client_id: 'us-cc-client',
            client_secret: secretOf('us-cc-client'),
          }),
        ),
      );
      assert.equal(cc.status, 200);
      keep(
        await send(http, url, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${basic('us-cc-client', secretOf('us-cc-client'))}`,
          },
          body: 'grant_type=client_credentials',
        }),
      );
      keep(
        await send(
          http,
          `${server.baseUrl}/oauth2/default/v1/token`,
          form({
            grant_type: 'client_credentials',
            client_id: 'eu-cc-client',
            client_secret: secretOf('eu-cc-client'),
            scope: 'empty_default',
          }),
        ),
      );
      const alice = keep(
        await send(
          http,
          url,
          form({ grant_type: 'password', ...pwClient, username: 'acme\\alice', password: passwordOf('acme\\alice') }),
        ),
      );
      assert.equal(alice.status, 200, alice.body);
      keep(
        await send(
          http,
          url,
          form({ grant_type: 'password', ...pwClient, username: 'acme\\erin', password: passwordOf('acme\\erin') }),
        ),
      );
      const refreshed = keep(
        await send(
          http,
          url,
          form({ grant_type: 'refresh_token', ...pwClient, refresh_token: String(alice.json?.refresh_token) }),
        ),
      );
      assert.equal(refreshed.status, 200);
      assert.equal(
        (
          await send(
            http,
            url,
            form({ grant_type: 'refresh_token', ...pwClient, refresh_token: String(alice.json?.refresh_token) }),
          )
        ).status,
        400,
        'the replay',
      );
      for (const user of seed.users)
        keep(
          await send(
            http,
            url,
            form({ grant_type: 'password', ...pwClient, username: user.username, password: user.password }),
          ),
        );
      for (const c of seed.clients)
        keep(
          await send(
            http,
            url,
            form({ grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret }),
          ),
        );
      await send(
        http,
        url,
        form({ grant_type: 'client_credentials', client_id: 'us-cc-client', client_secret: 'wrong-secret-0123456789' }),
      );
      await send(
        http,
        url,
        form({ grant_type: 'password', ...pwClient, username: 'acme\\carol', password: 'wrong-password-0123456789' }),
      );
      await send(
        http,
        `${url}?client_secret=${encodeURIComponent(secretOf('us-cc-client'))}&password=${encodeURIComponent(passwordOf('acme\\alice'))}`,
        form({ grant_type: 'client_credentials', client_id: 'us-cc-client' }),
      );
      const at = String(cc.json?.access_token);
      assert.equal(
        (
          await send(http, `${server.baseUrl}/v1/people/er/E-1001`, {
            headers: { authorization: `Bearer ${at}`, accept: 'application/json' },
          })
        ).status,
        200,
      );
      await send(http, `${server.baseUrl}/v1/people/er/E-1001?access_token=${at}`, {
        headers: { accept: 'application/json' },
      });
      await send(http, `${server.baseUrl}/v1/people/er/E-1001`, {
        headers: { authorization: `Bearer ${at}x`, accept: 'application/json' },
      });
      await send(http, `${server.baseUrl}/v1/people/er/E-1001/notes`, {
        method: 'POST',
        headers: { authorization: `Bearer ${at}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: secretOf('us-cc-client') }),
      });
      await send(http, `${server.baseUrl}/v1/people/er/E-1001`, {
        headers: { authorization: `Bearer ${String(refreshed.json?.access_token)}`, accept: 'application/json' },
      });
    } finally {
      await http.close();
      await server.stop();
    }
    const log = server.stderr();
    try {
      assert.ok(log.includes('"level":20') || log.includes('"level":30'), 'setup: the flow was logged');
      assert.ok(
        log.includes('token issued') && log.includes('gateway refused the request'),
        'setup: grants and refusals were logged',
      );
      const basics = seed.clients.map((c) => basic(c.clientId, c.clientSecret));
      const searched =
        assertAbsent(log, seedSecrets, 'a seed secret or password') +
        assertAbsent(log, ['wrong-secret-0123456789', 'wrong-password-0123456789'], 'a wrong secret') +
        assertAbsent(log, tokens, 'a token') +
        assertAbsent(log, basics, 'a Basic credential');
      t.diagnostic(
        `log: ${log.split('\n').length - 1} lines, ${log.length} bytes; searched for ${searched} values (${tokens.length} tokens)`,
      );

      const db = new Database(file, { readonly: true });
      try {
        const hashes = [
          ...(db.prepare('SELECT secret_hash AS h FROM clients').all() as { h: string }[]),
          ...(db.prepare('SELECT password_hash AS h FROM users').all() as { h: string }[]),
        ].map((r) => r.h);
        assert.equal(hashes.length, seedSecrets.length);
        for (const h of hashes)
          assert.match(
            h,
            /^scrypt\$14\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/,
            'scrypt, N=2^14, r=8, p=1, 16-byte salt, 32-byte key',
          );
        assert.equal(new Set(hashes.map((h) => h.split('$')[4])).size, hashes.length, 'a salt per record');
        const rows = db.prepare('SELECT * FROM refresh_tokens').all() as Record<string, unknown>[];
        const stored = JSON.stringify(rows);
        const refreshTokens = tokens.filter((x) => !x.includes('.'));
        for (const rt of refreshTokens) {
          assert.equal(stored.includes(rt), false, 'a refresh token is stored in clear');
          assert.ok(
            rows.some((r) => r.token_hash === createHash('sha256').update(rt).digest('base64url')),
            'stored as its SHA-256',
          );
        }
        const dump = JSON.stringify([
          db.prepare('SELECT * FROM clients').all(),
          db.prepare('SELECT * FROM users').all(),
          db.prepare('SELECT * FROM meta').all(),
        ]);
        assertAbsent(dump, seedSecrets, 'a seed secret in the store');
      } finally {
        db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void test('the log of a portal session (level debug) holds no password, client secret, session id or CSRF token', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-secrets-portal-'));
    const server = await startPortalServer(join(dir, 'server.log'), { TC_LOG_LEVEL: 'debug' });
    const dispatcher = new Agent({ connect: { ca: readFileSync(server.caFile, 'utf8') } });
    const seen: string[] = [];
    const locations: string[] = [];
    const cookies = new Map<string, string>();
    let page = '';
    const go = async (method: 'GET' | 'POST', path: string, fields?: Record<string, string>): Promise<number> => {
      const r = await request(`${server.baseUrl}${path}`, {
        method,
        dispatcher,
        headers: {
          cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
          ...(fields && { 'content-type': 'application/x-www-form-urlencoded', origin: server.baseUrl }),
        },
        ...(fields && { body: new URLSearchParams(fields).toString() }),
      });
      const setCookie = r.headers['set-cookie'];
      for (const line of setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie]) {
        const [name = '', value = ''] = (line.split(';')[0] ?? '').split('=');
        if (value === '') cookies.delete(name);
        else {
          cookies.set(name, value);
          seen.push(value);
        }
      }
      if (typeof r.headers.location === 'string') locations.push(r.headers.location);
      page = await r.body.text();
      for (const m of page.matchAll(/name="csrf" value="([^"]+)"|<code id="client-secret">([^<]+)</g))
        seen.push(m[1] ?? m[2] ?? '');
      return r.statusCode;
    };
    const csrf = (): string => /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const newPassword = 'Paul-changed-in-log-test-2026';
    try {
      await go('GET', '/portal/sign-in');
      assert.equal(
        await go('POST', '/portal/sign-in', {
          csrf: csrf(),
          username: 'acme\\olivia-admin',
          password: 'wrong-portal-password-0123',
        }),
        401,
      );
      assert.equal(
        await go('POST', '/portal/sign-in', {
          csrf: csrf(),
          username: passwordOf('acme\\olivia-admin'),
          password: 'x',
        }),
        401,
        'a password typed into the user-name field',
      );
      assert.equal(
        await go('POST', '/portal/sign-in', {
          csrf: csrf(),
          username: 'acme\\olivia-admin',
          password: passwordOf('acme\\olivia-admin'),
        }),
        303,
      );
      await go('GET', '/portal/clients');
      assert.equal(
        await go('POST', '/portal/clients', {
          csrf: csrf(),
          name: 'log test',
          region: 'us',
          grant_client_credentials: 'on',
          role: 'people-reader',
        }),
        201,
      );
      const clientId = /<code id="client-id">([^<]+)</.exec(page)?.[1] ?? '';
      assert.equal(await go('POST', `/portal/clients/${clientId}/rotate`, { csrf: csrf() }), 200);
      assert.equal(await go('POST', `/portal/clients/${clientId}/delete`, { csrf: csrf() }), 200);
      assert.equal(await go('POST', '/portal/sign-out', { csrf: csrf() }), 200);
      await go('GET', '/portal/sign-in');
      assert.equal(
        await go('POST', '/portal/sign-in', {
          csrf: csrf(),
          username: 'acme\\paul-portal',
          password: passwordOf('acme\\paul-portal'),
        }),
        303,
      );
      await go('GET', '/portal/password');
      assert.equal(
        await go('POST', '/portal/password', {
          csrf: csrf(),
          current_password: passwordOf('acme\\paul-portal'),
          new_password: newPassword,
          confirm_password: newPassword,
        }),
        200,
      );
      assert.equal(await go('POST', '/portal/sign-out', { csrf: csrf() }), 200);
    } finally {
      await dispatcher.close();
      await server.stop();
    }
    try {
      const log = server.log();
      assert.ok(
        log.includes('portal sandbox client registered') && log.includes('portal password changed'),
        'setup: the portal flow was logged',
      );
      assert.ok(log.includes('portal sign-in refused'), 'setup: the refusals were logged');
      const secrets = seen.filter((v) => v.length >= 8);
      assert.ok(
        secrets.length >= 12,
        `setup: session ids, CSRF tokens and client secrets were collected (${secrets.length})`,
      );
      const n =
        assertAbsent(log, [...seedSecrets, 'wrong-portal-password-0123', newPassword], 'a password') +
        assertAbsent(log, secrets, 'a portal session id, CSRF token or client secret');
      for (const location of locations)
        assertAbsent(location, [...secrets, newPassword, ...seedSecrets], 'a secret in a redirect URL');
      t.diagnostic(
        `portal log: ${log.split('\n').length - 1} lines; searched for ${n} values; ${locations.length} redirects checked`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void test('equal secrets get different salts and hashes', async () => {
    const hasher = new ScryptSecretHasher(testScryptCost);
    const [a, b] = await Promise.all([hasher.hash('same-secret'), hasher.hash('same-secret')]);
    assert.notEqual(a.split('$')[4], b.split('$')[4]);
    assert.notEqual(a.split('$')[5], b.split('$')[5]);
  });

  void test('verify compares with crypto.timingSafeEqual (right and wrong secrets alike)', async () => {
    const spy = mock.method(crypto, 'timingSafeEqual');
    syncBuiltinESMExports();
    try {
      const hasher = new ScryptSecretHasher(testScryptCost);
      const h = await hasher.hash('right-secret');
      assert.equal(await hasher.verify('right-secret', h), true);
      assert.equal(await hasher.verify('wrong-secret', h), false);
      assert.equal(await hasher.verify('', h), false);
      assert.equal(spy.mock.callCount(), 3, 'every verification ends in one constant-time comparison');
      for (const call of spy.mock.calls) {
        const [x, y] = call.arguments as [Buffer, Buffer];
        assert.equal(x.length, 32);
        assert.equal(y.length, 32);
      }
    } finally {
      spy.mock.restore();
      syncBuiltinESMExports();
    }
  });

  const fullRun = process.env.TC_RELIABILITY_CONFORMANCE_RUN === '1';
  void test(
    'the reference server log of a conformance run holds no seed secret and no token the run saw',
    { skip: fullRun ? false : 'opt-in: TC_RELIABILITY_CONFORMANCE_RUN=1 (a Playwright run, ~25 s)', timeout: 600_000 },
    async (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'tc-secrets-run-'));
      const logFile = join(dir, 'reference.log');
      const seenFile = join(dir, 'seen-tokens.txt');
      try {
        const grep = process.env.TC_RELIABILITY_CONFORMANCE_GREP ?? '@grants';
        const args = [
          join(root, 'bin', 'token-conformance.js'),
          'run',
          '--target',
          join(root, 'profiles', 'reference.json'),
          '--start-reference',
          '--reports',
          join(dir, 'reports'),
          '--reference-log',
          logFile,
          '--keep-seen-tokens',
          seenFile,
          ...(grep === '' ? [] : ['--grep', grep]),
        ];
        const code = await new Promise<number | null>((resolve, reject) => {
          const child = spawn(process.execPath, args, {
            cwd: root,
            stdio: ['ignore', 'ignore', 'inherit'],
            env: { ...process.env, TC_LOG_LEVEL: 'debug' },
          });
          child.on('error', reject);
          child.on('exit', resolve);
        });
        assert.ok(code === 0 || code === 1, `the run completed (exit ${code})`);
        assert.ok(existsSync(logFile), 'the server log was kept');
        const log = readFileSync(logFile, 'utf8');
        const seen = existsSync(seenFile)
          ? readFileSync(seenFile, 'utf8')
              .split('\n')
              .filter((l) => l.trim() !== '')
          : [];
        assert.ok(log.includes('token issued'), 'setup: the run was logged');
        assert.ok(seen.length > 0, 'setup: the run saw tokens');
        const n =
          assertAbsent(log, seedSecrets, 'a seed secret or password') +
          assertAbsent(log, new Set(seen), 'a token the run saw');
        t.diagnostic(
          `conformance run (--grep ${grep || '(all)'}): exit ${code}; server log ${log.split('\n').length - 1} lines; searched for ${n} values (${new Set(seen).size} tokens)`,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
