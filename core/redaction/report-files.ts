// The files of a reports directory (for the end-of-run verification, verify-reports.ts), and the
// search the tests use to prove that no secret survives in them (findSecrets).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function listFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const full = join(dir, entry);
    return statSync(full).isDirectory() ? listFiles(full) : [full];
  });
}

/** Every (file, secret) pair where a secret value occurs under `dir`, binary files included. */
export function findSecrets(dir: string, secrets: string[]): { file: string; secret: string }[] {
  const hits: { file: string; secret: string }[] = [];
  for (const file of listFiles(dir)) {
    const bytes = readFileSync(file);
    const text = bytes.toString('utf8');
    const latin = bytes.toString('latin1');
    for (const secret of secrets) {
      if (secret && (text.includes(secret) || latin.includes(secret))) hits.push({ file, secret });
    }
  }
  return hits;
}
