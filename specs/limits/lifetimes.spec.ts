// Spec §8: the access-token lifetime (expires_in) and the refresh token's 7 days, checked at the
// boundary through the target's clock (less the declared clock skew); and the bearer-token
// lifetime advice of RFC 6750 §5.3 for client_credentials tokens.
import {
  clientCredentialsHolder,
  credentialOf,
  markNotApplicable,
  passwordHolder,
  type Holder,
} from '../../fixtures/index.ts';
import {
  expect,
  judgedOn,
  needs,
  requirement,
  test,
  obtainPasswordTokens,
  anchorChoicesWhileUsable,
  assumedAnchorWhileUsable,
  clockSkewSeconds,
  refreshTokenAnchorSeconds,
  refreshTokenValiditySeconds,
  type Region,
  type TokenClient,
  type TokenSet,
} from '../../fixtures/index.ts';

const issuingGrants: {
  grant: string;
  holder: Holder;
  lifetime: 'ccLifetime' | 'pwLifetime';
  obtain: (tokenClient: TokenClient) => Promise<TokenSet>;
}[] = [
  {
    grant: 'client_credentials',
    holder: clientCredentialsHolder,
    lifetime: 'ccLifetime',
    obtain: (c) => c.obtain.clientCredentials({ region: 'us', client: 'usClient' }),
  },
  {
    grant: 'password',
    holder: passwordHolder,
    lifetime: 'pwLifetime',
    obtain: (c) => c.obtain.password({ region: 'us', user: 'user' }),
  },
];

test.describe('limit: access-token lifetime', () => {
  for (const { grant, holder, obtain } of issuingGrants) {
    test(
      `LIMIT-AT-LIFETIME-001 a ${grant} access token is accepted up to expires_in less the clock skew after issuance`,
      requirement('LIMIT-AT-LIFETIME-001', needs('us', 'gateway'), { obligations: 'records' }),
      async ({ tokenClient, api, timeline, target }) => {
        const lastMoment = (expiresIn: number) => expiresIn - clockSkewSeconds(target);
        await timeline.holds({
          issue: () => obtain(tokenClient),
          atIssuance: async ({ value: token }) => {
            expect(
              lastMoment(token.expires_in),
              `setup: expires_in (${token.expires_in} s) exceeds the declared clock skew`,
            ).toBeGreaterThan(0);
            await test.step('accepted right after issuance', async () => {
              const res = await api.person('existing', { token: token.access_token });
              expect(res.status, `the token is accepted right after issuance — got ${res.describe()}`).toBe(200);
            });
          },
          moments: ({ value: token }) =>
            [...new Set([Math.floor(lastMoment(token.expires_in) / 2), lastMoment(token.expires_in)])]
              .filter((s) => s > 0)
              .map((seconds) => ({
                step: `accepted ${seconds} s after issuance`,
                at: { noLaterThan: seconds },
                holds: async () => {
                  const res = await api.person('existing', { token: token.access_token });
                  expect(
                    res.status,
                    `the token is accepted ${seconds} s after issuance (expires_in ${token.expires_in} s, skew ${clockSkewSeconds(target)} s) — got ${res.describe()}`,
                  ).toBe(200);
                },
              })),
          // The window: from half-way through the lifetime to its end less the skew.
          obligation: (issued) => {
            const last = lastMoment(issued.value.expires_in);
            return {
              kind: 'access-token-accepted',
              requirements: ['LIMIT-AT-LIFETIME-001'],
              what: `the ${grant} access token is still accepted between ${Math.ceil(last / 2)} s and ${last} s after issuance (expires_in ${issued.value.expires_in} s less the skew)`,
              credential: credentialOf(issued, holder, 'access-token'),
              notBeforeSeconds: Math.ceil(last / 2) - (issued.to - issued.from) / 1000,
              notAfterSeconds: last,
            };
          },
        });
      },
    );
  }

  // The clock-free half of the lifetime: the value a token response states, where the profile declares it.
  for (const { grant, lifetime, obtain } of issuingGrants) {
    test(
      `LIMIT-AT-LIFETIME-003 a US ${grant} token response has the declared expires_in (expectations.${lifetime})`,
      requirement('LIMIT-AT-LIFETIME-003', needs('us')),
      async ({ tokenClient, target }, testInfo) => {
        const declared = target.profile.expectations[lifetime];
        if (declared === undefined)
          markNotApplicable(
            testInfo,
            `the profile declares no expectations.${lifetime}: §8's ${grant} lifetime is only a sample`,
          );
        const issued = await obtain(tokenClient);
        expect(issued.expires_in, `expires_in equals the declared expectations.${lifetime}`).toBe(declared);
      },
    );
  }

  for (const region of ['us', 'eu'] as Region[]) {
    test(
      `LIMIT-AT-LIFETIME-002 at ${region.toUpperCase()} a client_credentials token response has expires_in of at most 3600 seconds`,
      requirement('LIMIT-AT-LIFETIME-002', needs(region)),
      async ({ tokenClient }) => {
        const res = await tokenClient.clientCredentials({ region });
        await expect(res, 'setup: a client_credentials token is issued').toBeTokenIssued();
        expect(typeof res.expiresIn, 'setup: expires_in is a number').toBe('number');
        await expect(res, 'expires_in (RFC 6750 §5.3: one hour or less)').toSatisfy('LIMIT-AT-LIFETIME-002');
      },
    );
  }
});

test.describe('limit: refresh-token validity (OI-4 refreshTokenAnchor)', () => {
  test(
    'LIMIT-RT-LIFETIME-001 a refresh token is accepted throughout its 7 days from the declared anchor, less the clock skew',
    requirement('LIMIT-RT-LIFETIME-001', needs('us'), { obligations: 'records' }),
    async ({ tokenClient, timeline, target }) => {
      const lastMoment = (expiresIn: number) =>
        refreshTokenAnchorSeconds(target, expiresIn) + refreshTokenValiditySeconds - clockSkewSeconds(target);
      const anchor = target.interpretation('refreshTokenAnchor');
      await timeline.holds({
        issue: () => obtainPasswordTokens(tokenClient, 'user'),
        // A refresh uses the token up, so each moment gets its own refresh token.
        tokenPerMoment: true,
        moments: ({ value: tokens }) =>
          (
            [
              ['half-way through its validity', Math.floor(lastMoment(tokens.expires_in) / 2)],
              ['at the end of its validity less the clock skew', lastMoment(tokens.expires_in)],
            ] as const
          ).map(([label, seconds]) => ({
            step: `refresh ${label}: ${seconds} s after issuance (anchor ${anchor})`,
            at: { noLaterThan: seconds },
            // Past the end of the 7 days under another reading of an undeclared anchor, a refusal is a mismatch on the assumption.
            holds: () =>
              judgedOn(
                anchorChoicesWhileUsable(target, tokens.expires_in, seconds),
                async () => {
                  await expect(await tokenClient.refresh(tokens.refresh_token, { region: 'us' })).toBeTokenIssued();
                },
                { requirements: ['LIMIT-RT-LIFETIME-001'] },
              ),
          })),
        // The window: from half-way through the 7 days (from the declared anchor) to their end less the skew.
        obligation: (issued) => {
          const last = lastMoment(issued.value.expires_in);
          return {
            kind: 'refresh-token-usable',
            requirements: ['LIMIT-RT-LIFETIME-001'],
            what: `the refresh token is still usable between ${Math.floor(last / 2)} s and ${last} s after issuance (7 days from the anchor ${anchor}, less the skew)`,
            credential: credentialOf(issued, passwordHolder, 'refresh-token'),
            notBeforeSeconds: Math.floor(last / 2) - (issued.to - issued.from) / 1000,
            notAfterSeconds: last,
            ...assumedAnchorWhileUsable(target, issued.value.expires_in),
          };
        },
      });
    },
  );
});
