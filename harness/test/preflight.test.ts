// Self-diagnosis before judging: the classifier on synthetic answers (both sides: setup problems,
// and non-conformant targets that must still be judged), the TLS trust line against a real HTTPS
// server, and the preflight of `run` against the reference server (every secret wrong → one
// "setup problem" line, exit 2, nothing run; one secret wrong → a note, and the run goes on).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { generate } from 'selfsigned';
import { runMain } from '../commands/run.command.ts';
import { reduceAnswer, type ProbeAnswer } from '../parity/region-parity.ts';
import { classifyPreflight, profileErrorLine, type ClientProbe, type UserProbe } from '../preflight/preflight.ts';
import { schemeOrTlsFix, unreachableProblem } from '../reference/reachability.ts';
import { temporaryDirectory } from './support/temporary-directory.ts';

const root = join(import.meta.dirname, '..', '..');
const error = (code: string, status = 400): ProbeAnswer => reduceAnswer(status, JSON.stringify({ error: code }));
const token = (extra: Record<string, unknown> = {}): ProbeAnswer =>
  reduceAnswer(
    200,
    JSON.stringify({ access_token: 'opaque-token-value-0123456789', token_type: 'Bearer', expires_in: 3600, ...extra }),
  );
const probe = (client: ClientProbe['client'], answer?: ProbeAnswer & { retryAfter?: string }): ClientProbe => ({
  client,
  field: `credentials.clients.${client}.clientSecret ($${client.toUpperCase()}_SECRET)`,
  region: client === 'euClient' ? 'eu' : 'us',
  ...(answer ? { answer } : {}),
});

void describe('preflight: setup problems', () => {
  void test('every configured client refused with invalid_client: one line naming the fields to fix', () => {
    const r = classifyPreflight({
      clients: [
        probe('usClient', error('invalid_client')),
        probe('euClient', error('invalid_client', 401)),
        probe('usClient2', error('invalid_client')),
      ],
      environment: 'sandbox',
    });
    assert.match(
      r.problem ?? '',
      /^every configured client was refused with invalid_client \(credentials\.clients\.usClient\.clientSecret \(\$USCLIENT_SECRET\), credentials\.clients\.euClient\.clientSecret .*, credentials\.clients\.usClient2\.clientSecret .*\).*environment "sandbox".*fix credentials\.clients\.\*\.clientSecret/,
    );
  });

  void test('every call rate-limited: one line with the Retry-After', () => {
    const r = classifyPreflight({
      clients: [probe('usClient', { status: 429, retryAfter: '30' }), probe('euClient', { status: 429 })],
    });
    assert.match(
      r.problem ?? '',
      /^every preflight call was rate-limited \(429 on 2 of 2 token requests, Retry-After 30 s\)/,
    );
  });

  void test('the EU address answering like the US one: EU client refused, US client given a token without the EU scope', () => {
    const r = classifyPreflight({
      clients: [probe('usClient', token()), probe('euClient', error('invalid_client'))],
      usClientAtEu: token(),
      authUrlEu: 'https://us.example.com',
    });
    assert.match(
      r.problem ?? '',
      /^authUrlEu \(https:\/\/us\.example\.com\) answers like the US token server: it refuses the EU client \(credentials\.clients\.euClient\.clientSecret .*\) with invalid_client and gives the US client a token without a scope.*set authUrlEu/,
    );
    const withUsScope = classifyPreflight({
      clients: [probe('usClient', token()), probe('euClient', error('invalid_client'))],
      usClientAtEu: token({ scope: 'email openid profile company' }),
    });
    assert.match(withUsScope.problem ?? '', /with scope "email openid profile company", not the EU scope/);
  });

  void test('a scheme the server does not speak, a certificate for another host: one line saying what to change', () => {
    assert.equal(
      schemeOrTlsFix(
        'authUrlUs',
        'https://127.0.0.1:8080',
        'ERR_SSL_WRONG_VERSION_NUMBER',
        'error:0A00010B:SSL routines:ssl3_get_record:wrong version number',
      ),
      'authUrlUs https://127.0.0.1:8080: the server answers plain HTTP there, not TLS — set authUrlUs to http://127.0.0.1:8080 (plain HTTP needs "local": true) or to the address where it speaks TLS',
    );
    assert.equal(
      schemeOrTlsFix('baseUrl', 'http://127.0.0.1:8443', 'UND_ERR_SOCKET', 'other side closed'),
      'baseUrl http://127.0.0.1:8443: the server closed the connection without an HTTP answer — if it speaks TLS there, set baseUrl to https://127.0.0.1:8443',
    );
    assert.match(
      schemeOrTlsFix(
        'authUrlEu',
        'https://eu.example.com',
        'ERR_TLS_CERT_ALTNAME_INVALID',
        'Hostname/IP does not match',
      ) ?? '',
      /not issued for eu\.example\.com/,
    );
    assert.equal(
      schemeOrTlsFix('authUrlUs', 'https://a.example.com', 'ECONNREFUSED', 'connect ECONNREFUSED'),
      undefined,
      'nothing listening is not a scheme problem',
    );
    assert.match(
      unreachableProblem([
        {
          field: 'authUrlUs',
          url: 'https://a',
          problem: 'ERR_SSL_WRONG_VERSION_NUMBER',
          fix: 'authUrlUs https://a: use http',
        },
      ]),
      /^authUrlUs https:\/\/a: use http$/,
    );
  });

  void test('TLS trust failures and unreachable addresses: one line, caFile named for TLS', () => {
    assert.equal(
      unreachableProblem([
        { field: 'authUrlUs', url: 'https://a', problem: 'x', tlsTrust: true },
        { field: 'baseUrl', url: 'https://b', problem: 'refused' },
      ]),
      'the TLS certificate of authUrlUs (https://a) is not trusted — set caFile to the PEM of the CA that signs it',
    );
    assert.equal(
      unreachableProblem([
        { field: 'authUrlUs', url: 'https://a', problem: 'refused' },
        { field: 'baseUrl', url: 'https://b', problem: 'refused' },
      ]),
      'authUrlUs, baseUrl not reachable (see above) — check the addresses in the profile',
    );
  });
});

void describe('preflight: a non-conformant target is judged, not diagnosed', () => {
  const judged: [string, Parameters<typeof classifyPreflight>[0]][] = [
    [
      'one client refused among clients that authenticate',
      {
        clients: [
          probe('usClient', token()),
          probe('usClient2', error('invalid_client')),
          probe('euClient', token({ scope: 'empty_default' })),
        ],
      },
    ],
    [
      'some calls rate-limited, not all',
      { clients: [probe('usClient', { status: 429 }), probe('euClient', token({ scope: 'empty_default' }))] },
    ],
    ['every call answered 500', { clients: [probe('usClient', { status: 500 }), probe('euClient', { status: 500 })] }],
    ['a client refused with 403 (not invalid_client)', { clients: [probe('usClient', { status: 403 })] }],
    [
      'wrong-client errors that are not invalid_client (unauthorized_client proves the secret)',
      { clients: [probe('usClient2', error('unauthorized_client')), probe('usClient', error('invalid_client'))] },
    ],
    [
      'an EU endpoint without the EU scope, whose EU client authenticates',
      { clients: [probe('usClient', token()), probe('euClient', token())], usClientAtEu: token() },
    ],
    [
      'EU client refused, and the US client refused at the EU endpoint too (OI-23 invalid_client)',
      {
        clients: [probe('usClient', token()), probe('euClient', error('invalid_client'))],
        usClientAtEu: error('invalid_client'),
      },
    ],
    [
      'EU client refused, the US client accepted at the EU endpoint with the EU scope (OI-23 accepted)',
      {
        clients: [probe('usClient', token()), probe('euClient', error('invalid_client'))],
        usClientAtEu: token({ scope: 'empty_default' }),
      },
    ],
    ['no answer at all (reachability speaks for it)', { clients: [probe('usClient')] }],
  ];
  for (const [name, observations] of judged) {
    void test(name, () => assert.equal(classifyPreflight(observations).problem, undefined));
  }

  void test('a refused client among others is a profile error naming its field and the answer', () => {
    const r = classifyPreflight({
      clients: [probe('usClient', token()), probe('usCcOnlyClient', error('invalid_client'))],
    });
    assert.equal(r.problem, undefined, 'the run goes on: the other clients work');
    assert.deepEqual(r.profileErrors?.map(profileErrorLine), [
      'profile error: credentials.clients.usCcOnlyClient.clientSecret ($USCCONLYCLIENT_SECRET) was refused by the target (HTTP 400 invalid_client) — fix the client id or secret',
    ]);
    assert.equal(r.refusedClients, undefined, 'not a lockout');
  });

  void test('a password client refused on the client_credentials probe is named but still used (the grant may not be its own)', () => {
    const r = classifyPreflight({
      clients: [
        probe('usClient', token()),
        probe('usClient2', error('invalid_client')),
        probe('usPasswordClient', error('invalid_client')),
      ],
    });
    assert.equal(r.problem, undefined);
    assert.deepEqual(
      r.notes,
      ['usClient2', 'usPasswordClient'].map(
        (c) =>
          `credentials.clients.${c}.clientSecret ($${c.toUpperCase()}_SECRET) was refused with invalid_client on the preflight's client_credentials request, a grant this password client may not be registered for: ${c} is still used, and its password checks judge its credentials`,
      ),
    );
    assert.equal(r.refusedClients, undefined);
    assert.equal(r.profileErrors, undefined);
  });

  void test('a user whose password grant is refused with invalid_grant is a profile error; invalid_client there names the password client; other answers are not', () => {
    const user = (name: UserProbe['user'], answer: ProbeAnswer): UserProbe => ({
      user: name,
      field: `credentials.users.${name}.password`,
      client: 'usPasswordClient',
      clientField: 'credentials.clients.usPasswordClient.clientSecret',
      answer,
    });
    const r = classifyPreflight({
      clients: [probe('usPasswordClient', token())],
      users: [
        user('user', token()),
        user('burnableUser', error('invalid_grant')),
        user('wrongRoleUser', error('unauthorized_client')),
        user('specialCharsUser', { status: 429 }),
      ],
    });
    assert.deepEqual(r.profileErrors?.map(profileErrorLine), [
      'profile error: credentials.users.burnableUser.password was refused by the target (HTTP 400 invalid_grant) — fix the username or password (sent with usPasswordClient)',
    ]);
    const wrongClient = classifyPreflight({
      clients: [probe('usClient', token()), probe('usPasswordClient', error('invalid_client'))],
      users: [user('user', error('invalid_client')), user('burnableUser', error('invalid_client'))],
    });
    assert.deepEqual(wrongClient.profileErrors?.map(profileErrorLine), [
      'profile error: credentials.clients.usPasswordClient.clientSecret was refused by the target (HTTP 400 invalid_client) — fix the client id or secret',
    ]);
  });

  void test('a client locked out already (429) among others is named, with its Retry-After, and not used', () => {
    const r = classifyPreflight({
      clients: [
        probe('usClient', token()),
        probe('usPasswordClient', { status: 429, retryAfter: '900' }),
        probe('euClient', token({ scope: 'empty_default' })),
      ],
    });
    assert.equal(r.problem, undefined);
    assert.deepEqual(r.notes, [
      'usPasswordClient is locked out already (429, Retry-After 900 s in the preflight): it is not used in this run and the checks that need it are BLOCKED (the other clients work)',
    ]);
    assert.deepEqual(
      r.refusedClients?.map((c) => [c.client, c.answer.retryAfter]),
      [['usPasswordClient', '900']],
    );
  });

  void test('clients that work are not named', () => {
    const r = classifyPreflight({
      clients: [probe('usClient', token()), probe('euClient', token({ scope: 'empty_default' }))],
    });
    assert.deepEqual(r.notes, []);
    assert.equal(r.refusedClients, undefined);
  });
});

function capture() {
  const lines: string[] = [];
  return { lines, io: { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) } };
}

/** profiles/reference.json with some client secrets (and user passwords) replaced. */
function referenceWith(
  dir: string,
  name: string,
  wrong: (client: string) => boolean,
  wrongUser: (user: string) => boolean = () => false,
): string {
  const profile = JSON.parse(readFileSync(join(root, 'profiles', 'reference.json'), 'utf8')) as {
    credentials: {
      clients: Record<string, { clientSecret: { value: string } }>;
      users: Record<string, { password: { value: string } }>;
    };
  };
  for (const [client, c] of Object.entries(profile.credentials.clients))
    if (wrong(client)) c.clientSecret = { value: `${c.clientSecret.value}-wrong` };
  for (const [user, u] of Object.entries(profile.credentials.users))
    if (wrongUser(user)) u.password = { value: `${u.password.value}-wrong` };
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ ...profile, $schema: undefined }));
  return file;
}

void describe('preflight in `run`, against the reference server', () => {
  const dir = temporaryDirectory('tc-preflight-');

  void test('every secret wrong: one "setup problem" line, exit 2, no check run', async () => {
    const reports = join(dir, 'wrong-reports');
    const c = capture();
    const code = await runMain(
      [
        '--target',
        referenceWith(dir, 'wrong.json', () => true),
        '--start-reference',
        '--grep',
        '@GRANT-CC-001',
        '--passes',
        'conformance',
        '--reports',
        reports,
      ],
      c.io,
    );
    assert.equal(code, 2, c.lines.join('\n'));
    const setup = c.lines.filter((l) => l.includes('setup problem'));
    assert.equal(setup.length, 1, c.lines.join('\n'));
    assert.match(
      setup[0]!,
      /^token-conformance run: setup problem: every configured client was refused with invalid_client \(credentials\.clients\.usClient\.clientSecret, .*environment "sandbox".*nothing was run/,
    );
    assert.ok(!c.lines.some((l) => /FAIL/.test(l)), 'no wall of FAILs');
    assert.equal(existsSync(join(reports, 'conformance.json')), false, 'nothing was judged');
    assert.ok(!c.lines.some((l) => l.includes('-wrong')), 'the (wrong) secrets are not printed');
  });

  void test('--skip-preflight judges the same target anyway (the checks then FAIL)', async () => {
    const reports = join(dir, 'skip-reports');
    const c = capture();
    const code = await runMain(
      [
        '--target',
        join(dir, 'wrong.json'),
        '--start-reference',
        '--grep',
        '@GRANT-CC-001',
        '--passes',
        'conformance',
        '--reports',
        reports,
        '--skip-preflight',
      ],
      c.io,
    );
    assert.equal(code, 1, c.lines.join('\n'));
    assert.ok(
      c.lines.some((l) =>
        /^token-conformance run: preflight \(skipped on request\): every configured client was refused/.test(l),
      ),
    );
    const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as {
      requirements: { id: string; verdict: string }[];
    };
    assert.equal(report.requirements.find((r) => r.id === 'GRANT-CC-001')?.verdict, 'FAIL');
  });

  void test('one secret wrong: a named profile error, and the run judges the target; its checks are BLOCKED by the profile, the report opens with it', async () => {
    const reports = join(dir, 'one-reports');
    const c = capture();
    const code = await runMain(
      [
        '--target',
        referenceWith(dir, 'one-wrong.json', (client) => client === 'usClient2'),
        '--start-reference',
        '--grep',
        '@GRANT-CC-001|@GRANT-RT-006',
        '--passes',
        'conformance',
        '--reports',
        reports,
      ],
      c.io,
    );
    assert.equal(code, 0, c.lines.join('\n'));
    assert.ok(
      c.lines.some((l) =>
        /^token-conformance run: profile error: credentials\.clients\.usClient2\.clientSecret was refused by the target \(HTTP 400 invalid_client\)/.test(
          l,
        ),
      ),
      c.lines.join('\n'),
    );
    assert.ok(!c.lines.some((l) => l.includes('setup problem')));
    const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as {
      profileProblems?: string[];
      requirements: { id: string; verdict: string; blockedByProfile?: string }[];
    };
    assert.match(report.profileProblems?.[0] ?? '', /credentials\.clients\.usClient2\.clientSecret/);
    assert.equal(report.requirements.find((r) => r.id === 'GRANT-CC-001')?.verdict, 'PASS');
    const rt006 = report.requirements.find((r) => r.id === 'GRANT-RT-006');
    assert.deepEqual(
      [rt006?.verdict, rt006?.blockedByProfile],
      ['BLOCKED', 'credentials.clients.usClient2.clientSecret'],
      "another client's wrong secret would read invalid_client, not invalid_grant: BLOCKED by the profile, not a FAIL",
    );
    assert.ok(!report.requirements.some((r) => r.verdict === 'FAIL'), 'no FAIL caused by the profile');
    assert.match(readFileSync(join(reports, 'traceability.html'), 'utf8'), /<div id="profile-error"/);
  });

  void test('--check-profile: one user password wrong is a named profile error, exit 2', async () => {
    const c = capture();
    const code = await runMain(
      [
        '--target',
        referenceWith(
          dir,
          'user-wrong.json',
          () => false,
          (user) => user === 'burnableUser',
        ),
        '--start-reference',
        '--check-profile',
        '--reports',
        join(dir, 'user-reports'),
      ],
      c.io,
    );
    assert.equal(code, 2, c.lines.join('\n'));
    assert.ok(
      c.lines.some((l) =>
        /^token-conformance run: profile error: credentials\.users\.burnableUser\.password was refused by the target \(HTTP 400 invalid_grant\)/.test(
          l,
        ),
      ),
      c.lines.join('\n'),
    );
    assert.ok(!c.lines.some((l) => l.includes('-wrong')), 'the (wrong) password is not printed');
  });

  void test('an HTTPS address whose certificate is not trusted: one "setup problem" line naming caFile', async () => {
    const pems = await generate([{ name: 'commonName', value: 'untrusted' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
    });
    const server = createServer({ key: pems.private, cert: pems.cert }, (_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const file = join(dir, 'untrusted.json');
      writeFileSync(file, JSON.stringify({ name: 'untrusted', authUrlUs: url, baseUrl: url }));
      const c = capture();
      assert.equal(await runMain(['--target', file, '--reports', join(dir, 'untrusted-reports')], c.io), 2);
      const setup = c.lines.filter((l) => l.includes('setup problem'));
      assert.equal(setup.length, 1, c.lines.join('\n'));
      assert.match(
        setup[0]!,
        /setup problem: the TLS certificate of authUrlUs \(https:\/\/127\.0\.0\.1:\d+\), baseUrl \(https:\/\/127\.0\.0\.1:\d+\) is not trusted — set caFile/,
      );
    } finally {
      server.close();
    }
  });
});
