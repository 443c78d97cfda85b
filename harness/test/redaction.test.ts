// No client secret, password, access or refresh token may reach reports/ or the terminal. Unit
// tests of the redactor, then the proof: a whole run against the bundled reference server with
// known secrets, searching every report file and every line printed.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runMain } from '../commands/run.command.ts';
import { loadProfile } from '../profile/load-profile.ts';
import { REDACTED, Redactor, redactShapes, secretsFromEnv } from '../redaction/redact.ts';
import { findSecrets, listFiles, scrubDirectory } from '../redaction/scrub-directory.ts';

const root = join(import.meta.dirname, '..', '..');
const jwt = 'eyJhbGciOiJFUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiJ1cy1jYy1jbGllbnQiLCJleHAiOjE3MDAwMDAwMDB9.c2lnbmF0dXJlLXNpZ25hdHVyZS1zaWduYXR1cmU';
const opaque = 'Zk3xQ9v_Lm2Pq8Rt5Wy1Ab4Cd7Ef0Gh3Jk6Np9';

void describe('redactor', () => {
  void test('known values, also form-encoded and URI-encoded', () => {
    const r = new Redactor(['p+a&s=s%w rd é']);
    const form = new URLSearchParams({ pw: 'p+a&s=s%w rd é' }).toString();
    assert.ok(!r.redact(`x ${form} y`).includes('s%25w'), r.redact(form));
    assert.equal(r.redact('say p+a&s=s%w rd é now'), `say ${REDACTED} now`);
  });

  const shapes: [string, string, string][] = [
    ['form secret fields', 'client_id=c&client_secret=abc&password=def&grant_type=password', `client_id=c&client_secret=${REDACTED}&password=${REDACTED}&grant_type=password`],
    ['JSON token members', '{"access_token":"abc","refresh_token":"def","token_type":"Bearer"}', `{"access_token":"${REDACTED}","refresh_token":"${REDACTED}","token_type":"Bearer"}`],
    ['a bearer header', 'authorization: Bearer abcdefghijklmnop', `authorization: Bearer ${REDACTED}`],
    ['a Basic credential', 'Basic dXMtY2MtY2xpZW50OnNlY3JldA==', `Basic ${REDACTED}`],
    ['a JWT anywhere', `token ${jwt} here`, `token ${REDACTED} here`],
    ['a refresh-token-shaped value', `rt ${opaque}.`, `rt ${REDACTED}.`],
  ];
  for (const [name, input, expected] of shapes) void test(`shape: ${name}`, () => assert.equal(redactShapes(input), expected));

  const kept: [string, string][] = [
    ['a gateway code', '{"code":"000-1202","message":"Unauthorized"}'],
    ['a challenge realm', 'www-authenticate: Bearer realm="data-services"'],
    ['a UUID', 'id 0fab9310-c415-43d7-94f0-614be059afa2'],
    ['a hex digest', 'sha 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
    ['an error code', '{"error":"invalid_grant","error_description":"The password has expired."}'],
  ];
  for (const [name, input] of kept) void test(`keeps ${name}`, () => assert.equal(redactShapes(input), input));

  void test('deep values: secret-named members replaced whatever their content', () => {
    const r = new Redactor();
    assert.deepEqual(r.redactValue({ a: { client_secret: 'x', Authorization: 'Bearer y', keep: 'z' } }), { a: { client_secret: REDACTED, Authorization: REDACTED, keep: 'z' } });
  });

  void test('secrets from the environment: prefixed variables and the listed ones', () => {
    assert.deepEqual(secretsFromEnv({ TOKEN_CONFORMANCE_SECRET_A: 'one', OTHER: 'two', MINE: 'three', TOKEN_CONFORMANCE_SECRET_ENV: 'MINE' }).sort(), ['one', 'three']);
  });

  void test('scrubDirectory rewrites every text file and findSecrets finds what is left', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-scrub-'));
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'a.json'), `{"x":"super-secret-1"}`);
    writeFileSync(join(dir, 'sub', 'b.txt'), `token ${jwt}`);
    assert.equal(findSecrets(dir, ['super-secret-1', jwt]).length, 2);
    scrubDirectory(dir, new Redactor(['super-secret-1']));
    assert.deepEqual(findSecrets(dir, ['super-secret-1', jwt]), []);
  });
});

void describe('no secret in reports/ or the terminal (a full run against the reference server)', () => {
  void test('run --start-reference with known secrets, then search every file and line', { timeout: 180_000 }, async () => {
    const reports = mkdtempSync(join(tmpdir(), 'tc-reports-'));
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
    const code = await runMain(['--target', join(root, 'profiles', 'reference.json'), '--start-reference', '--reports', reports], io);
    assert.ok(code === 0 || code === 1, `the run judged (exit ${code}):\n${lines.slice(-30).join('\n')}`);
    const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as { checks: { total: number } };
    assert.ok(report.checks.total > 0, 'checks ran');
    assert.ok(listFiles(join(reports, 'allure-results')).length > 0, 'allure results were written');

    const secrets = loadProfile(join(root, 'profiles', 'reference.json')).secrets.map((s) => s.value);
    assert.ok(secrets.length >= 10);
    const encoded = secrets.map((s) => new URLSearchParams({ v: s }).toString().slice(2)).filter((s, i) => s !== secrets[i]);
    assert.deepEqual(findSecrets(reports, [...secrets, ...encoded]), [], 'a secret survived in a report file');
    const jwtShape = /eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]+/;
    for (const file of listFiles(reports)) assert.ok(!jwtShape.test(readFileSync(file, 'latin1')), `a JWT survived in ${file}`);
    const terminal = lines.join('\n');
    for (const s of [...secrets, ...encoded]) assert.ok(!terminal.includes(s), 'a secret reached the terminal');
    assert.ok(!jwtShape.test(terminal), 'a token reached the terminal');
  });
});
