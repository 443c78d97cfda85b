// The frozen releases of the catalogue: `catalogue-versions/<version>.json` lists the requirement IDs
// a release scores, frozen when it was cut. A requirement appended to requirements.json later is in
// no frozen list, so a run scored against an older release never counts it: it still runs and reads
// "not scored in <version>" (harness/reporter/catalogue-scoring.ts). Releases are numbered 1, 2, …
import { readdirSync, readFileSync } from 'node:fs';
import { z } from 'zod';

export const catalogueVersionsDir = new URL('./catalogue-versions/', import.meta.url);

const catalogueVersionSchema = z.strictObject({
  version: z.string().regex(/^[1-9]\d*$/, 'a release number (1, 2, …)'),
  frozenAt: z.iso.date(),
  requirements: z.array(z.string().min(1)).min(1),
});
export type CatalogueVersion = z.infer<typeof catalogueVersionSchema>;

export class CatalogueVersionError extends Error {
  override readonly name = 'CatalogueVersionError';
}

function readVersion(file: string): CatalogueVersion {
  const parsed = catalogueVersionSchema.safeParse(
    JSON.parse(readFileSync(new URL(file, catalogueVersionsDir), 'utf8')),
  );
  if (!parsed.success)
    throw new CatalogueVersionError(
      `requirements/catalogue-versions/${file}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
    );
  if (`${parsed.data.version}.json` !== file)
    throw new CatalogueVersionError(
      `requirements/catalogue-versions/${file}: its version is ${parsed.data.version}, its file name must be ${parsed.data.version}.json`,
    );
  return parsed.data;
}

/** Every frozen release, oldest first. */
export function catalogueVersions(): CatalogueVersion[] {
  return readdirSync(catalogueVersionsDir)
    .filter((f) => f.endsWith('.json'))
    .map(readVersion)
    .sort((a, b) => Number(a.version) - Number(b.version));
}

/** The frozen release `version`; a clear error naming the releases that exist otherwise. */
export function catalogueVersion(version: string): CatalogueVersion {
  const all = catalogueVersions();
  const found = all.find((v) => v.version === version);
  if (!found)
    throw new CatalogueVersionError(
      `unknown catalogue version '${version}' (frozen releases: ${all.map((v) => v.version).join(', ')}; requirements/catalogue-versions/)`,
    );
  return found;
}

/** The newest frozen release. */
export function latestCatalogueVersion(): CatalogueVersion {
  const all = catalogueVersions();
  return all[all.length - 1]!;
}
