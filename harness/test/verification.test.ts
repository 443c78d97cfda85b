// "Verified" as a number (harness/reporter/verification.ts): why each unverified requirement was
// not verified, from the suite's own SKIP vocabulary, and the closing line's words.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { noPrincipalControl } from '../../core/profile/capability-gap.ts';
import { cutAtWord } from '../../core/redaction/cut.ts';
import { unverifiedOf, verificationLine, verificationOf } from '../reporter/verification.ts';

void test('a SKIP the profile explains is not-declared, with what would make it verifiable; any other unverified verdict has its own cause', () => {
  const cases: [Parameters<typeof unverifiedOf>[0], ReturnType<typeof unverifiedOf>][] = [
    [{ verdict: 'PASS' }, undefined],
    [{ verdict: 'FAIL', reason: 'x' }, undefined],
    [{ verdict: 'NOT_APPLICABLE', reason: 'target has no EU token server (authUrlEu)' }, undefined],
    [
      { verdict: 'SKIP', reason: 'profile has no credentials.users.burnableUser' },
      { cause: 'not-declared', remedy: 'declare a burnable user (credentials.users.burnableUser)' },
    ],
    [
      { verdict: 'SKIP', reason: 'profile has no credentials.clients.usClient2' },
      { cause: 'not-declared', remedy: 'declare credentials.clients.usClient2' },
    ],
    [
      {
        verdict: 'SKIP',
        reason:
          'target has no clock control; the check would wait 3600 s in real time (capabilities.realTimeWaitSeconds is 0), and the run keeps no state file',
      },
      {
        cause: 'not-declared',
        remedy: 'add clock control or a state file (capabilities.clockControlUrl, or "state" and run --state)',
      },
    ],
    [
      {
        verdict: 'SKIP',
        reason:
          'not verified: the target has no restart control (capabilities.restartControlUrl) and the run keeps no state file (`run --state FILE`): a used refresh token is never asked again after a restart or in a later run',
      },
      {
        cause: 'not-declared',
        remedy:
          'add a state file (a later run replays the used tokens) or a restart control (capabilities.restartControlUrl)',
      },
    ],
    [
      {
        verdict: 'SKIP',
        reason:
          'not verified: after the restart the target refused the unused refresh token too (400 invalid_grant): it lost its tokens, so a refusal of the used one would prove nothing',
      },
      { cause: 'other' },
    ],
    [
      {
        verdict: 'SKIP',
        reason: 'not declared: capabilities.rateLimit.quotaPerWindow, capabilities.rateLimit.windowSeconds',
      },
      {
        cause: 'not-declared',
        remedy: 'declare capabilities.rateLimit.quotaPerWindow and capabilities.rateLimit.windowSeconds',
      },
    ],
    [
      { verdict: 'SKIP', reason: 'not declared: capabilities.rateLimit.spikePerSecond' },
      { cause: 'not-declared', remedy: 'declare capabilities.rateLimit.spikePerSecond' },
    ],
    [
      {
        verdict: 'SKIP',
        reason: 'profile declares no rate-limit thresholds (capabilities.rateLimit): this check needs spikePerSecond',
      },
      { cause: 'not-declared', remedy: "declare capabilities.rateLimit (the target's thresholds)" },
    ],
    [
      { verdict: 'SKIP', reason: noPrincipalControl },
      {
        cause: 'not-declared',
        remedy: 'declare hooks.deactivate and hooks.activate (how to deactivate and reactivate a user or client)',
      },
    ],
    [
      { verdict: 'SKIP', reason: 'profile has no resources.people identifiers' },
      { cause: 'not-declared', remedy: 'declare resources.people (existing, missing and malformed identifiers)' },
    ],
    [
      { verdict: 'SKIP', reason: 'none of 4 calls that could get a 12xx code got 000-1200: nothing to verify' },
      { cause: 'other' },
    ],
    [{ verdict: 'SKIP', reason: 'no check of this requirement was selected in this run' }, { cause: 'not-selected' }],
    [{ verdict: 'BLOCKED', reason: 'setup: …' }, { cause: 'blocked-by-target' }],
    [
      { verdict: 'BLOCKED', reason: 'blocked by the profile …', blockedByProfile: 'credentials.users.user.password' },
      { cause: 'profile-error', remedy: 'fix credentials.users.user.password' },
    ],
    [{ verdict: 'PENDING', reason: 'due …' }, { cause: 'pending' }],
  ];
  for (const [r, expected] of cases) assert.deepEqual(unverifiedOf(r), expected, `${r.verdict}: ${r.reason ?? ''}`);
});

void test('the counts add up to the total, remedies grouped with the most requirements first, and the line says it', () => {
  const v = verificationOf([
    { id: 'A', verdict: 'PASS' },
    { id: 'B', verdict: 'FAIL' },
    { id: 'C', verdict: 'WARN' },
    { id: 'D', verdict: 'NOT_APPLICABLE' },
    { id: 'E', verdict: 'SKIP', reason: 'target has no clock control' },
    { id: 'F', verdict: 'SKIP', reason: 'target has no clock control' },
    { id: 'G', verdict: 'SKIP', reason: 'profile has no credentials.users.burnableUser' },
    { id: 'H', verdict: 'BLOCKED', reason: 'x', blockedByProfile: 'credentials.clients.usClient.clientSecret' },
    { id: 'I', verdict: 'BLOCKED', reason: 'setup: y' },
  ]);
  assert.deepEqual(
    [v.verified, v.notApplicable, v.notVerifiable.count, v.blockedByProfile, v.blockedByTarget, v.total],
    [3, 1, 3, 1, 1, 9],
  );
  assert.deepEqual(
    v.notVerifiable.remedies.map((r) => r.requirements),
    [['E', 'F'], ['G']],
  );
  assert.equal(
    verificationLine(v),
    'verified 3 of 9 requirements (PASS/FAIL/WARN), 1 not applicable, 3 not verifiable with this profile (add clock control or a state file (capabilities.clockControlUrl, or "state" and run --state): 2; declare a burnable user (credentials.users.burnableUser): 1), 1 blocked by the profile (a refused credential or a declaration), 1 blocked by the target',
  );
});

void test('a message is cut at a word boundary, with an ellipsis; a single overlong word is cut rather than lost', () => {
  assert.equal(cutAtWord('short enough', 40), 'short enough');
  assert.equal(cutAtWord('the refresh token was accepted twice by the target', 30), 'the refresh token was…');
  assert.equal(cutAtWord('x'.repeat(50), 10), `${'x'.repeat(9)}…`);
});
