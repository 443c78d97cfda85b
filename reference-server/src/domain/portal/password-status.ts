// How long a user's password has left under the 45-day rule, as the portal shows it.
import type { User } from '../model.ts';
import { DAY_MS, isPasswordExpired, passwordExpiresAt } from '../password-policy.ts';

export interface PasswordStatus {
  /** Epoch milliseconds from which the password grant refuses the password. */
  expiresAt: number;
  expired: boolean;
  /** Whole days left, rounded up (44.2 days left shows as 45); 0 once expired. */
  daysLeft: number;
  /** Within the last `warningDays` days (or expired). */
  warning: boolean;
}

export function passwordStatus(
  user: Pick<User, 'passwordChangedAt'>,
  now: number,
  maxAgeDays: number,
  warningDays: number,
): PasswordStatus {
  const expiresAt = passwordExpiresAt(user, maxAgeDays);
  const expired = isPasswordExpired(user, now, maxAgeDays);
  const daysLeft = expired ? 0 : Math.ceil((expiresAt - now) / DAY_MS);
  return { expiresAt, expired, daysLeft, warning: expired || daysLeft <= warningDays };
}
