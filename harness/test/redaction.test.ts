// No client secret, password, access or refresh token may reach reports/ or the terminal. Unit
// tests of the redactor, then the proof: a whole run against the bundled reference server with
// known secrets, searching every report file and every line printed.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runMain } from '../commands/run.command.ts';
import { loadProfile } from '../../core/profile/load-profile.ts';
import { minimumSecretLength, REDACTED, Redactor, redactShapes, secretsFromEnv } from '../../core/redaction/redact.ts';
import { findSecrets, listFiles } from '../../core/redaction/report-files.ts';
import { endOfRunRedaction } from '../../core/redaction/end-of-run.ts';
import { SecretMatcher } from '../../core/redaction/secret-matcher.ts';
import { verifyReports } from '../../core/redaction/verify-reports.ts';
import { writeRunManifest } from '../../core/run/run-manifest.ts';
import { temporaryDirectory } from './support/temporary-directory.ts';

const root = join(import.meta.dirname, '..', '..');
const jwt =
  'eyJhbGciOiJFUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiJ1cy1jYy1jbGllbnQiLCJleHAiOjE3MDAwMDAwMDB9.c2lnbmF0dXJlLXNpZ25hdHVyZS1zaWduYXR1cmU';
const opaque = 'Zk3xQ9v_Lm2Pq8Rt5Wy1Ab4Cd7Ef0Gh3Jk6Np9';

void describe('redactor', () => {
  void test('known values, also form-encoded and URI-encoded', () => {
    const r = new Redactor(['p+a&s=s%w rd é']);
    const form = new URLSearchParams({ pw: 'p+a&s=s%w rd é' }).toString();
    assert.ok(!r.redact(`x ${form} y`).includes('s%25w'), r.redact(form));
    assert.equal(r.redact('say p+a&s=s%w rd é now'), `say ${REDACTED} now`);
  });

  const shapes: [string, string, string][] = [
    [
      'form secret fields',
      'client_id=c&client_secret=abc&password=def&grant_type=password',
      `client_id=c&client_secret=${REDACTED}&password=${REDACTED}&grant_type=password`,
    ],
    [
      'JSON token members',
      '{"access_token":"abc","refresh_token":"def","token_type":"Bearer"}',
      `{"access_token":"${REDACTED}","refresh_token":"${REDACTED}","token_type":"Bearer"}`,
    ],
    ['a bearer header', 'authorization: Bearer abcdefghijklmnop', `authorization: Bearer ${REDACTED}`],
    ['a Basic credential', 'Basic dXMtY2MtY2xpZW50OnNlY3JldA==', `Basic ${REDACTED}`],
    ['a JWT anywhere', `token ${jwt} here`, `token ${REDACTED} here`],
    ['a refresh-token-shaped value', `rt ${opaque}.`, `rt ${REDACTED}.`],
  ];
  for (const [name, input, expected] of shapes)
    void test(`shape: ${name}`, () => assert.equal(redactShapes(input), expected));

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
    assert.deepEqual(r.redactValue({ a: { client_secret: 'x', Authorization: 'Bearer y', keep: 'z' } }), {
      a: { client_secret: REDACTED, Authorization: REDACTED, keep: 'z' },
    });
  });

  void test('secrets from the environment: prefixed variables and the listed ones', () => {
    assert.deepEqual(
      secretsFromEnv({
        TOKEN_CONFORMANCE_SECRET_A: 'one',
        OTHER: 'two',
        MINE: 'three',
        TOKEN_CONFORMANCE_SECRET_ENV: 'MINE',
      }).sort(),
      ['one', 'three'],
    );
  });

  void test(`values shorter than ${minimumSecretLength} characters are not redacted by value; by field name they are`, () => {
    const r = new Redactor(['spec', 'admin12']);
    assert.equal(r.redact('specs/grants/x.spec.ts admin12'), 'specs/grants/x.spec.ts admin12');
    assert.equal(r.redact('client_secret=spec&x=1'), `client_secret=${REDACTED}&x=1`);
  });

  void test('a title that reads like a header is not a credential; a real one is', () => {
    assert.equal(
      redactShapes('protected call: Authorization: Bearer › BEARER-002 x'),
      'protected call: Authorization: Bearer › BEARER-002 x',
    );
    assert.equal(redactShapes('Authorization: Bearer abcdefgh12'), `Authorization: Bearer ${REDACTED}`);
  });

  void test('a value inside JSON text (a counterexample) is found in its escaped form, and the JSON stays valid', () => {
    const secret = 'q"uo\\te-s3cret é';
    const json = JSON.stringify([{ body: `x${secret}y`, end: `${secret}\\` }]);
    const out = new Redactor([secret]).redact(json);
    assert.doesNotThrow(() => JSON.parse(out), out);
    assert.ok(!out.includes('s3cret'), out);
  });

  void test('the matcher finds every value, overlapping ones joined', () => {
    const m = new SecretMatcher(['abcdefgh', 'defghijk', 'zzzzzzzz', 'bcd']);
    assert.deepEqual(m.ranges('..abcdefghijk..zzzzzzzzz..bcd'), [
      [2, 13],
      [15, 24],
      [26, 29],
    ]);
    assert.deepEqual(new SecretMatcher([]).ranges('anything'), []);
  });
});

void describe('end-of-run verification of a reports directory', () => {
  const secret = 'super-secret-1';
  const setup = () => {
    const dir = temporaryDirectory('tc-verify-');
    mkdirSync(join(dir, 'allure-results'));
    writeFileSync(
      join(dir, 'checks.json'),
      `${JSON.stringify({ checks: [{ title: `specs/a.spec.ts › a title naming ${secret}`, file: 'specs/a.spec.ts' }] }, null, 2)}\n`,
    );
    writeFileSync(
      join(dir, 'allure-results', 'r-result.json'),
      JSON.stringify({
        name: `a title naming ${secret}`,
        steps: [{ statusDetails: { message: `got "x${secret}\\"` } }],
      }),
    );
    writeFileSync(join(dir, 'note.txt'), `line 1\nBearer ${jwt}\n`);
    writeFileSync(
      join(dir, 'junit.xml'),
      `<testsuites>\n<testcase name="a title naming ${secret}">\n<failure message="got ${secret}"/>\n</testcase>\n</testsuites>\n`,
    );
    return dir;
  };

  void test('clean files are left alone, and a title that contains a secret value is not a finding', () => {
    const dir = setup();
    writeFileSync(join(dir, 'junit.xml'), `<testcase name="a title naming ${secret}"/>\n`);
    rmSync(join(dir, 'allure-results'), { recursive: true });
    rmSync(join(dir, 'note.txt'));
    const before = readFileSync(join(dir, 'checks.json'), 'utf8');
    const v = verifyReports(dir, [secret], { ownText: [`a title naming ${secret}`] });
    assert.deepEqual([v.remaining, v.repaired], [[], []]);
    assert.equal(readFileSync(join(dir, 'checks.json'), 'utf8'), before);
  });

  void test('JSON and line text are repaired structurally; XML is reported by file:line, exit 2', () => {
    const dir = setup();
    const env = { TOKEN_CONFORMANCE_SECRET_X: secret, ...writeRunManifest(dir, { seenTokens: join(dir, 'none') }) };
    const result = endOfRunRedaction(dir, env);
    assert.equal(result.code, 2);
    assert.equal(result.lines.filter((l) => l.includes('remains')).length, 1, result.lines.join('\n'));
    assert.match(
      result.lines.find((l) => l.includes('remains'))!,
      /junit\.xml:3: a known secret value \(14 characters\) remains/,
    );
    assert.ok(
      result.lines.some((l) => /allure-results\/r-result\.json:1: a known secret value .* redacted there/.test(l)),
      result.lines.join('\n'),
    );
    assert.ok(
      result.lines.some((l) => /note\.txt:2: a JWT-shaped token .* redacted there/.test(l)),
      result.lines.join('\n'),
    );
    const allure = JSON.parse(readFileSync(join(dir, 'allure-results', 'r-result.json'), 'utf8')) as {
      name: string;
      steps: { statusDetails: { message: string } }[];
    };
    assert.equal(allure.name, `a title naming ${secret}`, 'the title is kept');
    assert.equal(allure.steps[0]!.statusDetails.message, `got "x${REDACTED}\\"`);
    assert.equal(readFileSync(join(dir, 'note.txt'), 'utf8'), `line 1\nBearer ${REDACTED}\n`);
    assert.equal(endOfRunRedaction(dir, env).lines.length, 1, 'a second pass finds only the XML finding');
  });

  // A target chooses its tokens: one that is the page's own word, or text it also sends elsewhere.
  const targetsToken = 'requirements';
  const pageAndSeenTokens = (xml: string) => {
    const dir = temporaryDirectory('tc-verify-');
    writeFileSync(join(dir, 'junit.xml'), xml);
    writeFileSync(join(dir, 'traceability.html'), `<h2>All requirements</h2>\n<p>${jwt}</p>\n`);
    const seen = join(temporaryDirectory('tc-seen-'), 'seen-tokens.txt');
    writeFileSync(seen, `${targetsToken}\n${jwt}\n`);
    return { dir, seen, env: { TOKEN_CONFORMANCE_SECRET_X: secret, ...writeRunManifest(dir, { seenTokens: seen }) } };
  };

  void test("the target's own tokens left in a file that cannot be rewritten are named, not a failure", () => {
    const { dir, env } = pageAndSeenTokens(`<testsuites name="requirements"/>\n`);
    const result = endOfRunRedaction(dir, env);
    assert.equal(result.code, 0, result.lines.join('\n'));
    assert.ok(!result.lines.some((l) => l.includes('do not share')), result.lines.join('\n'));
    const notes = result.lines.filter((l) => /the target's own value, not a secret of the profile/.test(l));
    assert.deepEqual(
      notes.map(
        (l) => /(junit\.xml|traceability\.html):\d+: (a token the target issued|a JWT-shaped token)/.exec(l)?.[0],
      ),
      [
        'junit.xml:1: a token the target issued',
        'traceability.html:1: a token the target issued',
        'traceability.html:2: a token the target issued',
        'traceability.html:2: a JWT-shaped token',
      ],
      result.lines.join('\n'),
    );
  });

  void test('a secret of the profile still fails the run, also inside a token the target issued', () => {
    const { dir, env } = pageAndSeenTokens(`<testsuites name="requirements ${secret}"/>\n`);
    const result = endOfRunRedaction(dir, env);
    assert.equal(result.code, 2, result.lines.join('\n'));
    assert.match(
      result.lines.find((l) => l.includes('do not share'))!,
      /junit\.xml:1: a known secret value \(14 characters\) remains/,
    );
    const echoed = pageAndSeenTokens(`<testsuites name="tok-${secret}-en"/>\n`);
    writeFileSync(echoed.seen, `tok-${secret}-en\n`);
    assert.equal(endOfRunRedaction(echoed.dir, echoed.env).code, 2, 'the profile secret inside the target token');
  });

  void test('a JWT-shaped run is a secret unless the caller says it is the target text (an audit keeps it)', () => {
    const dir = temporaryDirectory('tc-verify-');
    writeFileSync(join(dir, 'junit.xml'), `<testcase name="x">${jwt}</testcase>\n`);
    assert.equal(verifyReports(dir, [secret]).remaining.length, 1);
    const asRun = verifyReports(dir, [secret], { tokenShapesAreTargetText: true });
    assert.deepEqual([asRun.remaining.length, asRun.targetText.length], [0, 1]);
  });
});

void describe('no secret in reports/ or the terminal (a full run against the reference server)', () => {
  void test(
    'run --start-reference with known secrets, then search every file and line',
    { timeout: 180_000 },
    async () => {
      const reports = temporaryDirectory('tc-reports-');
      const lines: string[] = [];
      const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
      const code = await runMain(
        ['--target', join(root, 'profiles', 'reference.json'), '--start-reference', '--reports', reports, '--allure'],
        io,
      );
      assert.ok(code === 0 || code === 1, `the run judged (exit ${code}):\n${lines.slice(-30).join('\n')}`);
      const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as {
        checks: { total: number };
      };
      assert.ok(report.checks.total > 0, 'checks ran');
      assert.ok(listFiles(join(reports, 'allure-results')).length > 0, 'allure results were written');

      const secrets = loadProfile(join(root, 'profiles', 'reference.json')).secrets.map((s) => s.value);
      assert.ok(secrets.length >= 10);
      const encoded = secrets
        .map((s) => new URLSearchParams({ v: s }).toString().slice(2))
        .filter((s, i) => s !== secrets[i]);
      assert.deepEqual(findSecrets(reports, [...secrets, ...encoded]), [], 'a secret survived in a report file');
      const jwtShape = /eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]+/;
      for (const file of listFiles(reports))
        assert.ok(!jwtShape.test(readFileSync(file, 'latin1')), `a JWT survived in ${file}`);
      const terminal = lines.join('\n');
      for (const s of [...secrets, ...encoded]) assert.ok(!terminal.includes(s), 'a secret reached the terminal');
      assert.ok(!jwtShape.test(terminal), 'a token reached the terminal');
    },
  );
});
