// Spec §3 rows 1 and 3: an access token is accepted while valid and refused once its expires_in
// seconds have elapsed; after a client_credentials token expired, only a new client_credentials
// request gives a working token again.
import {
  expect,
  needs,
  requirement,
  test,
  clockSkewSeconds,
  type TokenClient,
  type TokenSet,
} from '../../fixtures/index.ts';
import { beyondSeconds, withinSeconds } from '../../fixtures/support/lifecycle/token-timeline.ts';
import { clientCredentialsHolder, credentialOf, passwordHolder, type Holder } from '../../fixtures/index.ts';

/** The two grants that issue an access token from scratch (spec §3 rows 1 and 2). */
const issuingGrants: { grant: string; holder: Holder; obtain: (tokenClient: TokenClient) => Promise<TokenSet> }[] = [
  {
    grant: 'client_credentials',
    holder: clientCredentialsHolder,
    obtain: (c) => c.obtain.clientCredentials({ region: 'us', client: 'usClient' }),
  },
  { grant: 'password', holder: passwordHolder, obtain: (c) => c.obtain.password({ region: 'us', user: 'user' }) },
];

test.describe('access token: valid', () => {
  test(
    'STATE-CC-001 a client_credentials access token of a registered client is accepted by the protected endpoint',
    requirement('STATE-CC-001', needs('us', 'gateway')),
    async ({ tokenClient, api }) => {
      const token = await tokenClient.obtain.clientCredentials({ region: 'us', client: 'usClient' });
      const res = await api.person('existing', { token: token.access_token });
      expect(res.status, `the protected endpoint accepts the token — got ${res.describe()}`).toBe(200);
    },
  );
});

test.describe('access token: expired', () => {
  for (const { grant, holder, obtain } of issuingGrants) {
    test(
      `STATE-AT-EXP-001 a ${grant} access token is refused with 401 once expires_in seconds (and the clock skew) have elapsed`,
      requirement('STATE-AT-EXP-001', needs('us', 'gateway'), { obligations: 'records' }),
      async ({ tokenClient, api, timeline, target, control }) => {
        // A fresh token refused by the protected endpoint is STATE-CC-001's / STATE-PW-001's finding.
        const acceptedFresh = grant === 'client_credentials' ? 'STATE-CC-001' : 'STATE-PW-001';
        const skew = clockSkewSeconds(target);
        await timeline.holds({
          issue: () => obtain(tokenClient),
          atIssuance: ({ value: token }) =>
            test.step('accepted right after issuance', async () => {
              const res = await api.person('existing', { token: token.access_token });
              control.answered(res.status === 200, res.describe(), {
                what: 'the fresh token at the protected endpoint (accepted)',
                by: acceptedFresh,
              });
            }),
          // From below within the skew, then beyond it: the refusal is the expiry, not something else.
          moments: ({ value: token }) => [
            ...(withinSeconds(target, token.expires_in) > 0
              ? [
                  {
                    step: `still accepted at expires_in (${token.expires_in} s) − skew (${skew} s) after issuance`,
                    at: { noLaterThan: withinSeconds(target, token.expires_in) },
                    holds: async () => {
                      const res = await api.person('existing', { token: token.access_token });
                      expect(
                        res.status,
                        `setup: the token is accepted ${withinSeconds(target, token.expires_in)} s after issuance, within its lifetime less the clock skew (LIMIT-AT-LIFETIME-001) — got ${res.describe()}`,
                      ).toBe(200);
                    },
                  },
                ]
              : []),
            {
              step: `refused at expires_in (${token.expires_in} s) + skew (${skew} s) + 1 s after issuance`,
              at: { noEarlierThan: beyondSeconds(target, token.expires_in) },
              holds: async () => {
                const res = await api.person('existing', { token: token.access_token });
                // The judge reads the token's issuance and the target's time from the clock's answers.
                await expect(timeline.onTargetClock([tokenClient.issuing(token), res])).toSatisfy('STATE-AT-EXP-001');
              },
            },
          ],
          obligation: (issued) => ({
            kind: 'expired-access-token-refused',
            expect: 'status-401',
            requirements: ['STATE-AT-EXP-001'],
            what: `the ${grant} access token is refused with 401 once expires_in (${issued.value.expires_in} s) + skew (${skew} s) + 1 s have passed`,
            credential: credentialOf(issued, holder, 'access-token'),
            notBeforeSeconds: beyondSeconds(target, issued.value.expires_in),
          }),
        });
      },
    );
  }

  test(
    'STATE-AT-EXP-002 after a client_credentials token expired, a new client_credentials request gives a token that is accepted',
    requirement('STATE-AT-EXP-002', needs('us', 'gateway'), { obligations: 'records' }),
    async ({ tokenClient, api, timeline, target }) => {
      await timeline.holds({
        issue: () => tokenClient.obtain.clientCredentials({ region: 'us', client: 'usClient' }),
        moments: ({ value: token }) => [
          {
            step: 'the first token expires (expires_in + clock skew + 1 s)',
            at: { noEarlierThan: beyondSeconds(target, token.expires_in) },
            holds: async () => {
              const res = await api.person('existing', { token: token.access_token });
              expect(
                res.status,
                `setup: the first token is no longer accepted once expired — got ${res.describe()}`,
              ).not.toBe(200);
              await test.step('a new client_credentials request succeeds and its token is accepted', async () => {
                const again = await tokenClient.clientCredentials({ region: 'us', client: 'usClient' });
                await expect(again).toBeTokenIssued();
                const accepted = await api.person('existing', { token: again.accessToken });
                expect(accepted.status, `the new token is accepted — got ${accepted.describe()}`).toBe(200);
              });
            },
          },
        ],
        obligation: (issued) => ({
          kind: 'new-token-after-expiry',
          requirements: ['STATE-AT-EXP-002'],
          what: `once the client_credentials token expired (expires_in ${issued.value.expires_in} s + skew + 1 s), a new client_credentials token is issued and accepted`,
          credential: credentialOf(issued, clientCredentialsHolder, 'access-token'),
          notBeforeSeconds: beyondSeconds(target, issued.value.expires_in),
        }),
      });
    },
  );
});
