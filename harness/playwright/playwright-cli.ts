// How the package starts Playwright Test, wherever npm put the package: as this repository, as a
// dependency under a project's node_modules/, or from npx's cache. Every tool is found with Node's
// module resolution from this file (npm hoists dependencies next to the package, not inside it),
// never by a path built by hand.
import { createRequire } from 'node:module';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** Playwright Test's command-line entry point (`@playwright/test` exports it as `./cli`). */
export function playwrightCliPath(): string {
  return require.resolve('@playwright/test/cli');
}

/** Whether this package lies under a node_modules/ directory (installed as a dependency or by npx). */
export function installedUnderNodeModules(file: string = fileURLToPath(import.meta.url)): boolean {
  return file.split(sep).includes('node_modules');
}

/**
 * The Node arguments a Playwright child needs to load this package's TypeScript. Playwright compiles
 * TypeScript itself, but never a file under node_modules/ (its transform skips them), which is where
 * the config, the reporter and the specs live once the package is installed. tsx, registered in the
 * child (and inherited by its workers, which fork with the parent's execArgv), compiles them there.
 * In a checkout Playwright's own transform suffices, and tsx's loader (a second module-loading
 * thread in every worker) would only slow each start: none then.
 */
export function playwrightNodeArgs(installed = installedUnderNodeModules()): string[] {
  return installed ? ['--import', import.meta.resolve('tsx')] : [];
}

/** The command line (after `node`) that runs `playwright <args…>`. */
export function playwrightCommand(args: string[]): string[] {
  return [...playwrightNodeArgs(), playwrightCliPath(), ...args];
}
