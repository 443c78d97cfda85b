// A failure on a choice the profile did not declare reads WARN, naming what to declare, at any
// level; a declared one, or a failure outside judgedOn, stays FAIL (fixtures/choice.ts,
// harness/reporter/verdict.ts, conformance.reporter.ts assumedAnnotations).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assumedAnnotations } from '../reporter/conformance.reporter.ts';
import { checkVerdict, type CheckOutcome } from '../reporter/verdict.ts';

const failedGet: CheckOutcome = {
  title: 'specs/token-requests/http-method.spec.ts › TOKEN-REQ-001 a GET …',
  requirementIds: ['TOKEN-REQ-001'],
  status: 'failed',
  durationMs: 5,
  error: 'assumed (reference choice) nonPostTokenRequest=405: status — got HTTP 404 … Expected: 405; Received: 404',
};
const assumed = { choice: 'nonPostTokenRequest=405', declare: 'interpretations.nonPostTokenRequest' };

void test('a MUST check that failed on an assumed choice is WARN, led by what was assumed and what to declare', () => {
  const j = checkVerdict({ ...failedGet, assumed: [assumed] }, 'MUST', 'TOKEN-REQ-001');
  assert.equal(j.verdict, 'WARN');
  assert.match(
    j.reason ?? '',
    /^assumed \(reference choice\) nonPostTokenRequest=405; declare `interpretations\.nonPostTokenRequest` if your target chose otherwise: /,
  );
  assert.match(j.reason ?? '', /Expected: 405/);
});

void test('the same failure without an assumed choice (declared, or outside judgedOn) is FAIL', () => {
  assert.equal(checkVerdict(failedGet, 'MUST', 'TOKEN-REQ-001').verdict, 'FAIL');
});

void test('an assumed choice listed for other requirements does not soften this one', () => {
  const j = checkVerdict(
    { ...failedGet, assumed: [{ ...assumed, requirements: ['ERR-TOK-002'] }] },
    'MUST',
    'TOKEN-REQ-001',
  );
  assert.equal(j.verdict, 'FAIL');
});

void test('broke annotations are softened only for the requirements an assumed choice lists', () => {
  const outcome: CheckOutcome = {
    ...failedGet,
    requirementIds: ['TOKEN-REQ-001', 'ERR-TOK-001'],
    broke: [
      { id: 'TOKEN-REQ-001', message: 'status 404' },
      { id: 'ERR-TOK-001', message: 'not JSON' },
    ],
    assumed: [{ ...assumed, requirements: ['TOKEN-REQ-001'] }],
  };
  assert.equal(checkVerdict(outcome, 'MUST', 'TOKEN-REQ-001').verdict, 'WARN');
  assert.equal(checkVerdict(outcome, 'MUST', 'ERR-TOK-001').verdict, 'FAIL');
  // Without a requirement list an assumed choice does not speak for a property's findings.
  assert.equal(checkVerdict({ ...outcome, assumed: [assumed] }, 'MUST', 'TOKEN-REQ-001').verdict, 'FAIL');
});

void test('a timed-out or blocked check is never softened by an assumed choice', () => {
  assert.equal(
    checkVerdict({ ...failedGet, status: 'timedOut', assumed: [assumed] }, 'MUST', 'TOKEN-REQ-001').verdict,
    'UNCHECKED',
  );
  assert.equal(
    checkVerdict({ ...failedGet, blocked: { reason: 'setup: …' }, assumed: [assumed] }, 'MUST', 'TOKEN-REQ-001')
      .verdict,
    'BLOCKED',
  );
});

void test('assumedAnnotations reads valid annotations once each and drops malformed ones (the failure stays FAIL)', () => {
  const description = JSON.stringify(assumed);
  const read = assumedAnnotations([
    { type: 'assumed', description },
    { type: 'assumed', description },
    { type: 'assumed', description: 'not json' },
    { type: 'assumed', description: '{"choice":""}' },
    { type: 'broke', description },
  ]);
  assert.deepEqual(read, [assumed]);
});
