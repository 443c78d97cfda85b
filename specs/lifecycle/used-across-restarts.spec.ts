// Used stays used across restarts and runs (CVE-2026-9802, keycloak #49426: restarting the server
// brought rotated refresh tokens back to life). The single-use checks of refresh-token.spec.ts
// ask one process within seconds; this one asks the target again after it restarted:
// - with a restart control (capabilities.restartControlUrl; `run --start-reference` restarts the
//   reference server it started, on the same store): use a refresh token, restart, replay it;
// - without one, with a state file: record the used token (encrypted in the state, named by its
//   handle) for the next run to replay, whatever was redeployed, restarted or failed over between;
// - without either: SKIP, saying what was not verified.
// A refusal counts only while the unused refresh token that replaced the used one still refreshes
// after the restart (a target that lost every token refuses both and proves nothing: SKIP).
// Replaying a used token burns its family: the profile's burnableUser.
import {
  credentialOf,
  expect,
  needs,
  requirement,
  test,
  obtainPasswordTokens,
  type Holder,
} from '../../fixtures/index.ts';
import { obtainRefreshed } from '../../fixtures/support/lifecycle/password-tokens.ts';

const burnable: Holder = { grant: 'password', client: 'usPasswordClient', user: 'burnableUser' };

test.describe('grant_type=refresh_token: used, across restarts and runs', () => {
  test(
    'STATE-RT-USED-003 a used refresh token is still refused with invalid_grant after the target restarted, and in a later run',
    requirement('STATE-RT-USED-003', needs('us'), { obligations: 'records', tag: ['@serial'] }),
    async ({ tokenClient, restart, obligations }) => {
      if (!restart && !obligations.keepsState) {
        test.skip(
          true,
          'not verified: the target has no restart control (capabilities.restartControlUrl) and the run keeps no state file (`run --state FILE`): a used refresh token is never asked again after a restart or in a later run',
        );
      }
      const issued = await obligations.issue(() => obtainPasswordTokens(tokenClient, 'burnableUser'));
      const replacement = await test.step('use the refresh token once', () =>
        obtainRefreshed(tokenClient, issued.value.refresh_token));
      if (!restart) {
        obligations.recordForNextRun(issued, {
          kind: 'used-refresh-token-refused',
          requirements: ['STATE-RT-USED-003'],
          what: 'the refresh token used in the recording run is refused with invalid_grant in a later run (after any restart, redeploy or failover between)',
          credential: credentialOf(issued, burnable, 'refresh-token'),
          control: { ...credentialOf({ ...issued, value: replacement }, burnable, 'refresh-token') },
        });
        return;
      }
      await test.step('restart the target (restart control)', () => restart.restart());
      await test.step('control: the unused refresh token that replaced it still refreshes after the restart', async () => {
        const res = await tokenClient.refresh(replacement.refresh_token, { region: 'us' });
        if (res.status !== 200)
          test.skip(
            true,
            `not verified: after the restart the target refused the unused refresh token too (${res.describe()}): it lost its tokens, so a refusal of the used one would prove nothing`,
          );
      });
      await test.step('replay the refresh token used before the restart', async () => {
        await expect(await tokenClient.refresh(issued.value.refresh_token, { region: 'us' })).toBeTokenError(
          'invalid_grant',
        );
      });
    },
  );
});
