// Signing in and out, as a person does it: with the keyboard only; wrong passwords and the lock;
// forms whose CSRF token was tampered with, or that another site posts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { demo, expect, test } from './portal-fixtures.ts';

test.describe('sign-in and sign-out', () => {
  test('with the keyboard only: skip link, sign in, home, sign out', async ({ page, checkPage }) => {
    await page.goto('/portal/');
    await expect(page).toHaveURL(/\/portal\/sign-in$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Sign in' })).toBeVisible();
    await checkPage('sign-in page');

    await page.keyboard.press('Tab');
    await expect(page.getByRole('link', { name: 'Skip to main content' })).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(page.getByLabel('User name')).toBeFocused();
    await page.keyboard.type(demo.user.username);
    await page.keyboard.press('Tab');
    await expect(page.getByLabel('Password')).toBeFocused();
    await page.keyboard.type(demo.user.password);
    await page.keyboard.press('Enter');

    await expect(page).toHaveURL(/\/portal\/$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Portal home' })).toBeVisible();
    await expect(page.getByText('Signed in as')).toContainText('acme\\alice');
    await expect(page.getByText(/valid for 44 more days/)).toBeVisible();
    await checkPage('home page');

    const signOut = page.getByRole('button', { name: 'Sign out' });
    await signOut.focus();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { level: 1, name: 'Signed out' })).toBeVisible();
    await checkPage('signed-out page');
    await page.goto('/portal/');
    await expect(page).toHaveURL(/\/portal\/sign-in$/);
  });

  test('the session cookie is Secure, HttpOnly and SameSite=Strict, and no secret is in a URL', async ({
    page,
    context,
    signIn,
  }) => {
    const urls: string[] = [];
    page.on('request', (r) => urls.push(r.url()));
    await signIn(demo.user);
    await expect(page.getByRole('heading', { name: 'Portal home' })).toBeVisible();
    const session = (await context.cookies()).find((c) => c.name === '__Host-tc-portal-session');
    expect(session).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(urls.some((u) => u.includes('Alice-pass') || u.includes(encodeURIComponent(demo.user.password)))).toBe(
      false,
    );
    expect(urls.some((u) => session !== undefined && u.includes(session.value))).toBe(false);
  });

  test('a wrong password is refused without saying which part was wrong; 3 failures lock the user name', async ({
    page,
    signIn,
    checkPage,
  }) => {
    await signIn({ username: demo.lockable.username, password: 'not-the-password-1' });
    await expect(page.getByRole('alert')).toContainText('The user name or password is wrong');
    await expect(page.getByLabel('User name')).toHaveValue(demo.lockable.username);
    await checkPage('sign-in refused');
    await signIn({ username: demo.lockable.username, password: 'not-the-password-2' });
    await signIn({ username: demo.lockable.username, password: 'not-the-password-3' });
    await signIn(demo.lockable);
    await expect(page.getByRole('alert')).toContainText('Too many failed attempts');
    await expect(page.getByRole('alert')).toContainText('about 15 minutes');
    await checkPage('sign-in locked');
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  });
});

test.describe('the other pages', () => {
  test("the password page of a valid password, and the portal's page for a wrong address", async ({
    page,
    signIn,
    checkPage,
  }) => {
    await signIn(demo.user);
    await page.getByRole('link', { name: 'Change password' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Change your password' })).toBeVisible();
    await expect(page.getByText(/valid for 44 more days/)).toBeVisible();
    await expect(
      page.getByRole('listitem').filter({ hasText: 'At least 12 and at most 128 characters.' }),
    ).toBeVisible();
    await checkPage('password change (valid password)');
    const missing = await page.goto('/portal/no-such-page');
    expect(missing?.status()).toBe(404);
    await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
    await checkPage('page not found');
  });
});

test.describe('CSRF', () => {
  test('a form whose token was changed on the way is refused, and nothing changes', async ({
    page,
    signIn,
    checkPage,
    server,
  }) => {
    await signIn(demo.admin);
    await page.goto('/portal/clients');
    await page.route(
      '**/portal/clients',
      async (route) => {
        const form = new URLSearchParams(route.request().postData() ?? '');
        form.set('csrf', 'forged-token');
        await route.continue({ postData: form.toString() });
      },
      { times: 1 },
    );
    await page.getByLabel('Application name').fill('Forged app');
    await page.getByRole('button', { name: 'Register sandbox client' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Form refused' })).toBeVisible();
    await checkPage('form refused (CSRF)');
    await page.goto('/portal/clients');
    await expect(page.getByText('Forged app')).toHaveCount(0);
    expect((await server.call('GET', '/__test/clock')).status).toBe(200);
  });

  test('a form another site posts is refused, and nothing changes', async ({ page, signIn }) => {
    await signIn(demo.user);
    await expect(page.getByRole('heading', { name: 'Portal home' })).toBeVisible();
    const portalOrigin = new URL(page.url()).origin;
    // The attacker's page, on another site (http://localhost:…): a form aimed at the portal's sign-out.
    const attacker: Server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(
        `<!doctype html><html lang="en"><title>Win a prize</title><form method="post" action="${portalOrigin}/portal/sign-out"><input type="hidden" name="csrf" value="guess"><button>Claim</button></form></html>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    try {
      await page.goto(`http://localhost:${(attacker.address() as AddressInfo).port}/`);
      await page.getByRole('button', { name: 'Claim' }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'Form refused' })).toBeVisible();
    } finally {
      await new Promise<void>((resolve) => attacker.close(() => resolve()));
    }
    await page.goto('/portal/');
    await expect(page.getByRole('heading', { name: 'Portal home' })).toBeVisible();
  });
});
