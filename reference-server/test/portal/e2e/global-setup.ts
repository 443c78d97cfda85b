// Once per run, before any worker: the Allure results of an earlier run must not mix with this
// run's (allure-playwright adds files and never removes any).
import { rmSync } from 'node:fs';
import { join } from 'node:path';

export const portalReportsDir = join(import.meta.dirname, '..', '..', '..', '..', 'reports', 'portal');

export default function globalSetup(): void {
  rmSync(join(portalReportsDir, 'allure-results'), { recursive: true, force: true });
}
