// Issued access tokens are unguessable (RFC 6749 §10.10; RFC 6819 §5.1.4.2.2), judged from the
// outside by two proxies: no two responses carry the same access_token, and none is shorter than
// 22 characters (128 bits in base64url). Tokens are compared, never shown.
import { expect, needs, requirement, test, type Region } from '../../fixtures/index.ts';
import { successSamples } from '../../fixtures/support/token-responses/success-samples.ts';

const regions: Region[] = ['us', 'eu'];
const minimumLength = 22;

test.describe('token endpoint: access token uniqueness and length', () => {
  for (const region of regions) {
    const R = region.toUpperCase();

    test(
      `TOKEN-RESP-009 at ${R} no two token responses carry the same access_token, and every access_token has at least 22 characters`,
      requirement('TOKEN-RESP-009', needs(region)),
      async ({ tokenClient, target, control }) => {
        // One response per grant, then the same grants again (same client, same user).
        const samples = [
          ...(await successSamples(region, tokenClient, target, control)).map((s) => ({
            ...s,
            label: `${s.label} (1st)`,
          })),
          ...(await successSamples(region, tokenClient, target, control)).map((s) => ({
            ...s,
            label: `${s.label} (2nd)`,
          })),
        ];
        const firstSeen = new Map<string, string>();
        for (const { label, res } of samples) {
          const token = res.accessToken!;
          expect.soft(token.length, `${label}: access_token length`).toBeGreaterThanOrEqual(minimumLength);
          const earlier = firstSeen.get(token);
          expect.soft(earlier, `${label}: access_token differs from every earlier one`).toBeUndefined();
          if (earlier === undefined) firstSeen.set(token, label);
        }
      },
    );
  }
});
