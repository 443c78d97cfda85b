// Token endpoint answers are not to be cached (RFC 6749 §5.1): Cache-Control: no-store and
// Pragma: no-cache on every success, and (advisory) no-store on every error too. The checks drive
// the requests; each requirement's judge (the one `audit` runs on recorded traffic) decides.
import { expect, needs, requirement, test, sampleErrorResponses, type Region } from '../../fixtures/index.ts';
import { successSamples } from '../../fixtures/support/token-responses/success-samples.ts';

const regions: Region[] = ['us', 'eu'];

test.describe('token endpoint: caching headers', () => {
  for (const region of regions) {
    const R = region.toUpperCase();

    test(
      `TOKEN-RESP-005 at ${R} every successful token response carries Cache-Control with the no-store directive`,
      requirement('TOKEN-RESP-005', needs(region)),
      async ({ tokenClient, target, control }) => {
        for (const { label, res } of await successSamples(region, tokenClient, target, control))
          await expect.soft(res, `${label}: Cache-Control`).toSatisfy('TOKEN-RESP-005');
      },
    );

    test(
      `TOKEN-RESP-006 at ${R} every successful token response carries Pragma: no-cache`,
      requirement('TOKEN-RESP-006', needs(region)),
      async ({ tokenClient, target, control }) => {
        for (const { label, res } of await successSamples(region, tokenClient, target, control))
          await expect.soft(res, `${label}: Pragma`).toSatisfy('TOKEN-RESP-006');
      },
    );

    test(
      `TOKEN-RESP-008 at ${R} every token-endpoint error response carries Cache-Control with the no-store directive`,
      requirement('TOKEN-RESP-008', needs(region)),
      async ({ tokenClient, rawHttp, target, redactor }) => {
        for (const { label, res } of await sampleErrorResponses(region, { tokenClient, rawHttp, target, redactor }))
          await expect.soft(res, `${label}: Cache-Control`).toSatisfy('TOKEN-RESP-008');
      },
    );
  }
});
