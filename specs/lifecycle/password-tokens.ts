// The setup most refresh checks share: a password grant that must return a refresh token.
import type { UserName } from '../../harness/profile/profile.schema.ts';
import { expect, type TokenClient, type TokenSet } from '../../fixtures/index.ts';

export type PasswordTokens = TokenSet & { refresh_token: string };

/** A password grant at US for `user`; fails the check as `setup:` without a refresh_token. */
export async function obtainPasswordTokens(tokenClient: TokenClient, user: UserName): Promise<PasswordTokens> {
  const tokens = await tokenClient.obtain.password({ region: 'us', user });
  expect(typeof tokens.refresh_token, 'setup: the password grant returns a refresh_token').toBe('string');
  return tokens as PasswordTokens;
}

/** A refresh at US that must succeed with a new refresh token (`setup:` otherwise). */
export async function obtainRefreshed(tokenClient: TokenClient, refreshToken: string): Promise<PasswordTokens> {
  const tokens = await tokenClient.obtain.refresh(refreshToken, { region: 'us' });
  expect(typeof tokens.refresh_token, 'setup: the refresh returns a new refresh_token').toBe('string');
  return tokens as PasswordTokens;
}
