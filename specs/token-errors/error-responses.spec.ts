// The format of every token-endpoint error response (spec §2.3, §7.1; RFC 6749 §5.2), judged on a
// representative set of error conditions at each region (error-conditions.ts): each check sends
// the set and hands the answers to its requirement's judge (judges/token-judges.ts), which names
// every answer that breaks it.
import { expect, needs, requirement, test, type Region } from '../../fixtures/index.ts';
import { sampleErrorResponses } from '../../fixtures/support/token-errors/error-conditions.ts';

const regions: Region[] = ['us', 'eu'];

const checks: [id: string, title: string][] = [
  [
    'ERR-TOK-001',
    'every token-endpoint error response is application/json with a JSON object whose error is a catalogued code',
  ],
  ['ERR-TOK-002', 'every token-endpoint error response other than invalid_client has status 400'],
  [
    'ERR-TOK-003',
    'the error_description of every token-endpoint error uses only RFC 6749 characters and its error_uri is an absolute URI',
  ],
  ['ERR-TOK-005', 'no token-endpoint error response contains an access_token or refresh_token member'],
  ['ERR-TOK-006', 'every token-endpoint error response carries a non-empty error_description'],
  [
    'ERR-TOK-008',
    'no token-endpoint error response echoes the client_secret, password or refresh_token the request carried',
  ],
];

test.describe('token endpoint: error responses', () => {
  for (const region of regions) {
    const R = region.toUpperCase();
    for (const [id, title] of checks) {
      test(
        `${id} at ${R} ${title}`,
        requirement(id, needs(region)),
        async ({ tokenClient, rawHttp, target, redactor }) => {
          const sample = await sampleErrorResponses(region, { tokenClient, rawHttp, target, redactor });
          await expect(
            sample.map((s) => s.res),
            `the error answers to: ${sample.map((s) => s.label).join('; ')}`,
          ).toSatisfy(id);
        },
      );
    }
  }
});
