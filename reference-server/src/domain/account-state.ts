// Deactivating and reactivating an account (a user or a client), as an administrator would. The
// flag is read at every decision, never cached in a token: from the next request on, the token
// endpoint refuses the principal (a user's password and refresh grants: invalid_grant; a client's
// authentication: invalid_client) and the gateway's backend refuses its access tokens (000-5002).
import type { Store } from './ports.ts';

export type AccountRef = { kind: 'user'; tenant: string; userName: string } | { kind: 'client'; clientId: string };

export type AccountState =
  { found: true; account: AccountRef; active: boolean } | { found: false; account: AccountRef };

export type AccountStore = Pick<Store, 'findClient' | 'saveClient' | 'findUser' | 'saveUser'>;

/** Sets an account's `active` flag; an account the store does not know is left alone and reported missing. */
export async function setAccountActive(
  store: AccountStore,
  account: AccountRef,
  active: boolean,
): Promise<AccountState> {
  if (account.kind === 'user') {
    const user = await store.findUser(account.tenant, account.userName);
    if (user === undefined) return { found: false, account };
    if (user.active !== active) await store.saveUser({ ...user, active });
    return { found: true, account: { kind: 'user', tenant: user.tenant, userName: user.userName }, active };
  }
  const client = await store.findClient(account.clientId);
  if (client === undefined) return { found: false, account };
  if (client.active !== active) await store.saveClient({ ...client, active });
  return { found: true, account: { kind: 'client', clientId: client.clientId }, active };
}
