// Fixtures of the portal's browser tests: the worker's own reference server, Chromium pinned to
// that server's certificate, and `checkPage`, which every page visit goes through: an axe-core
// scan (no serious or critical violation) and a full-page screenshot, both attached to the report.
//
// Trust: Chromium gets `--ignore-certificate-errors-spki-list=<the server's SPKI hash>`, which
// accepts exactly that one key (the generated self-signed certificate) and nothing else;
// `ignoreHTTPSErrors` is never used. Node-side calls (token endpoint, people API, clock) trust the
// certificate through undici's `ca`.
import { AxeBuilder } from '@axe-core/playwright';
import { test as base, expect, type Page, type TestInfo } from '@playwright/test';
import { seed } from '../../demo-credentials.ts';
import { startPortalServer, type PortalServer } from './portal-server.ts';

export const DAY_SECONDS = 86_400;

/** The seed's users and client (fixtures/reference-seed.json) by their role in the portal's tests. */
export const demo = {
  admin: seed.olivia,
  user: seed.alice,
  expiring: seed.paul,
  lockable: seed.ivy,
  passwordClient: seed.usPw,
} as const;

export interface PortalFixtures {
  checkPage: (name: string) => Promise<void>;
  signIn: (user: { username: string; password: string }) => Promise<void>;
}

export const test = base.extend<PortalFixtures, { server: PortalServer }>({
  server: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's dependencies from this pattern: none
    async ({}, use, workerInfo) => {
      const server = await startPortalServer(workerInfo.project.outputDir + `/server-${workerInfo.workerIndex}.log`);
      try {
        await use(server);
      } finally {
        await server.stop();
      }
    },
    { scope: 'worker' },
  ],
  launchOptions: [
    async ({ launchOptions, server }, use) => {
      await use({
        ...launchOptions,
        args: [...(launchOptions.args ?? []), `--ignore-certificate-errors-spki-list=${server.spkiHash}`],
      });
    },
    { scope: 'worker' },
  ],
  baseURL: async ({ server }, use) => {
    await use(server.baseUrl);
  },
  checkPage: async ({ page }, use, testInfo) => {
    await use((name) => checkPage(page, testInfo, name));
  },
  signIn: async ({ page }, use) => {
    await use(async (user) => {
      await page.goto('/portal/sign-in');
      await page.getByLabel('User name').fill(user.username);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
    });
  },
});

export { expect };

async function checkPage(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
    .analyze();
  const blocking = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  await testInfo.attach(`${name} (screenshot)`, {
    body: await page.screenshot({ fullPage: true }),
    contentType: 'image/png',
  });
  await testInfo.attach(`${name} (axe)`, {
    body: JSON.stringify(
      {
        url: page.url(),
        violations: results.violations.map((v) => ({
          id: v.id,
          impact: v.impact,
          help: v.help,
          nodes: v.nodes.length,
        })),
        passes: results.passes.length,
      },
      null,
      2,
    ),
    contentType: 'application/json',
  });
  expect(
    blocking.map((v) => `${v.id} (${v.impact}): ${v.help}`),
    `serious or critical accessibility violations on ${name}`,
  ).toEqual([]);
  expect(results.passes.length, `axe ran its rules on ${name}`).toBeGreaterThan(10);
}
