// toBeGatewayError honours the target's declared body format (OI-25 gatewayErrorBody); matcher
// failure texts keep their problem list, redacted, and the reporter's one-line summary puts a
// custom message first and keeps the problem list after it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiResponse, TokenResponse } from '../../fixtures/clients/responses.ts';
import { gatewayErrorResult, tokenErrorResult, type GatewayChoices } from '../../fixtures/matchers.ts';
import { validateResponse } from '../../fixtures/schema-check.ts';
import { parseJson } from '../../fixtures/http/exchange.ts';
import { Redactor } from '../redaction/redact.ts';
import { errorSummary } from '../reporter/conformance.reporter.ts';

const identity = (t: string) => t;

function apiResponse(status: number, text: string, headers: Record<string, string> = {}, redact = identity): ApiResponse {
  const json = parseJson(text);
  return new ApiResponse({ status, headers, text, json, durationMs: 1 }, status >= 400 ? validateResponse('gateway-error', json) : undefined, redact);
}

const jsonCodeMessage: GatewayChoices = { codes: {}, body: 'json-code-message' };
const codeAnywhere: GatewayChoices = { codes: {}, body: 'code-anywhere' };

void describe('toBeGatewayError and OI-25 gatewayErrorBody', () => {
  const plain = apiResponse(401, 'Unauthorized (000-1202)', { 'content-type': 'text/plain' });
  const inHeader = apiResponse(401, '', { 'x-error-code': '000-1202' });
  const json = apiResponse(401, '{"code":"000-1202","message":"Unauthorized"}', { 'content-type': 'application/json' });

  void test('code-anywhere: a code in a text body passes, with no body-shape requirement', () => {
    const r = gatewayErrorResult(plain, '000-1202', {}, codeAnywhere);
    assert.equal(r.pass, true, r.message());
  });

  void test('code-anywhere: a code in a header passes when the body has none', () => {
    const r = gatewayErrorResult(inHeader, '000-1202', {}, codeAnywhere);
    assert.equal(r.pass, true, r.message());
  });

  void test('code-anywhere: no code anywhere fails', () => {
    const r = gatewayErrorResult(apiResponse(401, 'Unauthorized'), '000-1202', {}, codeAnywhere);
    assert.equal(r.pass, false);
    assert.match(r.message(), /code \(none\) in the body or a header, expected 000-1202/);
  });

  void test('code-anywhere: the wrong code or status still fails', () => {
    assert.equal(gatewayErrorResult(plain, '000-1201', {}, codeAnywhere).pass, false);
    assert.equal(gatewayErrorResult(apiResponse(403, 'Forbidden (000-1202)'), '000-1202', {}, codeAnywhere).pass, false);
  });

  void test('json-code-message: the same text body fails (no code member, not schema-valid)', () => {
    const r = gatewayErrorResult(plain, '000-1202', {}, jsonCodeMessage);
    assert.equal(r.pass, false);
    assert.match(r.message(), /code \(none\) in the `code` member/);
    assert.match(r.message(), /gateway-error schema \(json-code-message\)/);
  });

  void test('json-code-message: a schema-valid body passes; so it does under code-anywhere', () => {
    assert.equal(gatewayErrorResult(json, '000-1202', {}, jsonCodeMessage).pass, true);
    assert.equal(gatewayErrorResult(json, '000-1202', {}, codeAnywhere).pass, true);
  });

  void test('declaredGatewayCode finds the code where each format puts it', () => {
    assert.equal(plain.declaredGatewayCode('json-code-message'), undefined);
    assert.equal(plain.declaredGatewayCode('code-anywhere'), '000-1202');
    assert.equal(inHeader.declaredGatewayCode('code-anywhere'), '000-1202');
    assert.equal(json.declaredGatewayCode('json-code-message'), '000-1202');
  });

  void test('the declared OI-14 statuses and family matching still apply', () => {
    const choices: GatewayChoices = { codes: { matching: 'family', statuses: { '000-1202': 403 } }, body: 'code-anywhere' };
    assert.equal(gatewayErrorResult(apiResponse(403, 'x 000-1201'), '000-1202', {}, choices).pass, true);
  });
});

void describe('matcher failure texts', () => {
  const secret = 'tok-5ecret-value-1234';
  const redactor = new Redactor([secret]);
  const redact = (t: string) => redactor.redact(t);

  void test('the problem list is on the first line and redacted', () => {
    const res = new TokenResponse({ status: 200, headers: { 'content-type': 'application/json' }, text: `{"error":"${secret}"}`, json: { error: secret }, durationMs: 1 }, { kind: 'token-error', errors: [] }, redact);
    const r = tokenErrorResult(res, 'invalid_grant', {});
    assert.equal(r.pass, false);
    const first = r.message().split('\n')[0]!;
    assert.match(first, /^expected token error invalid_grant: status 200, expected 400; error "\[REDACTED\]", expected "invalid_grant"/);
    assert.ok(!r.message().includes(secret), 'no secret in the message');
  });

  void test('a gateway failure message is redacted too', () => {
    const res = apiResponse(401, `no (000-1201) ${secret}`, {}, redact);
    const message = gatewayErrorResult(res, '000-1202', {}, codeAnywhere).message();
    assert.ok(!message.includes(secret));
    assert.match(message, /^expected gateway error 000-1202: code 000-1201/);
  });

  void test('the one-line summary: custom message first, then the matcher\'s problem list', () => {
    // What Playwright throws for expect(res, 'setup: the first refresh succeeds').toBeTokenSuccess().
    const thrown = 'setup: the first refresh succeeds\n\nexpected a token: status 400, expected 200; no access_token\n  response: HTTP 400 application/json {}';
    assert.equal(errorSummary(thrown), 'setup: the first refresh succeeds — expected a token: status 400, expected 200; no access_token');
  });

  void test('the one-line summary without a custom message is the matcher\'s first line', () => {
    assert.equal(errorSummary('expected a token: status 400, expected 200\n  response: HTTP 400'), 'expected a token: status 400, expected 200');
  });

  void test('the one-line summary of a built-in matcher with a custom message keeps Expected and Received', () => {
    const thrown = 'status — HTTP 401\n\n\u001b[2mexpect(\u001b[22mreceived\u001b[2m).\u001b[22mtoBe\u001b[2m(\u001b[22mexpected\u001b[2m) // Object.is equality\u001b[22m\n\nExpected: \u001b[32m200\u001b[39m\nReceived: \u001b[31m401\u001b[39m';
    assert.equal(errorSummary(thrown), 'status — HTTP 401 — Expected: 200; Received: 401');
  });
});
