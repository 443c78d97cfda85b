// Property: whatever form body, encoding, media type or method reaches a token endpoint (US and
// EU), the answer is never a 5xx, never late, never a token for an invalid request, and always the
// error the catalogue expects for the request's faults (token-request.oracle.ts), as a JSON body
// valid against the token-error schema, with status 400 (invalid_client: the declared status, or
// 401 with a challenge for HTTP Basic).
import fc from 'fast-check';
import { needs, requirement, test, type Region } from '../../fixtures/index.ts';
import { tokenErrorResult, tokenSuccessResult } from '../../fixtures/matchers.ts';
import { asTokenResponse, clientCredentialsKind } from '../token-requests/raw-response.helper.ts';
import { propertyRuns, propertyTag, requestDeadlineMs, runProperty, withDeadline } from './property-runner.ts';
import { buildRequest, oracleInterpretations, tokenInputArbitrary } from './token-request.arbitrary.ts';
import { describeInput, expectedAnswer, type Expected } from './token-request.oracle.ts';

const regions: Region[] = ['us', 'eu'];
const requirements = [
  'ERR-TOK-001', 'ERR-TOK-002', 'ERR-TOK-004', 'ERR-TOK-005', 'TOKEN-REQ-001', 'TOKEN-REQ-003', 'TOKEN-REQ-005',
  'TOKEN-REQ-006', 'TOKEN-REQ-007', 'TOKEN-REQ-009', 'AUTH-CLI-005', 'AUTH-CLI-007', 'GRANT-PW-004', 'GRANT-PW-006',
  'GRANT-PW-007', 'GRANT-RT-007', 'GRANT-RT-008',
] as const;

test.describe('property: token endpoint input', () => {
  for (const region of regions) {
    const name = `token-input-${region}`;
    test(`token endpoint input at ${region.toUpperCase()}: every generated request gets the answer the catalogue expects, never a 5xx, a hang or a token for an invalid request`,
      requirement(...requirements, needs(region), { tag: [propertyTag(name), '@serial'] }),
      async ({ tokenClient, rawHttp, target, redactor }, testInfo) => {
        const oi = oracleInterpretations(<T>(key: string) => target.interpretation<T>(key));
        const basic = target.profile.capabilities.supportsBasic;
        const nonce = Math.random().toString(36).slice(2, 8);
        let counter = 0;
        const successKind = (grant: string) => (grant === 'client_credentials' ? clientCredentialsKind(region) : 'token-response-password');

        const property = fc.asyncProperty(tokenInputArbitrary(region, oi, basic), async (input) => {
          const expected: Expected = expectedAnswer(input, oi);
          counter += 1;
          const req = buildRequest(input, { tokenClient, rawHttp }, `${nonce}-${counter}`);
          const data = await withDeadline(rawHttp.send(req), requestDeadlineMs, describeInput(input));
          const res = asTokenResponse(data, redactor, successKind(input.grant));
          const problems: string[] = [];
          if (res.status >= 500) problems.push(`a ${res.status}`);
          if (expected.kind !== 'token' && (res.accessToken !== undefined || res.refreshToken !== undefined || res.status === 200)) problems.push('a token (or 200) for an invalid request');
          switch (expected.kind) {
            case 'token': {
              const r = tokenSuccessResult(res);
              if (!r.pass) problems.push(r.message());
              break;
            }
            case 'token-error': {
              const r = tokenErrorResult(res, expected.codes, { status: expected.statuses });
              if (!r.pass) problems.push(r.message());
              if (res.status === 401 && !/^\s*basic\b/i.test(res.header('www-authenticate') ?? '') && input.noise.basic) problems.push('a 401 for HTTP Basic without a Basic challenge');
              break;
            }
            case 'not-post': {
              if (String(res.status) !== expected.answer) problems.push(`status ${res.status}, expected ${expected.answer} (declared nonPostTokenRequest)`);
              if (expected.answer === '405' && !(res.header('allow') ?? '').toUpperCase().split(',').map((m) => m.trim()).includes('POST')) problems.push(`405 without Allow: POST (Allow: ${res.header('allow') ?? '(none)'})`);
              break;
            }
            case 'gateway-415':
              if (res.status !== 415 || !res.text.includes('000-1005')) problems.push(`expected 415 with 000-1005 (declared nonFormTokenRequest) — got ${res.describe()}`);
              break;
          }
          if (problems.length > 0) {
            const want = expected.kind === 'token-error' ? `${expected.codes.join('|')} with ${expected.statuses.join('|')}` : expected.kind === 'not-post' ? expected.answer : expected.kind;
            throw new Error(`request: ${describeInput(input)}\nexpected: ${want}\nproblems: ${problems.join('; ')}\nresponse: ${res.describe()}`);
          }
        });

        await runProperty(property, { name, testInfo, runs: propertyRuns(target, 'inputs') });
      });
  }
});
