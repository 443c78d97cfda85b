// The problems `validateProfile` reports for a raw profile, one line each; [] when it is valid.
import assert from 'node:assert/strict';
import { ProfileError, validateProfile } from '../../../core/profile/load-profile.ts';

export function profileProblems(raw: unknown, env: NodeJS.ProcessEnv = { US_SECRET: 's3cret-value' }): string[] {
  try {
    validateProfile(raw, 'p.json', { env });
  } catch (error) {
    assert.ok(error instanceof ProfileError, String(error));
    return error.problems;
  }
  return [];
}
