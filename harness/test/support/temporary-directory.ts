// A temporary directory for a test, removed when the test file's process exits (whatever way it
// ends): `npm test` fails a stage whose tests leave temporary directories behind
// (scripts/stages/run-leftovers.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();

export function temporaryDirectory(prefix: string): string {
  if (made.size === 0)
    process.once('exit', () => {
      for (const dir of made) rmSync(dir, { recursive: true, force: true });
    });
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}
