// The 45-day password rule, end to end: the countdown and its warning, a password that expires
// when the server's test clock moves, the password grant refusing it, the change in the browser,
// and the grant accepting the new password (and the old refresh token revoked).
import { DAY_SECONDS, demo, expect, test } from './portal-fixtures.ts';

test.describe('the 45-day password change', () => {
  test.afterEach(async ({ server }) => {
    await server.call('POST', '/__test/clock', { json: { reset: true } });
  });

  test('the countdown warns in the last days; an expired password is refused by the grant until it is changed in the browser', async ({
    page,
    signIn,
    checkPage,
    server,
  }) => {
    const grant = (password: string) =>
      server.call('POST', '/api/v1/auth/oauth2/token', {
        form: {
          grant_type: 'password',
          client_id: demo.passwordClient.id,
          client_secret: demo.passwordClient.secret,
          username: demo.expiring.username,
          password,
        },
      });
    const before = await grant(demo.expiring.password);
    expect(before.status).toBe(200);

    // 40 days old in the seed: 5 days left, inside the 7-day warning.
    await signIn(demo.expiring);
    await expect(page.getByRole('heading', { name: 'Portal home' })).toBeVisible();
    await expect(page.getByRole('status')).toContainText('Change your password soon');
    await expect(page.getByRole('status')).toContainText('valid for 5 more days');
    await checkPage('home with the password warning');

    // Six days later the password is 46 days old.
    expect((await server.call('POST', '/__test/clock', { json: { advanceSeconds: 6 * DAY_SECONDS } })).status).toBe(
      200,
    );
    const refused = await grant(demo.expiring.password);
    expect(refused).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant', error_description: expect.stringContaining('expired') as unknown },
    });

    // The session ended with the clock move (idle); signing in again leads to the password page only.
    await signIn(demo.expiring);
    await expect(page).toHaveURL(/\/portal\/password$/);
    await expect(page.getByRole('alert')).toContainText('Your password has expired');
    await expect(page.getByRole('heading', { name: 'What happens to your tokens' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Password policy' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Home' })).toHaveCount(0);
    await checkPage('password change (expired)');
    await page.goto('/portal/');
    await expect(page).toHaveURL(/\/portal\/password$/);

    await page.getByLabel('Current password').fill(demo.expiring.password);
    await page.getByLabel('New password', { exact: true }).fill('short');
    await page.getByLabel('New password again').fill('short');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect(page.getByRole('alert').first()).toContainText('shorter than 12 characters');
    await checkPage('password change refused (policy)');

    const newPassword = 'Paul-renewed-in-browser-2026';
    await page.getByLabel('Current password').fill(demo.expiring.password);
    await page.getByLabel('New password', { exact: true }).fill(newPassword);
    await page.getByLabel('New password again').fill(newPassword);
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Password changed' })).toBeVisible();
    await expect(page.getByText('valid for 45 more days')).toBeVisible();
    await expect(page.getByText(/refresh tokens? (was|were) revoked/)).toBeVisible();
    await checkPage('password changed');

    const after = await grant(newPassword);
    expect(after.status).toBe(200);
    expect((await grant(demo.expiring.password)).body.error).toBe('invalid_grant');
    const reuse = await server.call('POST', '/api/v1/auth/oauth2/token', {
      form: {
        grant_type: 'refresh_token',
        client_id: demo.passwordClient.id,
        client_secret: demo.passwordClient.secret,
        refresh_token: String(before.body.refresh_token),
      },
    });
    expect(reuse.body.error).toBe('invalid_grant');
    await page.getByRole('link', { name: 'Back to the portal home' }).click();
    await expect(page.getByRole('heading', { name: 'Portal home' })).toBeVisible();
  });
});
