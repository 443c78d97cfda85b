// Playwright Test configuration of the portal's browser tests: tests of the reference server (not
// conformance checks: nothing under specs/ knows the reference server). Project `portal` drives
// Debian's Chromium (`/usr/bin/chromium`; .ci/run installs it) against a reference server that each
// worker starts for itself (e2e/portal-server.ts), so that moving one server's clock never touches
// another worker's tests. Run: `npm run test:portal`.
import { defineConfig } from '@playwright/test';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..', '..');
const reportsDir = join(root, 'reports', 'portal');

export default defineConfig({
  testDir: join(import.meta.dirname, 'e2e'),
  testMatch: '**/*.spec.ts',
  outputDir: join(root, 'test-results', 'portal'),
  forbidOnly: !!process.env.CI,
  retries: 0,
  // Each worker starts its own server and browser: two is what a shared 2-core machine carries.
  workers: 2,
  fullyParallel: false,
  timeout: 60_000,
  globalSetup: join(import.meta.dirname, 'e2e', 'global-setup.ts'),
  expect: { timeout: 5_000 },
  reporter: [
    [process.env.CI ? 'dot' : 'list'],
    ['json', { outputFile: join(reportsDir, 'results.json') }],
    ['junit', { outputFile: join(reportsDir, 'junit.xml') }],
    ['allure-playwright', { resultsDir: join(reportsDir, 'allure-results'), detail: true, suiteTitle: true }],
  ],
  projects: [
    {
      name: 'portal',
      use: {
        browserName: 'chromium',
        launchOptions: {
          executablePath: '/usr/bin/chromium',
          args: [
            '--headless',
            '--no-sandbox',
            '--disable-gpu',
            '--disable-quic',
            '--no-first-run',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
          ],
        },
        trace: 'retain-on-failure',
        screenshot: 'only-on-failure',
      },
    },
  ],
});
