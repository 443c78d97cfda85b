// The 45-day password rule (spec §1, §5.5): a password must be changed on the portal every 45 days.
// A password is valid for [passwordChangedAt, passwordChangedAt + maxAge); at the boundary it has expired.
import type { User } from './model.ts';

export const DAY_MS = 86_400_000;
export const DEFAULT_PASSWORD_MAX_AGE_DAYS = 45;

export function passwordExpiresAt(user: Pick<User, 'passwordChangedAt'>, maxAgeDays = DEFAULT_PASSWORD_MAX_AGE_DAYS): number {
  return user.passwordChangedAt + maxAgeDays * DAY_MS;
}

export function isPasswordExpired(user: Pick<User, 'passwordChangedAt'>, now: number, maxAgeDays = DEFAULT_PASSWORD_MAX_AGE_DAYS): boolean {
  return now >= passwordExpiresAt(user, maxAgeDays);
}
