// The 45-day password rule (spec §1, §5.5): a password must be changed on the portal every 45 days.
// A password is valid for [passwordChangedAt, passwordChangedAt + maxAge); at the boundary it has expired.
import type { User } from './model.ts';

export const DAY_MS = 86_400_000;
export const DEFAULT_PASSWORD_MAX_AGE_DAYS = 45;

export function passwordExpiresAt(
  user: Pick<User, 'passwordChangedAt'>,
  maxAgeDays = DEFAULT_PASSWORD_MAX_AGE_DAYS,
): number {
  return user.passwordChangedAt + maxAgeDays * DAY_MS;
}

export function isPasswordExpired(
  user: Pick<User, 'passwordChangedAt'>,
  now: number,
  maxAgeDays = DEFAULT_PASSWORD_MAX_AGE_DAYS,
): boolean {
  return now >= passwordExpiresAt(user, maxAgeDays);
}

/** What a new password must be (the portal states these rules next to the form). */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;
export const PASSWORD_MIN_CHARACTER_CLASSES = 3;

export const passwordPolicyRules: readonly string[] = [
  `At least ${PASSWORD_MIN_LENGTH} and at most ${PASSWORD_MAX_LENGTH} characters.`,
  `Characters of at least ${PASSWORD_MIN_CHARACTER_CLASSES} of these kinds: lower-case letters, upper-case letters, digits, other characters (spaces and accented letters count as other).`,
  'It must not contain your user name.',
  'It must differ from your current password.',
  `It is valid for ${DEFAULT_PASSWORD_MAX_AGE_DAYS} days; then it must be changed again.`,
];

/** The rules a candidate password breaks (empty: it is acceptable). Lengths count code points. */
export function passwordPolicyProblems(
  candidate: string,
  context: { userName: string; currentPassword: string },
): string[] {
  const problems: string[] = [];
  const length = [...candidate].length;
  if (length < PASSWORD_MIN_LENGTH)
    problems.push(`The new password is shorter than ${PASSWORD_MIN_LENGTH} characters.`);
  if (length > PASSWORD_MAX_LENGTH) problems.push(`The new password is longer than ${PASSWORD_MAX_LENGTH} characters.`);
  const classes = [/\p{Ll}/u, /\p{Lu}/u, /\p{Nd}/u, /[^\p{Ll}\p{Lu}\p{Nd}]/u].filter((kind) =>
    kind.test(candidate),
  ).length;
  if (classes < PASSWORD_MIN_CHARACTER_CLASSES) {
    problems.push(
      `The new password uses ${classes} kind(s) of characters; at least ${PASSWORD_MIN_CHARACTER_CLASSES} are needed.`,
    );
  }
  if (context.userName !== '' && candidate.toLowerCase().includes(context.userName.toLowerCase())) {
    problems.push('The new password contains your user name.');
  }
  if (candidate === context.currentPassword) problems.push('The new password is the same as the current one.');
  return problems;
}
