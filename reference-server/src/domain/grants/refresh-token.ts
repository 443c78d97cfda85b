// grant_type=refresh_token (RFC 6749 §6; spec §4 row 4), US only.
// - single use: the store's atomic consume decides the one winner among concurrent uses;
// - bound to its client: another client gets invalid_grant and the token is not consumed;
// - a failed check (scope, user state) does not consume the token either;
// - reuse of a used token revokes its whole family (OI-4, RFC 9700 §4.14.2);
// - refused when the user is deactivated or their password expired (OI-8);
// - rotation: a new refresh token in the same family, with the original scope and its own window;
//   a narrower `scope` narrows only the new access token (RFC 6749 §6).
import { InvalidGrant, descriptions } from '../errors.ts';
import { issueUserTokenPair, type TokenResponseBody } from '../issue.ts';
import { isPasswordExpired } from '../password-policy.ts';
import { formatScope, narrowScope, parseScope, splitScope } from '../scope.ts';
import type { Grant } from './grant.ts';

export const refreshTokenGrant: Grant = {
  grantType: 'refresh_token',
  regions: ['us'],
  requiredParams: [{ name: 'refresh_token', missing: descriptions.missingRefreshToken }],
  async handle({ client, params, region, now, deps }): Promise<TokenResponseBody> {
    const { store } = deps;
    const tokenHash = deps.digest.digest(params.get('refresh_token') ?? '');
    const invalid = (detail: string): never => {
      throw new InvalidGrant(descriptions.invalidRefreshToken, detail);
    };

    const record = await store.findRefreshToken(tokenHash);
    if (!record) return invalid('unknown refresh token');
    if (record.clientId !== client.clientId) return invalid('refresh token of another client (not consumed)');
    if (record.usedAt !== null) {
      const revoked = await store.revokeFamily(record.familyId, now);
      return invalid(`reuse of a used refresh token: family revoked (${revoked} token(s))`);
    }
    if (record.revokedAt !== null || (await store.isFamilyRevoked(record.familyId)))
      return invalid('revoked refresh token');
    if (record.expiresAt <= now) return invalid('expired refresh token');

    const originalScope = splitScope(record.scope);
    const scope = formatScope(narrowScope(originalScope, parseScope(params.get('scope'))));
    const user = await store.findUser(record.tenant, record.userName);
    if (!user || !user.active)
      throw new InvalidGrant(descriptions.refreshUserNotAllowed, 'user unknown or deactivated');
    if (isPasswordExpired(user, now, deps.settings.passwordMaxAgeDays)) {
      throw new InvalidGrant(descriptions.passwordExpired, 'password expired since the refresh token was issued');
    }

    const result = await store.consumeRefreshToken(tokenHash, client.clientId, now);
    switch (result.outcome) {
      case 'consumed':
        break;
      case 'already-used': {
        const revoked = await store.revokeFamily(result.record.familyId, now);
        return invalid(`concurrent reuse of a refresh token: family revoked (${revoked} token(s))`);
      }
      case 'unknown':
      case 'revoked':
      case 'expired':
      case 'wrong-client':
        return invalid(`refresh token ${result.outcome} at consume`);
    }

    return issueUserTokenPair(
      deps,
      {
        client,
        region,
        tenant: record.tenant,
        userName: record.userName,
        grant: 'refresh_token',
        familyId: record.familyId,
        scope,
        refreshScope: record.scope,
      },
      now,
    );
  },
};
