// The last line of redaction: after a run, every text file under reports/ is read back and
// scrubbed of known secrets and token shapes. It also serves the test that proves no secret
// survives (findSecrets).
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { Redactor } from './redact.ts';

const binaryExtensions = new Set(['.png', '.jpg', '.jpeg', '.gif', '.webp', '.zip', '.woff', '.woff2', '.ico', '.webm', '.pdf']);

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

/** Rewrites every text file under `dir` through the redactor; returns the files changed. */
export function scrubDirectory(dir: string, redactor: Redactor): string[] {
  const changed: string[] = [];
  for (const file of listFiles(dir)) {
    if (binaryExtensions.has(extname(file).toLowerCase())) continue;
    const text = readFileSync(file, 'utf8');
    const clean = redactor.redact(text);
    if (clean !== text) {
      writeFileSync(file, clean);
      changed.push(file);
    }
  }
  return changed;
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
