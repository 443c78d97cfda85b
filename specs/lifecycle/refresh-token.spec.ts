// Spec §3 rows 4 to 6: a refresh token is single use, works after its access token expired and
// until its own 7 days end (counted from the anchor the target declares, OI-4); what happens to
// the rest of a refresh-token family on reuse (RFC 9700 §4.14.2, ADVISORY); and what a refresh
// does to the access token issued with the replaced refresh token (OI-15); that a rotation gives its
// refresh token one window of its own and no more; and that refresh_token_expires_in, where a
// response announces it, is when the refresh token stops working.
// Checks that burn a family (replay a used refresh token) use the profile's burnableUser.
import { credentialOf, passwordHolder } from '../../fixtures/index.ts';
import {
  choiceLabel,
  expect,
  judgedOn,
  markNotApplicable,
  needs,
  requirement,
  test,
  obtainPasswordTokens,
  anchorChoicesWhileUsable,
  assumedAnchorWhileUsable,
  clockSkewSeconds,
  refreshTokenAnchorSeconds,
  refreshTokenValiditySeconds,
} from '../../fixtures/index.ts';
import { obtainRefreshed, type PasswordTokens } from '../../fixtures/support/lifecycle/password-tokens.ts';
import { announcedRefreshLifetime } from '../../fixtures/support/lifecycle/refresh-token-expires-in.ts';
import { beyondSeconds, withinSeconds } from '../../fixtures/support/lifecycle/token-timeline.ts';

test.describe('grant_type=refresh_token: unused', () => {
  test(
    'STATE-RT-UNUSED-003 the access token returned by a refresh is accepted by the protected endpoint',
    requirement('STATE-RT-UNUSED-003', needs('us', 'gateway')),
    async ({ tokenClient, api }) => {
      const first = await obtainPasswordTokens(tokenClient, 'user');
      const refreshed = await obtainRefreshed(tokenClient, first.refresh_token);
      const res = await api.person('existing', { token: refreshed.access_token });
      expect(
        res.status,
        `the refreshed access token is accepted (§3 row 4: a new access token is issued) — got ${res.describe()}`,
      ).toBe(200);
    },
  );
});

test.describe('grant_type=refresh_token: used', () => {
  test(
    'STATE-RT-USED-001 a refresh token already used for a successful refresh is refused with invalid_grant',
    requirement('STATE-RT-USED-001', needs('us')),
    async ({ tokenClient }) => {
      const first = await obtainPasswordTokens(tokenClient, 'burnableUser');
      const second = await test.step('refresh once', () => obtainRefreshed(tokenClient, first.refresh_token));
      await test.step('refresh again with the same token', async () => {
        const again = await tokenClient.refresh(first.refresh_token, { region: 'us' });
        await expect([first, second].map((t) => tokenClient.issuing(t)).concat(again)).toSatisfy('STATE-RT-USED-001');
      });
    },
  );

  test(
    'STATE-RT-USED-002 a used refresh token is still refused after its replacement has been used in turn',
    requirement('STATE-RT-USED-002', needs('us')),
    async ({ tokenClient }) => {
      const first = await obtainPasswordTokens(tokenClient, 'burnableUser');
      const chain = await test.step('refresh twice along the chain', async () => {
        const second = await obtainRefreshed(tokenClient, first.refresh_token);
        return [first, second, await obtainRefreshed(tokenClient, second.refresh_token)];
      });
      await test.step('the first refresh token again', async () => {
        const again = await tokenClient.refresh(first.refresh_token, { region: 'us' });
        await expect(chain.map((t) => tokenClient.issuing(t)).concat(again)).toSatisfy('STATE-RT-USED-002');
      });
    },
  );
});

test.describe('grant_type=refresh_token: reuse detection (RFC 9700 §4.14.2)', () => {
  test(
    'STATE-RT-FAMILY-001 after a used refresh token is presented again, its replacement is refused too',
    requirement('STATE-RT-FAMILY-001', needs('us')),
    async ({ tokenClient, control }) => {
      const first = await obtainPasswordTokens(tokenClient, 'burnableUser');
      const second = await test.step('refresh once', () => obtainRefreshed(tokenClient, first.refresh_token));
      const replay = await test.step('replay the used refresh token', async () => {
        const res = await tokenClient.refresh(first.refresh_token, { region: 'us' });
        control.answered(res.status !== 200, res.describe(), {
          what: 'the replayed refresh token (no new token)',
          by: 'STATE-RT-USED-001',
        });
        return res;
      });
      await test.step('the replacement refresh token', async () => {
        const res = await tokenClient.refresh(second.refresh_token, { region: 'us' });
        await expect([tokenClient.issuing(first), tokenClient.issuing(second), replay, res]).toSatisfy(
          'STATE-RT-FAMILY-001',
        );
      });
    },
  );

  test(
    'STATE-RT-FAMILY-002 after a family was revoked for reuse, its access tokens are refused by the protected endpoint',
    requirement('STATE-RT-FAMILY-002', needs('us', 'gateway')),
    async ({ tokenClient, api, control }) => {
      const first = await obtainPasswordTokens(tokenClient, 'burnableUser');
      const second = await test.step('refresh once; the new access token works', async () => {
        const refreshed = await obtainRefreshed(tokenClient, first.refresh_token);
        const res = await api.person('existing', { token: refreshed.access_token });
        control.answered(res.status === 200, res.describe(), {
          what: 'the refreshed access token (accepted)',
          by: 'STATE-RT-UNUSED-003',
        });
        return refreshed;
      });
      const replay = await test.step('replay the used refresh token', async () => {
        const res = await tokenClient.refresh(first.refresh_token, { region: 'us' });
        control.answered(res.status !== 200, res.describe(), {
          what: 'the replayed refresh token (no new token)',
          by: 'STATE-RT-USED-001',
        });
        return res;
      });
      for (const [which, token] of [
        ['from the password grant', first.access_token],
        ['from the refresh', second.access_token],
      ] as const) {
        await test.step(`the access token ${which} is refused`, async () => {
          const res = await api.person('existing', { token });
          await expect
            .soft([tokenClient.issuing(first), tokenClient.issuing(second), replay, res], `the access token ${which}`)
            .toSatisfy('STATE-RT-FAMILY-002');
        });
      }
    },
  );
});

test.describe('grant_type=refresh_token: the previous access token (OI-15)', () => {
  test(
    'STATE-AT-AFTER-REFRESH-001 after a refresh, the earlier access token is accepted or refused as the target declares',
    requirement('STATE-AT-AFTER-REFRESH-001', needs('us', 'gateway')),
    async ({ tokenClient, api, target, control }) => {
      const declared = target.choice('accessTokenAfterRefresh');
      const first = await obtainPasswordTokens(tokenClient, 'user');
      await test.step('the access token works before the refresh', async () => {
        const res = await api.person('existing', { token: first.access_token });
        control.answered(res.status === 200, res.describe(), {
          what: 'the access token before the refresh (accepted)',
          by: 'STATE-PW-001',
        });
      });
      const refreshed = await test.step('refresh', () => obtainRefreshed(tokenClient, first.refresh_token));
      await test.step(`the earlier access token after the refresh (${choiceLabel(declared)})`, async () => {
        const res = await api.person('existing', { token: first.access_token });
        // The judge reads the declared choice (OI-15): an undeclared one makes a failure WARN.
        await expect([tokenClient.issuing(first), tokenClient.issuing(refreshed), res]).toSatisfy(
          'STATE-AT-AFTER-REFRESH-001',
        );
      });
    },
  );
});

test.describe('grant_type=refresh_token: expiry (OI-4 refreshTokenAnchor)', () => {
  test(
    'STATE-RT-UNUSED-002 a refresh after the access token expired, before the refresh token has, succeeds',
    requirement('STATE-RT-UNUSED-002', needs('us', 'gateway'), { obligations: 'records' }),
    async ({ tokenClient, api, timeline, target }) => {
      // The window: past the access token's end by the clock skew, before the refresh token's end by the skew.
      const from = (expiresIn: number) => beyondSeconds(target, expiresIn);
      const until = (expiresIn: number) =>
        refreshTokenAnchorSeconds(target, expiresIn) + refreshTokenValiditySeconds - clockSkewSeconds(target);
      await timeline.holds({
        issue: () => obtainPasswordTokens(tokenClient, 'user'),
        atIssuance: (issued) => {
          const { expires_in: expiresIn } = issued.value;
          if ((issued.to - issued.from) / 1000 + from(expiresIn) > until(expiresIn)) {
            markNotApplicable(
              test.info(),
              `with refreshTokenAnchor=${target.interpretation('refreshTokenAnchor')} and expires_in ${expiresIn} s the refresh token ends no later than its access token`,
            );
          }
        },
        moments: ({ value: tokens, from: issuedFrom, to: issuedTo }) => [
          {
            step: `the access token expires (expires_in ${tokens.expires_in} s + skew ${clockSkewSeconds(target)} s + 1 s)`,
            at: { noEarlierThan: from(tokens.expires_in) },
            holds: async () => {
              const res = await api.person('existing', { token: tokens.access_token });
              expect(res.status, `setup: the access token is no longer accepted — got ${res.describe()}`).not.toBe(200);
              // Past the end of the 7 days under another reading of an undeclared anchor (the latest the
              // moment can be after issuance), a refusal is a mismatch on the assumption.
              const latest = from(tokens.expires_in) + (issuedTo - issuedFrom) / 1000;
              await test.step('refresh with the unused refresh token', () =>
                judgedOn(
                  anchorChoicesWhileUsable(target, tokens.expires_in, latest),
                  async () => {
                    await expect(await tokenClient.refresh(tokens.refresh_token, { region: 'us' })).toBeTokenIssued();
                  },
                  { requirements: ['STATE-RT-UNUSED-002'] },
                ));
            },
          },
        ],
        obligation: (issued) => ({
          kind: 'refresh-after-access-token-expiry',
          requirements: ['STATE-RT-UNUSED-002'],
          what: `a refresh after the access token expired (${from(issued.value.expires_in)} s after issuance) and before the refresh token did (${until(issued.value.expires_in)} s) succeeds`,
          credential: credentialOf(issued, passwordHolder, 'refresh-token'),
          notBeforeSeconds: from(issued.value.expires_in),
          notAfterSeconds: until(issued.value.expires_in),
          ...assumedAnchorWhileUsable(target, issued.value.expires_in),
        }),
      });
    },
  );

  test(
    'STATE-RT-EXP-001 an unused refresh token presented after its 7 days (from the declared anchor) is refused with invalid_grant',
    requirement('STATE-RT-EXP-001', needs('us'), { obligations: 'records' }),
    async ({ tokenClient, timeline, target }) => {
      const end = (expiresIn: number) => refreshTokenAnchorSeconds(target, expiresIn) + refreshTokenValiditySeconds;
      await timeline.holds({
        issue: () => obtainPasswordTokens(tokenClient, 'user'),
        moments: ({ value: tokens }) => [
          {
            step: `refresh at ${end(tokens.expires_in)} s + skew ${clockSkewSeconds(target)} s + 1 s after issuance (anchor ${target.interpretation('refreshTokenAnchor')})`,
            at: { noEarlierThan: beyondSeconds(target, end(tokens.expires_in)) },
            holds: async () => {
              const res = await tokenClient.refresh(tokens.refresh_token, { region: 'us' });
              await expect(timeline.onTargetClock([tokenClient.issuing(tokens), res])).toSatisfy('STATE-RT-EXP-001');
            },
          },
        ],
        obligation: (issued) => ({
          kind: 'expired-refresh-token-refused',
          requirements: ['STATE-RT-EXP-001'],
          what: `the unused refresh token is refused with invalid_grant after its 7 days (${end(issued.value.expires_in)} s from issuance, anchor ${target.interpretation('refreshTokenAnchor')}) + skew + 1 s`,
          credential: credentialOf(issued, passwordHolder, 'refresh-token'),
          notBeforeSeconds: beyondSeconds(target, end(issued.value.expires_in)),
        }),
      });
    },
  );

  test(
    'STATE-RT-EXP-002 a refresh token issued by a rotation is refused with invalid_grant once its own 7 days (from the declared anchor) have ended',
    requirement('STATE-RT-EXP-002', needs('us'), { obligations: 'records' }),
    async ({ tokenClient, timeline, target }) => {
      // OI-4 anchors the 7 days on the access token issued with the refresh token: the rotation's own.
      const end = (expiresIn: number) => refreshTokenAnchorSeconds(target, expiresIn) + refreshTokenValiditySeconds;
      const anchor = target.interpretation('refreshTokenAnchor');
      // The judge tells a rotation from the password grant's response that issued its refresh token.
      const issuedBy: PasswordTokens[] = [];
      await timeline.holds({
        issue: async () => {
          issuedBy.push(await obtainPasswordTokens(tokenClient, 'user'));
          return obtainRefreshed(tokenClient, issuedBy.at(-1)!.refresh_token);
        },
        moments: ({ value: rotated }) => [
          {
            step: `refresh with the rotated token at ${end(rotated.expires_in)} s + skew ${clockSkewSeconds(target)} s + 1 s after the rotation (anchor ${anchor})`,
            at: { noEarlierThan: beyondSeconds(target, end(rotated.expires_in)) },
            holds: async () => {
              const res = await tokenClient.refresh(rotated.refresh_token, { region: 'us' });
              await expect(
                timeline.onTargetClock([...issuedBy, rotated].map((t) => tokenClient.issuing(t)).concat(res)),
              ).toSatisfy('STATE-RT-EXP-002');
            },
          },
        ],
        obligation: (issued) => ({
          kind: 'expired-refresh-token-refused',
          requirements: ['STATE-RT-EXP-002'],
          what: `the rotated refresh token is refused with invalid_grant after its own 7 days (${end(issued.value.expires_in)} s from the rotation, anchor ${anchor}) + skew + 1 s`,
          credential: credentialOf(issued, passwordHolder, 'refresh-token'),
          notBeforeSeconds: beyondSeconds(target, end(issued.value.expires_in)),
        }),
      });
    },
  );
});

test.describe('grant_type=refresh_token: the announced refresh_token_expires_in (draft-ietf-oauth-refresh-token-expiration-03)', () => {
  test(
    'STATE-RT-EXP-003 a refresh token is accepted up to its refresh_token_expires_in less the clock skew',
    requirement('STATE-RT-EXP-003', needs('us'), { obligations: 'records' }),
    async ({ tokenClient, timeline, target }) => {
      await timeline.holds({
        issue: () => obtainPasswordTokens(tokenClient, 'user'),
        atIssuance: ({ value: tokens }) => {
          const announced = announcedRefreshLifetime(test.info(), tokens);
          expect(
            withinSeconds(target, announced),
            `setup: refresh_token_expires_in (${announced} s) exceeds the declared clock skew`,
          ).toBeGreaterThan(0);
        },
        moments: ({ value: tokens }) => {
          const announced = announcedRefreshLifetime(test.info(), tokens);
          return [
            {
              step: `refresh ${withinSeconds(target, announced)} s after issuance (refresh_token_expires_in ${announced} s less the skew)`,
              at: { noLaterThan: withinSeconds(target, announced) },
              holds: async () => {
                await expect(await tokenClient.refresh(tokens.refresh_token, { region: 'us' })).toBeTokenIssued();
              },
            },
          ];
        },
        // The window: from half-way through the announced lifetime to its end less the skew.
        obligation: (issued) => {
          const last = withinSeconds(target, announcedRefreshLifetime(test.info(), issued.value));
          return {
            kind: 'refresh-token-usable',
            requirements: ['STATE-RT-EXP-003'],
            what: `the refresh token is still usable between ${Math.floor(last / 2)} s and ${last} s after issuance (refresh_token_expires_in less the skew)`,
            credential: credentialOf(issued, passwordHolder, 'refresh-token'),
            notBeforeSeconds: Math.floor(last / 2) - (issued.to - issued.from) / 1000,
            notAfterSeconds: last,
          };
        },
      });
    },
  );

  test(
    'STATE-RT-EXP-003 a refresh token presented after its refresh_token_expires_in is refused with invalid_grant',
    requirement('STATE-RT-EXP-003', needs('us'), { obligations: 'records' }),
    async ({ tokenClient, timeline, target }) => {
      await timeline.holds({
        issue: () => obtainPasswordTokens(tokenClient, 'user'),
        atIssuance: ({ value: tokens }) => {
          announcedRefreshLifetime(test.info(), tokens);
        },
        moments: ({ value: tokens }) => {
          const announced = announcedRefreshLifetime(test.info(), tokens);
          return [
            {
              step: `refresh ${beyondSeconds(target, announced)} s after issuance (refresh_token_expires_in ${announced} s + skew + 1 s)`,
              at: { noEarlierThan: beyondSeconds(target, announced) },
              holds: async () => {
                const res = await tokenClient.refresh(tokens.refresh_token, { region: 'us' });
                await expect(timeline.onTargetClock([tokenClient.issuing(tokens), res])).toSatisfy('STATE-RT-EXP-003');
              },
            },
          ];
        },
        obligation: (issued) => {
          const announced = announcedRefreshLifetime(test.info(), issued.value);
          return {
            kind: 'expired-refresh-token-refused',
            requirements: ['STATE-RT-EXP-003'],
            what: `the refresh token is refused with invalid_grant after its refresh_token_expires_in (${announced} s) + skew + 1 s`,
            credential: credentialOf(issued, passwordHolder, 'refresh-token'),
            notBeforeSeconds: beyondSeconds(target, announced),
          };
        },
      });
    },
  );
});
