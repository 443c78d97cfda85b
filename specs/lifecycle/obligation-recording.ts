// What the time-dependent checks record when the target has no clock control (issue 15;
// fixtures/obligations.fixture.ts): the obtained token and the moment from which (and, for a
// window, until which) its obligation can be settled. specs/obligations/settle.spec.ts settles them.
import type { ObligationRecorder, TokenSet } from '../../fixtures/index.ts';
import type { Issuance } from '../../fixtures/index.ts';
import type { ClientName, UserName } from '../../harness/profile/profile.schema.ts';

/** Who a token was issued to: the profile's client (and user, for the password grant). */
export interface Holder { grant: 'client_credentials' | 'password'; client: ClientName; user?: UserName }

export const clientCredentialsHolder: Holder = { grant: 'client_credentials', client: 'usClient' };
export const passwordHolder: Holder = { grant: 'password', client: 'usPasswordClient', user: 'user' };

/** The access token (or the refresh token) of an issuance, as an obligation's credential. */
export function credentialOf(issued: Issuance<TokenSet>, holder: Holder, which: 'access-token' | 'refresh-token') {
  const value = which === 'access-token' ? issued.value.access_token : issued.value.refresh_token;
  if (value === undefined) throw new Error('setup: the token response has no refresh_token');
  return { kind: which, value, region: 'us' as const, client: holder.client, ...(holder.user ? { user: holder.user } : {}), grant: holder.grant, expiresIn: issued.value.expires_in };
}

export type Recorder = ObligationRecorder;
