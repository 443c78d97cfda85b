// The property side of per-requirement verdicts (specs/properties/attributed-property.ts): a
// counterexample is attributed to exactly the requirement(s) its expected answer came from, the
// search continues past the first failure (bounded, and says so), each requirement gets its own
// shrunk counterexample, and the oracles tie each answer to its rule. Also the token-format reading
// that keeps made-up and altered tokens well-formed for JWT and opaque targets.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TestInfo } from '@playwright/test';
import fc from 'fast-check';
import { TokenResponse } from '../../fixtures/clients/responses.ts';
import { validateResponse } from '../../fixtures/schema-check.ts';
import { parseJson } from '../../fixtures/http/exchange.ts';
import { BlockedByRequirement, brokeAnnotation, runAttributedProperty, searchFindings, type Finding } from '../../specs/properties/attributed-property.ts';
import { isolateFaults } from '../../specs/properties/fault-isolation.ts';
import { annotationTypes } from '../../fixtures/requirement.ts';
import { attributeDisagreement } from '../../specs/properties/lifecycle/attribute-disagreement.ts';
import { RefreshTokenCommand } from '../../specs/properties/lifecycle/refresh.command.ts';
import { answerIsRight, judgeTokenAnswer } from '../../specs/properties/token-answer.judge.ts';
import { isolateNoise } from '../../specs/properties/noise-isolation.ts';
import { expectedAnswer, type OracleInterpretations, type TokenInput } from '../../specs/properties/token-request.oracle.ts';
import { alterCharacterAt, alterOneCharacter, tokenFormat, unknownToken } from '../../specs/gateway/support/token-format.ts';
import { LifecycleModel, DAY, HOUR, ModelDisagreement, PASSWORD_MAX_AGE, RealSystem } from '../../specs/properties/lifecycle/lifecycle.model.ts';

/** A check over integers: A is broken by every n ≥ 50, B by every n ≥ 10, C never. */
const check = (n: number): Promise<Finding[]> => Promise.resolve([
  ...(n >= 50 ? [{ requirement: 'REQ-A', expected: 'n < 50', actual: `n = ${n}` }] : []),
  ...(n >= 10 ? [{ requirement: 'REQ-B', expected: 'n < 10', actual: `n = ${n}` }] : []),
]);
const ints = fc.integer({ min: 0, max: 1000 });

function fakeTestInfo(): TestInfo & { annotations: { type: string; description?: string }[] } {
  return { annotations: [], attach: () => Promise.resolve(), skip: (_: boolean, reason: string) => { throw new Error(`skipped: ${reason}`); } } as unknown as TestInfo & { annotations: { type: string; description?: string }[] };
}

void describe('attributed property search', () => {
  void test('every distinct broken requirement is found, each shrunk to its own minimal counterexample', async () => {
    const r = await searchFindings(ints, check, { seed: 42, runs: 100, maxRequirements: 8 });
    assert.deepEqual(r.broken.map((b) => b.requirement).sort(), ['REQ-A', 'REQ-B']);
    assert.equal(r.broken.find((b) => b.requirement === 'REQ-A')!.counterexample, '50');
    assert.equal(r.broken.find((b) => b.requirement === 'REQ-B')!.counterexample, '10');
    assert.equal(r.judged, 100, 'the scan ran the whole budget');
  });

  void test('the search stops judging at the bound and says where', async () => {
    const r = await searchFindings(ints, check, { seed: 42, runs: 100, maxRequirements: 1 });
    assert.equal(r.broken.length, 1);
    assert.equal(r.bound.reached, true);
    assert.ok(r.judged < 100, `judged ${r.judged}`);
  });

  void test('a shrunk path replays the counterexample it names', async () => {
    const r = await searchFindings(ints, check, { seed: 42, runs: 100, maxRequirements: 8 });
    const a = r.broken.find((b) => b.requirement === 'REQ-A')!;
    const replay = await searchFindings(ints, check, { seed: 42, runs: 100, maxRequirements: 8, replayPath: a.path });
    assert.equal(replay.broken[0]!.counterexample, '50');
  });

  void test('a check that throws is a defect of the check, not a finding', async () => {
    const r = await searchFindings(ints, (n) => (n > 500 ? Promise.reject(new Error('boom')) : Promise.resolve([])), { seed: 42, runs: 100, maxRequirements: 8 });
    assert.ok(r.crash);
    assert.equal(r.crash.counterexample, '501', 'shrunk like a plain property');
    assert.equal(r.broken.length, 0);
  });

  void test('runAttributedProperty annotates one `broke` per requirement: expected and actual first, then seed, path, replay, the bound', async () => {
    const info = fakeTestInfo();
    await assert.rejects(runAttributedProperty(ints, check, { name: 'unit', testInfo: info, runs: 100 }), /broke 2 requirement\(s\)/);
    const broke = info.annotations.filter((a) => a.type === brokeAnnotation).map((a) => a.description!);
    assert.equal(broke.length, 2);
    const a = broke.find((d) => d.startsWith('REQ-A — '))!;
    assert.match(a, /^REQ-A — expected n < 50, got n = 50 — input: 50 — property unit seed=\d+ path=[\d:]+ .* — replay: .*TOKEN_CONFORMANCE_PATH=[\d:]+ .* — bounded search: ran all 100 of 100 runs/);
    assert.ok(!broke.some((d) => d.startsWith('REQ-C')), 'a requirement never broken gets no annotation');
  });

  void test('a property that finds nothing passes with no `broke` annotation', async () => {
    const info = fakeTestInfo();
    await runAttributedProperty(ints, () => Promise.resolve([]), { name: 'unit', testInfo: info, runs: 20 });
    assert.equal(info.annotations.filter((a) => a.type === brokeAnnotation).length, 0);
  });
});

const oi: OracleInterpretations = {
  unsupportedGrantError: 'unsupported_grant_type', invalidClientStatus: 400, nonFormTokenRequest: 'invalid_request',
  usernameWithoutTenantError: 'invalid_grant', nonPostTokenRequest: '405', missingClientCredentialsError: 'invalid_client',
  euOtherGrants: 'unsupported_grant_type', malformedFormBody: 'invalid_request',
};
const quiet: TokenInput['noise'] = { extra: [], escapeClientId: false, charset: false, basic: false };
const input = (faults: TokenInput['faults'], noise = quiet): TokenInput => ({ region: 'us', grant: 'client_credentials', refreshToken: '', faults, noise });
const tokenResponse = (status: number, body: unknown, contentType = 'application/json') => {
  const text = JSON.stringify(body);
  const json = parseJson(text);
  return new TokenResponse({ status, headers: { 'content-type': contentType }, text, json, durationMs: 1 }, validateResponse(status >= 400 ? 'token-error' : 'token-response-password', json), (t) => t);
};

void describe('token-input oracle: each expected answer names its requirement', () => {
  void test('a repeated parameter answered with a token breaks TOKEN-REQ-005 only', () => {
    const i = input([{ kind: 'repeated', field: 'grant_type' }]);
    const e = expectedAnswer(i, oi);
    assert.deepEqual(e.requirements, ['TOKEN-REQ-005']);
    const f = judgeTokenAnswer(i, e, tokenResponse(200, { access_token: 'x', token_type: 'Bearer', expires_in: 3600 }));
    assert.deepEqual(f.map((x) => x.requirement), ['TOKEN-REQ-005']);
  });

  void test('a right code in a text/plain body breaks ERR-TOK-001 only', () => {
    const i = input([{ kind: 'grant-type-absent' }]);
    const f = judgeTokenAnswer(i, expectedAnswer(i, oi), tokenResponse(400, { error: 'invalid_request' }, 'text/plain'));
    assert.deepEqual(f.map((x) => x.requirement), ['ERR-TOK-001']);
  });

  void test('OI-30: a malformed escape is invalid_request (TOKEN-REQ-013) by default, and a token where the target declares lenient', () => {
    const i = input([{ kind: 'malformed-escape' }]);
    const strict = expectedAnswer(i, oi);
    assert.equal(strict.kind, 'token-error');
    assert.deepEqual(strict.requirements, ['TOKEN-REQ-013']);
    const lenient = expectedAnswer(i, { ...oi, malformedFormBody: 'lenient' });
    assert.equal(lenient.kind, 'token');
    assert.deepEqual(lenient.requirements, ['TOKEN-REQ-013']);
    const withNoise = expectedAnswer(input([{ kind: 'malformed-escape' }], { ...quiet, charset: true }), { ...oi, malformedFormBody: 'lenient' });
    assert.deepEqual(withNoise.requirements, ['TOKEN-REQ-013'], 'a lenient-body failure is the leniency\'s, not the noise\'s');
    const withFault = expectedAnswer({ ...input([{ kind: 'malformed-escape' }]), grant: 'refresh_token', refreshToken: 'x' }, { ...oi, malformedFormBody: 'lenient' });
    assert.equal(withFault.kind, 'token-error');
    // Read leniently, the rest of the request decides: a wrong answer is the leniency's or the
    // unknown refresh token's, and fault isolation asks each alone to tell which.
    assert.deepEqual(withFault.requirements, ['TOKEN-REQ-013', 'GRANT-RT-008']);
  });

  const tokenOk = () => tokenResponse(200, { access_token: 'x', token_type: 'Bearer', expires_in: 3600, refresh_token: 'r', scope: 'email openid profile company' });
  /** A target that refuses ;charset=UTF-8 and answers everything else right. */
  const charsetRefused = (x: TokenInput) => {
    const e = expectedAnswer(x, oi);
    return x.noise.charset ? tokenResponse(400, { error: 'invalid_request' }) : e.kind === 'token' ? tokenOk() : tokenResponse(400, { error: e.kind === 'token-error' ? e.codes[0] : 'invalid_request' });
  };
  const rightOn = (target: (x: TokenInput) => TokenResponse) => (x: TokenInput) => Promise.resolve(answerIsRight(x, expectedAnswer(x, oi), target(x)));
  const findingsOn = (target: (x: TokenInput) => TokenResponse, x: TokenInput) => judgeTokenAnswer(x, expectedAnswer(x, oi), target(x));

  void test('noise isolation: the kind of noise that breaks a request on its own is blamed, not the fault or the other noise', async () => {
    const noisy: TokenInput['noise'] = { ...quiet, charset: true, extra: [['x_a', 'b']] };
    const valid = input([], noisy);
    const f1 = await isolateNoise(valid, expectedAnswer(valid, oi).requirements, findingsOn(charsetRefused, valid), rightOn(charsetRefused));
    assert.deepEqual(f1 !== 'not-judged' && f1.map((x) => x.requirement), ['TOKEN-REQ-002']);
    const faulted: TokenInput = { ...input([], noisy), grant: 'refresh_token', refreshToken: 'never-issued' };
    assert.deepEqual(findingsOn(charsetRefused, faulted).map((x) => x.requirement), ['GRANT-RT-008'], 'judged alone, the fault would be blamed');
    const f2 = await isolateNoise(faulted, expectedAnswer(faulted, oi).requirements, findingsOn(charsetRefused, faulted), rightOn(charsetRefused));
    assert.deepEqual(f2 !== 'not-judged' && f2.map((x) => x.requirement), ['TOKEN-REQ-002'], 'not GRANT-RT-008');
  });

  void test('noise isolation: a valid request whose bare form fails too is not judged (the grant itself is broken)', async () => {
    const broken = () => tokenResponse(400, { error: 'invalid_request' });
    const valid = input([], { ...quiet, extra: [['x_a', 'b']] });
    assert.equal(await isolateNoise(valid, expectedAnswer(valid, oi).requirements, findingsOn(broken, valid), rightOn(broken)), 'not-judged');
  });
});

void describe('token-input property: a request with several faults blames the fault that explains the answer', () => {
  /** oidc-provider's declared choices where they matter here: invalid_client is 401 (OI-2), EU other grants unsupported_grant_type (OI-9). */
  const oidc: OracleInterpretations = { ...oi, invalidClientStatus: 401 };
  const right = (x: TokenInput) => {
    const e = expectedAnswer(x, oidc);
    return e.kind === 'token' ? tokenResponse(200, { access_token: 'x', token_type: 'Bearer', expires_in: 3600, refresh_token: 'r', scope: 'email openid profile company' })
      : tokenResponse(e.kind === 'token-error' ? e.statuses[0]! : 400, { error: e.kind === 'token-error' ? e.codes.find((c) => c !== 'invalid_client') ?? e.codes[0] : 'invalid_request' });
  };
  const has = (x: TokenInput, kind: string) => x.faults.some((f) => f.kind === kind);
  /** Like oidc-provider: a missing client_secret is 401 invalid_client (AUTH-CLI-007), an EU refresh_token request invalid_request (GRANT-RT-011). */
  const oidcLike = (x: TokenInput) => {
    if (has(x, 'client-secret-absent')) return tokenResponse(401, { error: 'invalid_client' });
    if (has(x, 'eu-other-grant')) return tokenResponse(400, { error: 'invalid_request' });
    return right(x);
  };
  const sorted = async (target: (x: TokenInput) => TokenResponse, x: TokenInput) => {
    const sent: TokenInput[] = [];
    const answersRight = (y: TokenInput) => { sent.push(y); return Promise.resolve(answerIsRight(y, expectedAnswer(y, oidc), target(y))); };
    const own = expectedAnswer(x, oidc).requirements;
    const findings = await isolateFaults(x, own, judgeTokenAnswer(x, expectedAnswer(x, oidc), target(x)), answersRight);
    return { ids: findings.map((f) => f.requirement).sort(), findings, sent };
  };
  const at = (region: 'us' | 'eu', grant: TokenInput['grant'], faults: TokenInput['faults'], refreshToken = 'never-issued'): TokenInput => ({ region, grant, refreshToken, faults, noise: quiet });

  void test('a missing client_secret with a repeated grant_type: AUTH-CLI-007 only, not TOKEN-REQ-005', async () => {
    const r = await sorted(oidcLike, at('eu', 'client_credentials', [{ kind: 'client-secret-absent' }, { kind: 'repeated', field: 'grant_type' }]));
    assert.deepEqual(r.ids, ['AUTH-CLI-007']);
    assert.match(r.findings[0]!.actual, /that fault alone is answered wrongly too/);
    assert.ok(r.sent.length <= 2, `bounded: ${r.sent.length} control requests`);
  });

  void test('a missing client_secret with a username without tenant: AUTH-CLI-007 only, not GRANT-PW-007', async () => {
    const r = await sorted(oidcLike, at('us', 'password', [{ kind: 'client-secret-absent' }, { kind: 'username-without-tenant', name: '+' }]));
    assert.deepEqual(r.ids, ['AUTH-CLI-007']);
  });

  void test('an EU refresh_token request: the grant (GRANT-RT-011) when the grant alone is answered wrongly, not GRANT-RT-007/-008 or AUTH-CLI-007', async () => {
    const several = await sorted(oidcLike, at('eu', 'refresh_token', [{ kind: 'eu-other-grant' }, { kind: 'client-secret-absent' }, { kind: 'refresh-token-absent' }], ' '));
    assert.deepEqual(several.ids, ['GRANT-RT-011']);
    const empty = await sorted(oidcLike, at('eu', 'refresh_token', [{ kind: 'eu-other-grant' }], ''));
    assert.deepEqual(empty.ids, ['GRANT-RT-011'], 'refresh_token="" at EU: the grant is the first problem');
    assert.match(empty.findings[0]!.actual, /the grant alone at EU .* is answered wrongly too/);
    assert.equal(empty.sent[0]!.refreshToken !== '', true, 'the grant alone is asked with a plain refresh token');
  });

  void test('an EU refresh_token request whose grant alone is answered right: the empty refresh token is not blamed on the grant', async () => {
    const emptyRefused = (x: TokenInput) => (x.grant === 'refresh_token' && x.refreshToken === '' ? tokenResponse(400, { error: 'invalid_request' }) : right(x));
    const r = await sorted(emptyRefused, at('eu', 'refresh_token', [{ kind: 'eu-other-grant' }], ''));
    assert.deepEqual(r.ids, ['GRANT-RT-008', 'GRANT-RT-011'], 'no fault alone reproduces it: the combination');
    assert.match(r.findings[0]!.actual, /no fault alone is answered wrongly: the combination is/);
  });

  void test('a wrong answer that no single fault reproduces blames the combination and says so', async () => {
    const onlyTogether = (x: TokenInput) => (x.faults.length >= 2 ? tokenResponse(200, { access_token: 'x', token_type: 'Bearer', expires_in: 3600 }) : right(x));
    const r = await sorted(onlyTogether, at('us', 'password', [{ kind: 'client-secret-absent' }, { kind: 'username-absent' }]));
    assert.deepEqual(r.ids, ['AUTH-CLI-007', 'GRANT-PW-004']);
    assert.ok(r.findings.every((f) => /the combination is/.test(f.actual)));
  });

  void test('a single fault is judged as before (no control request)', async () => {
    const r = await sorted(oidcLike, at('us', 'client_credentials', [{ kind: 'client-secret-absent' }]));
    assert.deepEqual(r.ids, ['AUTH-CLI-007']);
    assert.equal(r.sent.length, 0);
  });
});

void describe('lifecycle variants: a disagreement names its requirement; one a variant does not cite blocks it', () => {
  const noRotation = () => tokenResponse(200, { access_token: 'at-2', token_type: 'Bearer', expires_in: 3600, scope: 'email openid profile company' });
  const refreshOnce = async (answer: () => TokenResponse) => {
    const m = new LifecycleModel({ clock: false, familyRevocation: true, anchor: 'access-token-expiry', accessTokenAfterRefresh: 'valid-until-expiry', margin: () => 10, passwordAge: undefined });
    m.families.set(1, 'live');
    m.refresh.push({ id: 2, family: 1, issuedAt: 0, accessExpiresIn: 3600, used: false });
    const real = new RealSystem({ refresh: () => Promise.resolve(answer()) } as never, {} as never, {} as never, {} as never, undefined);
    real.refreshTokens.set(2, 'rt-1');
    return new RefreshTokenCommand(0).run(m, real).then(() => undefined, (e: unknown) => e);
  };

  void test('a refresh that issues an access token without a new refresh token breaks GRANT-RT-002 (not GRANT-RT-001)', async () => {
    const e = await refreshOnce(noRotation);
    assert.ok(e instanceof ModelDisagreement);
    assert.equal(e.requirement, 'GRANT-RT-002');
  });

  void test('a disagreement the variant cites is its finding; one it does not cite blocks it by that requirement', async () => {
    const e = await refreshOnce(noRotation);
    assert.deepEqual(attributeDisagreement(e, ['GRANT-RT-002']).map((f) => f.requirement), ['GRANT-RT-002']);
    assert.throws(() => attributeDisagreement(e, ['STATE-RT-FAMILY-001', 'STATE-RT-FAMILY-002']), (x: unknown) => x instanceof BlockedByRequirement && x.requirement === 'GRANT-RT-002');
    assert.throws(() => attributeDisagreement(new Error('socket hang up'), ['GRANT-RT-002']), /socket hang up/);
  });

  void test('a property blocked by an uncited requirement is BLOCKED by it, with a shrunk input, not failed', async () => {
    const info = fakeTestInfo();
    const blockedAt50 = (n: number) => (n >= 50 ? Promise.reject(new BlockedByRequirement('GRANT-RT-002', `n = ${n}`)) : Promise.resolve([]));
    await assert.rejects(runAttributedProperty(ints, blockedAt50, { name: 'unit', testInfo: info, runs: 100 }), /^Error: skipped: BLOCKED: GRANT-RT-002 broken: n = 50 — input: 50 /);
    assert.deepEqual(info.annotations.filter((a) => a.type === annotationTypes.blockedBy).map((a) => a.description), ['GRANT-RT-002']);
    assert.equal(info.annotations.filter((a) => a.type === brokeAnnotation).length, 0);
  });

  void test('cited requirements found broken before the block still FAIL', async () => {
    const info = fakeTestInfo();
    let judged = 0;
    const brokenThenBlocked = (n: number) => (++judged > 30 ? Promise.reject(new BlockedByRequirement('GRANT-RT-002', 'x')) : check(n));
    await assert.rejects(runAttributedProperty(ints, brokenThenBlocked, { name: 'unit', testInfo: info, runs: 100 }), /broke \d requirement\(s\).*blocked by GRANT-RT-002/);
    assert.ok(info.annotations.some((a) => a.type === brokeAnnotation));
  });
});

void describe('token format: JWT or opaque, read from a real token', () => {
  const hex = 'a3f1'.repeat(16);
  const jwt = `${Buffer.from('{"alg":"ES256"}').toString('base64url')}.${Buffer.from('{"sub":"x"}').toString('base64url')}.${'Ab_-'.repeat(21)}AA`;

  void test('a 64-hex token is opaque lowercase hex; a JWS is a JWT', () => {
    assert.deepEqual(tokenFormat(hex), { kind: 'opaque', alphabet: '0123456789abcdef', alphabetName: 'lowercase hex', length: 64 });
    assert.deepEqual(tokenFormat(jwt), { kind: 'jwt' });
  });

  void test('an unknown token of an opaque format keeps its length and alphabet', () => {
    const u = unknownToken(hex);
    assert.match(u, /^[0-9a-f]{64}$/);
    assert.notEqual(u, hex);
    assert.equal(tokenFormat(unknownToken(jwt)).kind, 'jwt');
  });

  void test('an altered token differs in one character and keeps the format', () => {
    for (const i of [0, 7, 63, 64, 1000]) {
      const altered = alterCharacterAt(hex, i);
      assert.match(altered, /^[0-9a-f]{64}$/);
      assert.equal([...altered].filter((c, k) => c !== hex[k]).length, 1);
    }
    const a = alterOneCharacter(jwt);
    assert.equal(tokenFormat(a).kind, 'jwt');
    assert.equal(a.split('.').slice(0, 2).join('.'), jwt.split('.').slice(0, 2).join('.'), 'only the signature changes');
    assert.notEqual(a, jwt);
    assert.equal(a.at(-1), jwt.at(-1), 'never the last signature character');
  });
});

void describe('lifecycle model: the 45-day edge from the declared password age', () => {
  const model = (passwordAge: number | undefined) => new LifecycleModel({ clock: true, familyRevocation: false, anchor: 'access-token-expiry', accessTokenAfterRefresh: 'valid-until-expiry', margin: () => 10, passwordAge });

  void test('with the seed\'s 1 day: accepted 2 h before the edge, refused 2 h after, unpredicted within the hour', () => {
    const m = model(DAY);
    m.now = PASSWORD_MAX_AGE - DAY - 2 * HOUR;
    assert.equal(m.passwordGrant(), 'yes');
    m.now = PASSWORD_MAX_AGE - DAY - HOUR / 2;
    assert.equal(m.passwordGrant(), 'either');
    m.now = PASSWORD_MAX_AGE - DAY + 2 * HOUR;
    assert.equal(m.passwordGrant(), 'no');
    m.now = PASSWORD_MAX_AGE - 2 * HOUR;
    assert.equal(m.passwordGrant(), 'no', 'the model no longer assumes a password of age 0');
  });

  void test('without a declared age: accepted before the clock moves, unpredicted after', () => {
    const m = model(undefined);
    assert.equal(m.passwordGrant(), 'yes');
    m.now = DAY;
    assert.equal(m.passwordGrant(), 'either');
  });
});
