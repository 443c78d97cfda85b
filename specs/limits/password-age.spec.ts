// Spec §1, §5.5, §8: the password must be changed every 45 days; RFC 6749 §5.2 names expired
// resource-owner credentials invalid_grant.
import { expect, needs, requirement, test } from '../../fixtures/index.ts';

test.describe('limit: password change interval (45 days)', () => {
  test(
    'LIMIT-PWD-001 a password grant for a user whose password is older than 45 days is refused with invalid_grant',
    requirement('LIMIT-PWD-001', needs('us')),
    async ({ tokenClient }) => {
      await expect(await tokenClient.password({ region: 'us', user: 'expiredUser' })).toBeTokenError('invalid_grant');
    },
  );
});
