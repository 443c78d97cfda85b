// A BLOCKED names a blocker that FAILs or WARNs in the same report: the evidence a blocked check saw
// FAILs its blocker (markBlocked `evidence`), and any BLOCKED whose blocker is judged nowhere is
// found over the finished report (harness/reporter/unjudged-blocks.ts) — the conformance stage of
// `npm test`, every self-validation fault run and the oidc-provider run count it as a failure.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Requirement } from '../../requirements/types.ts';
import { verdictShaping } from '../reporter/conformance.reporter.ts';
import { renderSummary } from '../reporter/terminal-summary.ts';
import { unjudgedBlocks, unnamedBlocks } from '../reporter/unjudged-blocks.ts';
import { buildReport, type CheckOutcome } from '../reporter/verdict.ts';
import { verificationOf } from '../reporter/verification.ts';
import { Redactor } from '../../core/redaction/redact.ts';

const catalogue: Requirement[] = [
  {
    id: 'GRANT-RT-001',
    level: 'MUST',
    area: 'grants',
    source: '§4',
    statement: 'A refresh with an unused refresh token succeeds.',
  },
  {
    id: 'STATE-RT-USED-002',
    level: 'MUST',
    area: 'lifecycle',
    source: '§3',
    statement: 'A used refresh token stays refused.',
  },
  {
    id: 'AUTH-CLI-002',
    level: 'SHOULD',
    area: 'client-auth',
    source: 'RFC 6749 §2.3.1',
    statement: 'HTTP Basic authenticates.',
  },
  { id: 'TOKEN-REQ-012', level: 'MUST', area: 'token-requests', source: '§4', statement: 'Escapes are decoded.' },
];
const options = {
  level: 'all' as const,
  filtered: false,
  strict: false,
  suiteVersion: '1.0.0',
  startedAt: new Date('2026-01-01T00:00:00Z'),
  durationMs: 10,
  target: { name: 't', local: true, interpretations: {} },
};
const outcome = (o: Partial<CheckOutcome>): CheckOutcome => ({
  title: 't',
  requirementIds: [],
  status: 'passed',
  durationMs: 1,
  ...o,
});
const refreshOk = outcome({ title: 'one refresh', requirementIds: ['GRANT-RT-001'] });
const escapesOk = outcome({ title: 'escapes', requirementIds: ['TOKEN-REQ-012'] });
const basicOk = outcome({ title: 'basic', requirementIds: ['AUTH-CLI-002'] });
const chain = (blocked: CheckOutcome['blocked']) =>
  outcome({
    title: 'refresh twice along the chain',
    requirementIds: ['STATE-RT-USED-002'],
    status: 'skipped',
    skipReason: 'BLOCKED',
    blocked,
  });
const verdicts = (outcomes: CheckOutcome[]) =>
  Object.fromEntries(buildReport(catalogue, outcomes, options).requirements.map((r) => [r.id, r.verdict]));

void describe('a blocker is always judged', () => {
  void test('a BLOCKED whose blocker PASSes in the same report is found', () => {
    const report = buildReport(
      catalogue,
      [
        refreshOk,
        escapesOk,
        basicOk,
        chain({ reason: 'setup: a refresh_token token is issued at US — got HTTP 400', by: ['GRANT-RT-001'] }),
      ],
      options,
    );
    assert.equal(report.requirements.find((r) => r.id === 'STATE-RT-USED-002')!.verdict, 'BLOCKED');
    assert.deepEqual(unjudgedBlocks(report), [
      {
        requirement: 'STATE-RT-USED-002',
        check: 'refresh twice along the chain',
        blockers: [{ id: 'GRANT-RT-001', verdict: 'PASS' }],
      },
    ]);
    assert.match(renderSummary(report), /suite defect: STATE-RT-USED-002 BLOCKED by GRANT-RT-001 \(PASS\)/);
  });

  void test('with evidence, what the blocked check saw FAILs its blocker: the BLOCKED is judged', () => {
    const report = buildReport(
      catalogue,
      [
        refreshOk,
        escapesOk,
        basicOk,
        chain({
          reason: 'setup: a refresh_token token is issued at US — got HTTP 400 invalid_grant',
          by: ['GRANT-RT-001'],
          evidence: true,
        }),
      ],
      options,
    );
    const rt = report.requirements.find((r) => r.id === 'GRANT-RT-001')!;
    assert.equal(rt.verdict, 'FAIL');
    assert.match(
      rt.reason ?? '',
      /seen by this check, which it blocked: setup: a refresh_token token is issued at US — got HTTP 400 invalid_grant/,
    );
    assert.deepEqual(
      rt.checks.map((c) => [c.title, c.verdict]),
      [
        ['one refresh', 'PASS'],
        ['refresh twice along the chain', 'FAIL'],
      ],
    );
    assert.equal(report.requirements.find((r) => r.id === 'STATE-RT-USED-002')!.verdict, 'BLOCKED');
    assert.deepEqual(unjudgedBlocks(report), []);
  });

  void test('evidence against a SHOULD blocker WARNs it; a blocker the check cites FAILs through the check itself, once', () => {
    const basic = outcome({
      title: 'variant',
      requirementIds: ['TOKEN-REQ-012'],
      status: 'skipped',
      blocked: { reason: 'r', by: ['AUTH-CLI-002'], evidence: true },
    });
    assert.equal(verdicts([refreshOk, basicOk, basic])['AUTH-CLI-002'], 'WARN');
    const cites = outcome({
      title: 'cites',
      requirementIds: ['GRANT-RT-001'],
      status: 'skipped',
      blocked: { reason: 'r', by: ['GRANT-RT-001'], evidence: true },
    });
    const rt = buildReport(catalogue, [cites], options).requirements.find((r) => r.id === 'GRANT-RT-001')!;
    assert.deepEqual(
      rt.checks.map((c) => c.verdict),
      ['FAIL'],
    );
  });

  void test('evidence is not taken from a check that passed, or one that found its own requirements broken', () => {
    const passed = outcome({
      title: 'p',
      requirementIds: ['STATE-RT-USED-002'],
      status: 'passed',
      blocked: { reason: 'r', by: ['GRANT-RT-001'], evidence: true },
    });
    assert.equal(verdicts([refreshOk, passed])['GRANT-RT-001'], 'PASS');
  });

  void test('a blocker that FAILs or WARNs in the report judges the BLOCKED; a BLOCKED naming no blocker is listed apart', () => {
    const refreshBroken = outcome({
      title: 'one refresh',
      requirementIds: ['GRANT-RT-001'],
      status: 'failed',
      error: 'no token',
    });
    const report = buildReport(
      catalogue,
      [refreshBroken, escapesOk, basicOk, chain({ reason: 'setup: x', by: ['GRANT-RT-001'] })],
      options,
    );
    assert.deepEqual(unjudgedBlocks(report), []);
    const unnamed = buildReport(
      catalogue,
      [refreshOk, escapesOk, basicOk, chain({ reason: 'setup: the first refresh succeeds' })],
      options,
    );
    assert.deepEqual(unjudgedBlocks(unnamed), []);
    assert.deepEqual(unnamedBlocks(unnamed), [
      {
        requirement: 'STATE-RT-USED-002',
        check: 'refresh twice along the chain',
        reason: 'setup: the first refresh succeeds',
      },
    ]);
  });

  void test('a BLOCKED by the profile names its field instead of a blocker: neither unjudged nor unnamed, counted apart from blocks by the target', () => {
    const narrowing = outcome({
      title: 'narrow the scope on refresh',
      requirementIds: ['STATE-RT-USED-002'],
      status: 'skipped',
      skipReason: 'BLOCKED',
      blocked: {
        reason:
          'blocked by the profile: credentials.clients.usPasswordClient.tokenParameters.scope declares one value; GRANT-RT-005 needs two',
        profile: 'credentials.clients.usPasswordClient.tokenParameters.scope',
      },
    });
    const report = buildReport(catalogue, [refreshOk, escapesOk, basicOk, narrowing], options);
    const used = report.requirements.find((r) => r.id === 'STATE-RT-USED-002')!;
    assert.deepEqual(
      [used.verdict, used.blockedByProfile, used.blockedBy],
      ['BLOCKED', 'credentials.clients.usPasswordClient.tokenParameters.scope', undefined],
    );
    assert.deepEqual(unjudgedBlocks(report), []);
    assert.deepEqual(unnamedBlocks(report), []);
    const v = verificationOf(report.requirements);
    assert.deepEqual([v.blockedByProfile, v.blockedByTarget], [1, 0]);
    const summary = renderSummary(report);
    assert.match(
      summary,
      /Blocked by the profile \(not verified, and not a finding about the target\):\n.*1 × blocked by the profile: credentials\.clients\.usPasswordClient\.tokenParameters\.scope declares one value; GRANT-RT-005 needs two: STATE-RT-USED-002/,
    );
    assert.doesNotMatch(summary, /Blocked \(not verified: the check could not reach/);
    assert.match(summary, /1 blocked by the profile \(a refused credential or a declaration\)/);
    assert.doesNotMatch(summary, /blocked by the target/);
  });

  void test('beside a BLOCKED by the profile, a BLOCKED by the target still needs its blocker judged', () => {
    const narrowing = outcome({
      title: 'narrow the scope on refresh',
      requirementIds: ['TOKEN-REQ-012'],
      status: 'skipped',
      blocked: { reason: 'blocked by the profile: x', profile: 'interpretations.passwordScopes' },
    });
    const report = buildReport(
      catalogue,
      [refreshOk, basicOk, narrowing, chain({ reason: 'setup: no refresh token', by: ['GRANT-RT-001'] })],
      options,
    );
    assert.match(
      renderSummary(report),
      /1 × fix interpretations\.passwordScopes: blocked by the profile: x: TOKEN-REQ-012/,
    );
    assert.deepEqual(unjudgedBlocks(report), [
      {
        requirement: 'STATE-RT-USED-002',
        check: 'refresh twice along the chain',
        blockers: [{ id: 'GRANT-RT-001', verdict: 'PASS' }],
      },
    ]);
    const v = verificationOf(report.requirements);
    assert.deepEqual([v.blockedByProfile, v.blockedByTarget], [1, 1]);
  });

  void test('the blocked-by-profile annotation reaches the outcome as the field', () => {
    const redactor = new Redactor([]);
    const annotations = [
      { type: 'blocked', description: 'blocked by the profile: r' },
      { type: 'blocked-by-profile', description: 'interpretations.passwordScopes' },
    ];
    assert.deepEqual(verdictShaping(annotations, 'skipped', undefined, redactor).blocked, {
      reason: 'blocked by the profile: r',
      profile: 'interpretations.passwordScopes',
    });
  });

  void test('markBlocked evidence reaches the outcome only with a named blocker and only for a blocked check', () => {
    const redactor = new Redactor([]);
    const annotations = [
      { type: 'blocked', description: 'r' },
      { type: 'blocked-by', description: 'GRANT-RT-001' },
      { type: 'blocked-evidence', description: 'true' },
    ];
    assert.deepEqual(verdictShaping(annotations, 'skipped', undefined, redactor).blocked, {
      reason: 'r',
      by: ['GRANT-RT-001'],
      evidence: true,
    });
    assert.deepEqual(verdictShaping(annotations.slice(0, 1), 'skipped', undefined, redactor).blocked, { reason: 'r' });
    assert.equal(verdictShaping(annotations, 'passed', undefined, redactor).blocked, undefined);
  });
});
