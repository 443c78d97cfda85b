// A JWT access token states its own lifetime (exp, iat): it must be the one expires_in announces
// (spec §2.2, §8; RFC 9068 §2.2), judged by TOKEN-RESP-010's judge on one response per grant the
// region offers, from the responses alone. An opaque token says nothing of its lifetime, nor does
// a JWT without iat in a response without Date: NOT_APPLICABLE when no response can be judged.
import { expect, markNotApplicable, needs, requirement, test, type Region } from '../../fixtures/index.ts';
import { statedLifetime } from '../../fixtures/support/token-responses/jwt-lifetime.ts';
import { successSamples } from '../../fixtures/support/token-responses/success-samples.ts';

const regions: Region[] = ['us', 'eu'];

test.describe('token endpoint: the lifetime a JWT access token states', () => {
  for (const region of regions) {
    const R = region.toUpperCase();
    test(
      `TOKEN-RESP-010 at ${R} a JWT access token carries exp, and exp − iat equals expires_in within the declared clock skew`,
      requirement('TOKEN-RESP-010', needs(region)),
      async ({ tokenClient, target, control }, testInfo) => {
        const unjudged: string[] = [];
        let judged = 0;
        for (const { label, res } of await successSamples(region, tokenClient, target, control)) {
          const stated = statedLifetime(res);
          if (stated.kind === 'not-jwt') {
            unjudged.push(`${label}: the access token is not a JWT`);
            continue;
          }
          if (stated.kind === 'no-start') {
            unjudged.push(`${label}: the JWT has no iat and the response no Date header, so its issuance is unknown`);
            continue;
          }
          control.answered(Number.isInteger(res.expiresIn), res.describe(), {
            what: `${label} (an integer expires_in)`,
            by: 'TOKEN-RESP-004',
          });
          judged += 1;
          await expect.soft(res, label).toSatisfy('TOKEN-RESP-010');
        }
        if (judged === 0) markNotApplicable(testInfo, `no JWT access token to judge: ${unjudged.join('; ')}`);
      },
    );
  }
});
