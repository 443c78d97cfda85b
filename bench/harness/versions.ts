// The versions a result depends on: Node, ours, and each library's installed version.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The installed version of `name` as resolved from `fromDir`, or 'not installed'. */
export function installedVersion(name: string, fromDir: string): string {
  try {
    const require = createRequire(join(fromDir, 'noop.js'));
    // Resolve the main entry, then walk up to the package's own package.json (exports may hide it).
    let dir = dirname(require.resolve(name));
    for (let i = 0; i < 6; i += 1) {
      try {
        const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
        if (pkg.name === name && pkg.version) return pkg.version;
      } catch {
        // no package.json at this level
      }
      dir = dirname(dir);
    }
    return 'unknown';
  } catch {
    return 'not installed';
  }
}
