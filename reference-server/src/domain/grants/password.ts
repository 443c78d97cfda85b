// grant_type=password (RFC 6749 §4.3; spec §4 row 3), US only. The username is
// tenant_system_name + one backslash + user_name. Every credential failure (no tenant prefix,
// unknown tenant or user, wrong password, deactivated user) is the same invalid_grant with the same
// description (no account enumeration); only an expired password (45-day rule, OI-8) says so,
// and only after the password was verified. A username locked after too many consecutive wrong
// passwords (attempt-throttle.ts) is refused before the password is verified, even the right one.
// The lock counts the username as presented, so unknown and malformed names lock like real ones.
import { isPlausibleUsername } from '../credential-syntax.ts';
import { InvalidGrant, descriptions } from '../errors.ts';
import { issueUserTokenPair, type TokenResponseBody } from '../issue.ts';
import { isPasswordExpired } from '../password-policy.ts';
import { formatScope, narrowScope, parseScope } from '../scope.ts';
import type { Grant } from './grant.ts';

/** Splits `tenant\user`; undefined when either part is missing. */
export function parseUsername(username: string): { tenant: string; userName: string } | undefined {
  const at = username.indexOf('\\');
  if (at <= 0 || at === username.length - 1) return undefined;
  return { tenant: username.slice(0, at), userName: username.slice(at + 1) };
}

export const passwordGrant: Grant = {
  grantType: 'password',
  regions: ['us'],
  requiredParams: [
    { name: 'username', missing: descriptions.missingUsername },
    { name: 'password', missing: descriptions.missingPassword },
  ],
  async handle({ client, params, region, now, deps, source }): Promise<TokenResponseBody> {
    const password = params.get('password') ?? '';
    const username = params.get('username') ?? '';
    // Cannot be a username: refused like an unknown one, at no cost (no lookup, hash or record).
    if (!isPlausibleUsername(username))
      throw new InvalidGrant(descriptions.invalidUserCredentials, 'username cannot be a username');
    const principal = { kind: 'user', name: username, ...(source !== undefined && { source }) } as const;
    const check = await deps.throttle.assertNotLocked(principal, now);
    const name = parseUsername(username);
    const user = name ? await deps.store.findUser(name.tenant, name.userName) : undefined;
    const matches = await deps.hasher.verify(password, user?.passwordHash ?? (await deps.dummyHash()));
    if (matches && user) await deps.throttle.recordSuccess(principal, check);
    else await deps.throttle.recordFailure(principal, now);
    const fail = (detail: string): never => {
      throw new InvalidGrant(descriptions.invalidUserCredentials, detail);
    };
    if (!name) return fail('username without a tenant prefix');
    if (!user) return fail('unknown tenant or user');
    if (!matches) return fail('wrong password');
    if (!user.active) return fail('user deactivated');
    if (isPasswordExpired(user, now, deps.settings.passwordMaxAgeDays)) {
      throw new InvalidGrant(descriptions.passwordExpired, 'password older than the maximum age');
    }

    const scope = formatScope(narrowScope(deps.settings.passwordScopes, parseScope(params.get('scope'))));
    const familyId = deps.random.token(16);
    return issueUserTokenPair(
      deps,
      {
        client,
        region,
        tenant: user.tenant,
        userName: user.userName,
        grant: 'password',
        familyId,
        scope,
        refreshScope: scope,
      },
      now,
    );
  },
};
