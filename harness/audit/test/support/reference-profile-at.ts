// The reference profile at other addresses (a recorder's, a fault proxy's, the server's own), with
// its clock and fault controls under them: what the record-then-audit checks run and audit with.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../../../core/catalogue/catalogue.ts';
import { parseJsonc } from '../../../../core/profile/jsonc.ts';

export interface Addresses {
  authUrlUs: string;
  authUrlEu: string;
  baseUrl: string;
}

/** The committed reference profile, parsed (its secrets are the seed's public demo values). */
export function referenceProfile<T extends { capabilities: Record<string, unknown> }>(): T {
  return parseJsonc(readFileSync(join(repoRoot, 'profiles', 'reference.json'), 'utf8')) as T;
}

/** Writes `dir/name.json`: the reference profile at `urls`, trusting `caFile` when given; returns its path. */
export function writeReferenceProfileAt(
  dir: string,
  name: string,
  urls: Addresses,
  caFile: string | undefined,
): string {
  const reference = referenceProfile();
  const file = join(dir, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify(
      {
        ...reference,
        $schema: undefined,
        name,
        ...urls,
        ...(caFile ? { caFile } : {}),
        capabilities: {
          ...reference.capabilities,
          clockControlUrl: `${urls.authUrlUs}/__test/clock`,
          faultControlUrl: `${urls.baseUrl}/__test/faults`,
        },
      },
      null,
      2,
    ),
  );
  return file;
}
