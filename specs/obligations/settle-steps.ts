// The requests that settle an obligation (fixtures/obligations.fixture.ts), by kind: used by the
// settling checks of a later run (settle.spec.ts), and by a recording check itself when the wait
// fits the profile's capabilities.realTimeWaitSeconds (then it waits in real time and verifies).
import type { Obligation } from '../../fixtures/index.ts';
import { expect, type ApiClient, type TokenClient } from '../../fixtures/index.ts';
import type { ClientName, UserName } from '../../harness/profile/profile.schema.ts';
import { bearerChallenge } from '../bearer/support/challenge.ts';

export const usesApi = (o: Obligation) => o.credential.kind === 'access-token' || o.kind === 'refresh-after-access-token-expiry';

/** The client or user is still known to the target: a fresh token for it is issued (else the reason). */
async function stillKnown(o: Obligation, tokenClient: TokenClient): Promise<string | undefined> {
  const c = o.credential;
  const client = c.client as ClientName;
  const res = c.user
    ? await tokenClient.password({ region: c.region, client, user: c.user as UserName })
    : await tokenClient.clientCredentials({ region: c.region, client });
  return res.status === 200 ? undefined : `a fresh ${c.grant} token for ${c.user ? `user ${c.user}` : `client ${c.client}`} is refused: ${res.describe()}`;
}

async function verify(o: Obligation, tokenClient: TokenClient, api: ApiClient): Promise<void> {
  const c = o.credential;
  const client = c.client as ClientName;
  switch (o.kind) {
    case 'expired-access-token-refused': {
      const res = await api.person('existing', { token: c.value });
      if (o.expect === 'gateway-000-1202') {
        await expect(res).toBeGatewayError('000-1202');
      } else if (o.expect === 'bearer-invalid-token') {
        expect(res.status, `the expired token is refused with 401 — ${res.describe()}`).toBe(401);
        const challenge = bearerChallenge(res.header('www-authenticate'));
        expect(challenge, `a Bearer challenge in "${res.header('www-authenticate') ?? '(none)'}"`).toBeDefined();
        expect(challenge!.params.error, 'error attribute').toBe('invalid_token');
      } else {
        expect(res.status, `the expired token is refused with 401 — got ${res.describe()}`).toBe(401);
      }
      return;
    }
    case 'new-token-after-expiry': {
      const old = await api.person('existing', { token: c.value });
      expect(old.status, `setup: the first token is no longer accepted once expired — got ${old.describe()}`).not.toBe(200);
      const again = await tokenClient.clientCredentials({ region: c.region, client });
      await expect(again).toBeTokenIssued();
      const res = await api.person('existing', { token: again.accessToken });
      expect(res.status, `the new token is accepted — got ${res.describe()}`).toBe(200);
      return;
    }
    case 'access-token-accepted': {
      const res = await api.person('existing', { token: c.value });
      expect(res.status, `the token is accepted inside its lifetime (expires_in ${c.expiresIn} s less the skew) — got ${res.describe()}`).toBe(200);
      return;
    }
    case 'refresh-after-access-token-expiry':
    case 'refresh-token-usable':
      await expect(await tokenClient.refresh(c.value, { region: c.region, client })).toBeTokenIssued();
      return;
    case 'expired-refresh-token-refused':
      await expect(await tokenClient.refresh(c.value, { region: c.region, client })).toBeTokenError('invalid_grant');
      return;
  }
}

/** What `obligations.settle` (and a real-time wait) runs for an obligation. */
export function settleSteps(o: Obligation, tokenClient: TokenClient, api: ApiClient) {
  // A refusal proves expiry only while the target still knows the client or user: checked first.
  const refusal = o.kind === 'expired-access-token-refused' || o.kind === 'expired-refresh-token-refused';
  return { verify: () => verify(o, tokenClient, api), control: () => stillKnown(o, tokenClient), controlFirst: refusal };
}
