// `npm run report:allure`: renders reports/allure-results into reports/allure-report, from scratch
// each time (Allure 3 leaves an older report's index.html in place and writes beside it), then
// prints where the report is and how to open it (Allure 3's page must be served, not opened from
// file://). A development convenience: `allure` is a dev dependency, not shipped.
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const reports = join(root, 'reports');
const results = join(reports, 'allure-results');
const output = join(reports, 'allure-report');

if (!existsSync(results)) {
  console.error(
    `report:allure: no ${relative(process.cwd(), results)}; run the suite with its allure results first (npm start -- --allure)`,
  );
  process.exit(2);
}
rmSync(output, { recursive: true, force: true });
// allure's exports hide package.json: find its package root from its main entry (dist/index.js).
const cli = join(dirname(createRequire(import.meta.url).resolve('allure')), '..', 'cli.js');
const code = await new Promise<number>((resolve, reject) => {
  const child = spawn(process.execPath, [cli, 'generate', results, '--output', output], {
    cwd: root,
    stdio: 'inherit',
  });
  child.once('error', reject);
  child.once('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
});
const index = [join(output, 'index.html'), join(output, 'awesome', 'index.html')].find((f) => existsSync(f));
if (code !== 0 || !index) {
  console.error(
    `report:allure: allure generate ended with ${code} and no index.html under ${relative(process.cwd(), output)}`,
  );
  process.exit(code === 0 ? 1 : code);
}
console.log(`report:allure: the Allure report is ${relative(process.cwd(), index)}`);
console.log('report:allure: open it served (from file:// it never loads): npx token-conformance show-report reports');
