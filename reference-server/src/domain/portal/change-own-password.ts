// A signed-in user changes their own password (spec §1, §5.5: every 45 days, on the portal). The
// current password is asked again (and counts towards the user name's brute-force lock, like a
// sign-in), the new one must meet the stated policy and be typed twice. The change itself is the
// domain's changePassword: the 45-day clock restarts and every refresh token (and refresh-token
// family) of the user is revoked. The user's other portal sessions end as well.
import { changePassword } from '../password-change.ts';
import { passwordPolicyProblems } from '../password-policy.ts';
import type { User } from '../model.ts';
import type { PortalDeps } from './portal-deps.ts';
import { PortalRefusal, portalMessages } from './portal-errors.ts';
import { assertNotLocked } from './sign-in.ts';

export interface PasswordChangeForm {
  currentPassword: string;
  newPassword: string;
  confirmation: string;
}

export interface PasswordChangeOutcome {
  revokedRefreshTokens: number;
  endedOtherSessions: number;
}

export type ChangeOwnPasswordDeps = Pick<PortalDeps, 'store' | 'clock' | 'hasher' | 'throttle'>;

export async function changeOwnPassword(
  deps: ChangeOwnPasswordDeps,
  user: User,
  form: PasswordChangeForm,
  /** The session that made the change: it stays signed in. */
  keepSessionIdHash: string,
): Promise<PasswordChangeOutcome> {
  const username = `${user.tenant}\\${user.userName}`;
  const now = deps.clock.now();
  await assertNotLocked(deps, username, now);
  const principal = { kind: 'user', name: username } as const;
  if (!(await deps.hasher.verify(form.currentPassword, user.passwordHash))) {
    await deps.throttle.recordFailure(principal, now);
    throw new PortalRefusal('invalid-input', portalMessages.formProblems, ['The current password is wrong.']);
  }
  await deps.throttle.recordSuccess(principal);
  const problems = passwordPolicyProblems(form.newPassword, {
    userName: user.userName,
    currentPassword: form.currentPassword,
  });
  if (form.newPassword !== form.confirmation) problems.push('The two new passwords differ.');
  if (problems.length > 0) throw new PortalRefusal('invalid-input', portalMessages.formProblems, problems);
  const { revokedRefreshTokens } = await changePassword(deps, user.tenant, user.userName, form.newPassword);
  const endedOtherSessions = await deps.store.deleteUserSessions(user.tenant, user.userName, keepSessionIdHash);
  return { revokedRefreshTokens, endedOtherSessions };
}
