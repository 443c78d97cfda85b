// Token endpoint answers are not to be cached (RFC 6749 §5.1): Cache-Control: no-store and
// Pragma: no-cache on every success, and (advisory) no-store on every error too.
import {
  expect,
  needs,
  requirement,
  test,
  sampleErrorResponses,
  type TokenResponse,
  type Region,
} from '../../fixtures/index.ts';
import { successSamples } from '../../fixtures/support/token-responses/success-samples.ts';

const regions: Region[] = ['us', 'eu'];

/** The directive names of a comma-separated header (Cache-Control, Pragma), lower-cased. */
function directives(res: TokenResponse, header: string): string[] {
  return (res.header(header) ?? '')
    .split(',')
    .map((d) => d.split('=')[0]!.trim().toLowerCase())
    .filter((d) => d !== '');
}

test.describe('token endpoint: caching headers', () => {
  for (const region of regions) {
    const R = region.toUpperCase();

    test(
      `TOKEN-RESP-005 at ${R} every successful token response carries Cache-Control with the no-store directive`,
      requirement('TOKEN-RESP-005', needs(region)),
      async ({ tokenClient, target, control }) => {
        for (const { label, res } of await successSamples(region, tokenClient, target, control)) {
          expect
            .soft(
              directives(res, 'cache-control'),
              `${label}: Cache-Control directives — got Cache-Control: ${res.header('cache-control') ?? '(none)'}`,
            )
            .toContain('no-store');
        }
      },
    );

    test(
      `TOKEN-RESP-006 at ${R} every successful token response carries Pragma: no-cache`,
      requirement('TOKEN-RESP-006', needs(region)),
      async ({ tokenClient, target, control }) => {
        for (const { label, res } of await successSamples(region, tokenClient, target, control)) {
          expect
            .soft(directives(res, 'pragma'), `${label}: Pragma — got Pragma: ${res.header('pragma') ?? '(none)'}`)
            .toContain('no-cache');
        }
      },
    );

    test(
      `TOKEN-RESP-008 at ${R} every token-endpoint error response carries Cache-Control with the no-store directive`,
      requirement('TOKEN-RESP-008', needs(region)),
      async ({ tokenClient, rawHttp, target, redactor }) => {
        for (const { label, res } of await sampleErrorResponses(region, { tokenClient, rawHttp, target, redactor })) {
          expect
            .soft(
              directives(res, 'cache-control'),
              `${label}: Cache-Control directives — got Cache-Control: ${res.header('cache-control') ?? '(none)'}`,
            )
            .toContain('no-store');
        }
      },
    );
  }
});
