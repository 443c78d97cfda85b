// Issued access tokens are unguessable (RFC 6749 §10.10; RFC 6819 §5.1.4.2.2), judged from the
// outside by two proxies: no two responses carry the same access_token, and none is shorter than
// 22 characters (128 bits in base64url). TOKEN-RESP-009's judge reads the responses in order, as
// `audit` reads recorded traffic; tokens are compared, never shown.
import { expect, needs, requirement, test, type Region } from '../../fixtures/index.ts';
import { successSamples } from '../../fixtures/support/token-responses/success-samples.ts';

const regions: Region[] = ['us', 'eu'];

test.describe('token endpoint: access token uniqueness and length', () => {
  for (const region of regions) {
    const R = region.toUpperCase();

    test(
      `TOKEN-RESP-009 at ${R} no two token responses carry the same access_token, and every access_token has at least 22 characters`,
      requirement('TOKEN-RESP-009', needs(region)),
      async ({ tokenClient, target, control }) => {
        // One response per grant, then the same grants again (same client, same user).
        const first = await successSamples(region, tokenClient, target, control);
        const second = await successSamples(region, tokenClient, target, control);
        await expect(
          [...first, ...second].map((s) => s.res),
          `${first.map((s) => s.label).join(', ')}, twice`,
        ).toSatisfy('TOKEN-RESP-009');
      },
    );
  }
});
