// Sandbox self-registration in the browser, then the new credentials used as an integration would:
// the token endpoint (client_credentials) and the people API behind the gateway.
import { demo, expect, test } from './portal-fixtures.ts';

test.describe('sandbox self-registration', () => {
  test('an administrator registers a client; its credentials get a token that the people API accepts; the secret is shown once', async ({
    page,
    signIn,
    checkPage,
    server,
  }) => {
    await signIn(demo.admin);
    await expect(page.getByRole('heading', { name: 'Portal home' })).toBeVisible();
    await page.getByRole('link', { name: 'Client applications' }).first().click();
    await expect(page.getByRole('heading', { level: 1, name: 'Client applications' })).toBeVisible();
    await expect(page.getByText('Production clients cannot be registered on the portal')).toBeVisible();
    await checkPage('client applications (empty)');

    await page.getByLabel('Application name').fill('HR sync (browser test)');
    await page.getByLabel('United States').check();
    await page.getByRole('checkbox', { name: /^client_credentials/ }).check();
    await page.getByLabel('Data Services role').selectOption('people-reader');
    await page.getByRole('button', { name: 'Register sandbox client' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Client registered' })).toBeVisible();
    await expect(page.getByText('This is the only time it is shown')).toBeVisible();
    await checkPage('client registered (credentials shown once)');
    const clientId = (await page.locator('#client-id').textContent()) ?? '';
    const clientSecret = (await page.locator('#client-secret').textContent()) ?? '';
    expect(clientId).toMatch(/^sandbox-[A-Za-z0-9_-]{16}$/);
    expect(clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const token = await server.call('POST', '/api/v1/auth/oauth2/token', {
      form: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
    });
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    const person = await server.call('GET', '/v1/people/er/E-1001', { bearer: String(token.body.access_token) });
    expect(person.status).toBe(200);

    await page.getByRole('link', { name: 'Back to your client applications' }).click();
    const row = page.getByRole('row', { name: /HR sync \(browser test\)/ });
    await expect(row).toContainText(clientId);
    await expect(row).toContainText(`…${clientSecret.slice(-4)}`);
    expect(await page.content()).not.toContain(clientSecret);
    await checkPage('client applications (one client)');
  });

  test('the registration form works with the keyboard alone', async ({ page, signIn, server }) => {
    await signIn(demo.admin);
    await page.goto('/portal/clients');
    await page.getByLabel('Application name').focus();
    await page.keyboard.type('Keyboard app');
    await page.keyboard.press('Tab'); // the region radio group: United States is selected
    await expect(page.getByLabel('United States')).toBeFocused();
    await page.keyboard.press('Tab'); // client_credentials, checked
    await page.keyboard.press('Tab'); // password and refresh_token
    await expect(page.getByRole('checkbox', { name: /^password and refresh_token/ })).toBeFocused();
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab'); // the role
    await expect(page.getByLabel('Data Services role')).toBeFocused();
    await page.keyboard.press('ArrowDown'); // people-writer
    await page.keyboard.press('Tab');
    await expect(page.getByRole('button', { name: 'Register sandbox client' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { level: 1, name: 'Client registered' })).toBeVisible();
    await expect(page.locator('dl.credentials')).toContainText('client_credentials, password, refresh_token');
    await expect(page.locator('dl.credentials')).toContainText('role people-writer');
    const clientId = (await page.locator('#client-id').textContent()) ?? '';
    const clientSecret = (await page.locator('#client-secret').textContent()) ?? '';
    const token = await server.call('POST', '/api/v1/auth/oauth2/token', {
      form: {
        grant_type: 'password',
        client_id: clientId,
        client_secret: clientSecret,
        username: demo.user.username,
        password: demo.user.password,
      },
    });
    expect(token.status).toBe(200);
    expect(typeof token.body.refresh_token).toBe('string');
  });

  test('rotating the secret: the old one stops working; deleting the client: its credentials and tokens are refused', async ({
    page,
    signIn,
    checkPage,
    server,
  }) => {
    await signIn(demo.admin);
    await page.goto('/portal/clients');
    await page.getByLabel('Application name').fill('Rotate and delete');
    await page.getByRole('button', { name: 'Register sandbox client' }).click();
    const clientId = (await page.locator('#client-id').textContent()) ?? '';
    const firstSecret = (await page.locator('#client-secret').textContent()) ?? '';
    const cc = (secret: string) =>
      server.call('POST', '/api/v1/auth/oauth2/token', {
        form: { grant_type: 'client_credentials', client_id: clientId, client_secret: secret },
      });
    const accessToken = String((await cc(firstSecret)).body.access_token);

    await page.getByRole('link', { name: 'Back to your client applications' }).click();
    await page
      .getByRole('row', { name: /Rotate and delete/ })
      .getByRole('link', { name: /Rotate secret/ })
      .click();
    await expect(page.getByRole('heading', { level: 1, name: 'Rotate the client secret' })).toBeVisible();
    await checkPage('rotate confirmation');
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Secret rotated' })).toBeVisible();
    await checkPage('secret rotated');
    const secondSecret = (await page.locator('#client-secret').textContent()) ?? '';
    expect(secondSecret).not.toBe(firstSecret);
    expect((await cc(firstSecret)).body.error).toBe('invalid_client');
    expect((await cc(secondSecret)).status).toBe(200);

    await page.getByRole('link', { name: 'Back to your client applications' }).click();
    await page
      .getByRole('row', { name: /Rotate and delete/ })
      .getByRole('link', { name: /Delete/ })
      .click();
    await expect(page.getByRole('heading', { level: 1, name: 'Delete the client application' })).toBeVisible();
    await checkPage('delete confirmation');
    await page.getByRole('button', { name: 'Delete the client' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Client deleted' })).toBeVisible();
    await checkPage('client deleted');
    expect((await cc(secondSecret)).body.error).toBe('invalid_client');
    expect((await server.call('GET', '/v1/people/er/E-1001', { bearer: accessToken })).body.code).toBe('000-5002');
    await page.goto('/portal/clients');
    await expect(page.getByRole('row', { name: /Rotate and delete/ })).toHaveCount(0);
  });

  test('mistakes in the form are listed and the values kept; a user who is not an administrator is refused', async ({
    page,
    signIn,
    checkPage,
  }) => {
    await signIn(demo.admin);
    await page.goto('/portal/clients');
    await page.getByLabel('Application name').fill('EU with password');
    await page.getByLabel('European Union').check();
    await page.getByLabel('password and refresh_token').check();
    await page.getByRole('button', { name: 'Register sandbox client' }).click();
    await expect(page.getByRole('alert')).toContainText('The EU token endpoint offers client_credentials only');
    await expect(page.getByLabel('Application name')).toHaveValue('EU with password');
    await checkPage('registration form with mistakes');
    await page.getByRole('button', { name: 'Sign out' }).click();

    await signIn(demo.user);
    await expect(page.getByRole('link', { name: 'Client applications' })).toHaveCount(0);
    await page.goto('/portal/clients');
    await expect(page.getByText('Only tenant administrators can register client applications.')).toBeVisible();
    await checkPage('client applications refused (not an administrator)');
  });
});
