// Findings by cause: the classifier of a failed check's reason (failure-cause.ts), the grouping of
// requirements by cause (findings.ts), and the profile lines of the assumed choices (declare-these.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { classifyFailure } from '../reporter/failure-cause.ts';
import { findingsOf, groupedRequirements } from '../reporter/findings.ts';
import { allowedValues, assumptionsOf, observedValue, profileLine } from '../reporter/declare-these.ts';
import type { CheckResult, RequirementResult } from '../reporter/report.schema.ts';

type Judged = Pick<RequirementResult, 'id' | 'verdict' | 'reason' | 'checks'>;

const check = (verdict: CheckResult['verdict'], reason: string, extra: Partial<CheckResult> = {}): CheckResult => ({
  title: 'a check',
  verdict,
  durationMs: 1,
  reason,
  ...extra,
});
const requirement = (id: string, verdict: RequirementResult['verdict'], checks: CheckResult[]): Judged => ({
  id,
  verdict,
  ...(checks[0]?.reason ? { reason: checks[0].reason } : {}),
  checks,
});

void describe('classifyFailure', () => {
  const cases: { reason: string; key: string; sentence?: RegExp }[] = [
    {
      reason:
        'Error: expected token error invalid_request: status 403, expected 400; Content-Type (none), expected application/json; no string `error` member',
      key: 'content-type=none',
      sentence: /no Content-Type/,
    },
    {
      reason: 'client_secret omitted — got HTTP 403 (no content-type) ',
      key: 'content-type=none',
    },
    {
      reason: 'Error: the answer is a JSON error — got HTTP 403 (no content-type) (empty body)',
      key: 'content-type=none;body=empty',
      sentence: /no Content-Type and an empty body/,
    },
    {
      reason:
        'expected token error invalid_grant: status 403, expected 400; Content-Type text/html; charset=utf-8, expected application/json',
      key: 'content-type=text/html',
      sentence: /text\/html where application\/json/,
    },
    {
      reason: 'client_credentials at EU: Pragma — got Pragma: (none) — Expected value: "no-cache"',
      key: 'header-missing=pragma',
    },
    {
      reason: 'Received string:  "(no Strict-Transport-Security header)"',
      key: 'header-missing=strict-transport-security',
      sentence: /no Strict-Transport-Security header/,
    },
    {
      reason:
        'Error: a 401 carries WWW-Authenticate — got HTTP 401 application/json {"error":"invalid_client"} — Received: undefined',
      key: 'header-missing=www-authenticate',
    },
    {
      reason:
        'Error: expected token error unauthorized_client: error "invalid_request", expected "unauthorized_client"',
      key: 'error=invalid_request',
    },
    { reason: 'expected token error invalid_client | invalid_request: status 401, expected 400', key: 'status=401' },
    {
      reason: 'expected 400 invalid_client, got status 401 (HTTP 401 application/json error=invalid_client)',
      key: 'status=401',
    },
    // A success where a refusal was expected names the condition the target did not enforce: no shared cause.
    {
      reason:
        'expected token error invalid_grant: status 200, expected 400; no string `error` member; an access_token was issued',
      key: 'reason=R-1: expected token error invalid_grant: status 200, expected 400; no string `error` member; an access_token was issued',
    },
    {
      reason: 'the new refresh_token differs — Expected: false; Received: true',
      key: 'reason=R-1: the new refresh_token differs — Expected: false; Received: true',
    },
  ];
  for (const c of cases)
    void test(`${c.key.slice(0, 60)} ← ${c.reason.slice(0, 60)}`, () => {
      const cause = classifyFailure(c.reason, 'R-1');
      assert.equal(cause.key, c.key);
      if (c.sentence) assert.match(cause.sentence, c.sentence);
    });

  void test('a sentence of a recognised cause holds no byte of the answer beyond the parsed value', () => {
    const cause = classifyFailure(
      'status 403, expected 400; Content-Type (none), expected application/json\u001b[31m<script>',
    );
    assert.equal(cause.key, 'content-type=none');
    assert.ok(!cause.sentence.includes('\u001b') && !cause.sentence.includes('script'), cause.sentence);
  });
});

void describe('findingsOf', () => {
  const emptyBody = (expected: string) =>
    `expected token error ${expected}: status 403, expected 400; Content-Type (none), expected application/json; no string \`error\` member`;

  void test('requirements whose failures share a cause form one finding; a cause seen once stays its own', () => {
    const findings = findingsOf([
      requirement('A-001', 'FAIL', [check('FAIL', emptyBody('invalid_request'))]),
      requirement('A-002', 'WARN', [check('WARN', emptyBody('invalid_grant'))]),
      requirement('A-003', 'FAIL', [check('FAIL', 'no Pragma header')]),
      requirement('A-004', 'PASS', [check('PASS', '')]),
    ]);
    assert.deepEqual(
      findings.map((f) => [f.cause, f.verdict, f.requirements]),
      [
        ['content-type=none', 'FAIL', ['A-001', 'A-002']],
        ['header-missing=pragma', 'FAIL', ['A-003']],
      ],
    );
    assert.deepEqual([...groupedRequirements(findings)], ['A-001', 'A-002']);
  });

  void test('two requirements failing alike for reasons the classifier does not know stay two findings', () => {
    const same = 'status 200, expected 400; an access_token was issued';
    const findings = findingsOf([
      requirement('B-001', 'FAIL', [check('FAIL', same)]),
      requirement('B-002', 'FAIL', [check('FAIL', same), check('FAIL', 'another wording')]),
    ]);
    assert.deepEqual(
      findings.map((f) => f.requirements),
      [['B-001'], ['B-002']],
    );
    assert.deepEqual([...groupedRequirements(findings)], []);
  });

  void test('a WARN on an assumed choice is no finding; a requirement also broken otherwise is', () => {
    const assumed = [{ choice: 'nonPostTokenRequest=405', declare: 'interpretations.nonPostTokenRequest' }];
    const findings = findingsOf([
      requirement('C-001', 'WARN', [check('WARN', 'assumed …: status 404, expected 405', { assumed })]),
      requirement('C-002', 'FAIL', [
        check('WARN', 'assumed …: status 404, expected 405', { assumed }),
        check('FAIL', 'no Pragma header'),
      ]),
    ]);
    assert.deepEqual(
      findings.map((f) => [f.cause, f.requirements]),
      [['header-missing=pragma', ['C-002']]],
    );
  });

  void test('a requirement with a recognised cause and reasons the classifier does not know is a finding of its own too', () => {
    const findings = findingsOf([
      requirement('F-001', 'FAIL', [
        check('FAIL', 'status 401, expected 400; error "invalid_client", expected "invalid_request"'),
        check('FAIL', 'the repeated parameter was served'),
      ]),
      requirement('F-002', 'FAIL', [check('FAIL', 'error "invalid_client", expected "unauthorized_client"')]),
    ]);
    assert.deepEqual(
      findings.map((f) => [f.cause, f.requirements]),
      [
        ['error=invalid_client', ['F-001', 'F-002']],
        ['reason=F-001: the repeated parameter was served', ['F-001']],
      ],
    );
    // Listed alone under one cause: it keeps its own line.
    assert.deepEqual([...groupedRequirements(findings)], ['F-002']);
  });

  void test('a requirement listed alone under one of its causes is not hidden behind its grouped one', () => {
    const findings = findingsOf([
      requirement('D-001', 'FAIL', [
        check('FAIL', 'no Pragma header'),
        check('FAIL', 'Content-Type (none), expected x'),
      ]),
      requirement('D-002', 'FAIL', [check('FAIL', 'no Pragma header')]),
    ]);
    assert.equal(findings.length, 2);
    assert.deepEqual([...groupedRequirements(findings)], ['D-002']);
  });
});

void describe('declare these', () => {
  void test('the allowed values of a field come from the interpretation catalogue, nested members included', () => {
    assert.deepEqual(allowedValues('interpretations.nonPostTokenRequest'), ['405', 'invalid_request', '404']);
    assert.deepEqual(allowedValues('interpretations.invalidClientStatus'), [400, 401]);
    assert.deepEqual(allowedValues('interpretations.gatewayCodes.conditions.unknownToken'), ['000-1202', '000-1205']);
    assert.equal(allowedValues('interpretations.passwordScopes'), undefined);
    assert.equal(allowedValues('capabilities.clock'), undefined);
  });

  void test('a profile line nests as its field does', () => {
    assert.equal(
      profileLine('interpretations.nonPostTokenRequest', '"404"'),
      '"interpretations": { "nonPostTokenRequest": "404" }',
    );
    assert.equal(
      profileLine('interpretations.gatewayCodes.conditions.unknownToken', '"000-1205"'),
      '"interpretations": { "gatewayCodes": { "conditions": { "unknownToken": "000-1205" } } }',
    );
  });

  void test('the observed value is the one allowed value, other than the assumed one, that the failures name', () => {
    assert.equal(observedValue(['405', 'invalid_request', '404'], '405', ['status 404, expected 405']), '404');
    assert.equal(observedValue(['405', 'invalid_request', '404'], '405', ['status 400, expected 405']), undefined);
    // Two candidates: nothing is guessed.
    assert.equal(
      observedValue(['405', 'invalid_request', '404'], '405', ['status 404, expected 405', 'error "invalid_request"']),
      undefined,
    );
    // A whole token only: 4040 is not 404.
    assert.equal(observedValue(['405', '404'], '405', ['took 4040 ms']), undefined);
  });

  void test('one entry per field, with the value the answers point at, else the allowed values to choose from', () => {
    const nonPost = [{ choice: 'nonPostTokenRequest=405', declare: 'interpretations.nonPostTokenRequest' }];
    const scope = [{ choice: 'usClientCredentialsScope=ignored', declare: 'interpretations.usClientCredentialsScope' }];
    const assumptions = assumptionsOf([
      requirement('E-001', 'WARN', [check('WARN', 'assumed …: status 404, expected 405', { assumed: nonPost })]),
      requirement('E-002', 'WARN', [
        check('WARN', 'assumed …: GET got status 404, expected 405', { assumed: nonPost }),
      ]),
      requirement('E-003', 'WARN', [check('WARN', 'assumed …: the response has a scope', { assumed: scope })]),
      requirement('E-004', 'FAIL', [check('FAIL', 'status 404, expected 405')]),
    ]);
    assert.deepEqual(assumptions, [
      {
        declare: 'interpretations.nonPostTokenRequest',
        assumed: 'nonPostTokenRequest=405',
        requirements: ['E-001', 'E-002'],
        profileLine: '"interpretations": { "nonPostTokenRequest": "404" }',
        observed: '404',
        values: ['"405"', '"invalid_request"', '"404"'],
      },
      {
        declare: 'interpretations.usClientCredentialsScope',
        assumed: 'usClientCredentialsScope=ignored',
        requirements: ['E-003'],
        profileLine: '"interpretations": { "usClientCredentialsScope": <one of "ignored", "invalid_scope"> }',
        values: ['"ignored"', '"invalid_scope"'],
      },
    ]);
  });
});
