// How `run` starts Playwright: with tsx registered only where Playwright's own TypeScript transform
// does not reach (the package installed under node_modules/); in a checkout without it (every
// worker then starts without tsx's second module-loading thread). The installed case itself runs in
// the package stage (scripts/package/pack-install.check.ts).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { installedUnderNodeModules, playwrightCommand, playwrightNodeArgs } from '../playwright/playwright-cli.ts';

void describe('the Playwright command line', () => {
  void test('installed under node_modules/: tsx is registered; in a checkout: not', () => {
    assert.equal(
      installedUnderNodeModules(
        join('/', 'p', 'node_modules', 'token-conformance', 'harness', 'playwright', 'playwright-cli.ts'),
      ),
      true,
    );
    assert.equal(
      installedUnderNodeModules(join('/', 'work', 'token-conformance', 'harness', 'playwright', 'playwright-cli.ts')),
      false,
    );
    assert.equal(playwrightNodeArgs(true)[0], '--import');
    assert.match(playwrightNodeArgs(true)[1]!, /tsx/);
    assert.deepEqual(playwrightNodeArgs(false), []);
  });

  void test("this checkout: Playwright's CLI and the arguments, nothing before them", () => {
    const command = playwrightCommand(['test', '--list']);
    assert.match(command[0]!, /@playwright[\\/]test[\\/]cli\.js$/);
    assert.deepEqual(command.slice(1), ['test', '--list']);
  });
});
