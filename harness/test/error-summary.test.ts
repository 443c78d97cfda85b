// The reporter's one-line summary of a failed check (errorSummary): a custom message first, the
// matcher's problem list after it, Expected/Received of a built-in matcher kept.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { errorSummary } from '../reporter/conformance.reporter.ts';

void describe('the one-line summary of a failed check', () => {
  void test("the one-line summary: custom message first, then the matcher's problem list", () => {
    // What Playwright throws for expect(res, 'setup: the first refresh succeeds').toBeTokenSuccess().
    const thrown =
      'setup: the first refresh succeeds\n\nexpected a token: status 400, expected 200; no access_token\n  response: HTTP 400 application/json {}';
    assert.equal(
      errorSummary(thrown),
      'setup: the first refresh succeeds — expected a token: status 400, expected 200; no access_token',
    );
  });

  void test("the one-line summary without a custom message is the matcher's first line", () => {
    assert.equal(
      errorSummary('expected a token: status 400, expected 200\n  response: HTTP 400'),
      'expected a token: status 400, expected 200',
    );
  });

  void test('the one-line summary of a built-in matcher with a custom message keeps Expected and Received', () => {
    const thrown =
      'status — HTTP 401\n\n\u001b[2mexpect(\u001b[22mreceived\u001b[2m).\u001b[22mtoBe\u001b[2m(\u001b[22mexpected\u001b[2m) // Object.is equality\u001b[22m\n\nExpected: \u001b[32m200\u001b[39m\nReceived: \u001b[31m401\u001b[39m';
    assert.equal(errorSummary(thrown), 'status — HTTP 401 — Expected: 200; Received: 401');
  });
});
