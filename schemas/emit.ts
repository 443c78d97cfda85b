// `npm run schemas:emit`: writes schemas/<name>.schema.json from the TypeScript sources in src/.
// The JSON files are committed (vendors read them); schemas/test/schemas.test.ts fails when one is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { authoredSchemas, emittedText } from './src/index.ts';

const dir = import.meta.dirname;
let written = 0;
for (const [name, schema] of Object.entries(authoredSchemas)) {
  const file = join(dir, `${name}.schema.json`);
  const text = emittedText(schema);
  let current: string | undefined;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === text) continue;
  writeFileSync(file, text);
  written += 1;
  console.log(`wrote schemas/${name}.schema.json`);
}
console.log(`${written} of ${Object.keys(authoredSchemas).length} schema files updated.`);
