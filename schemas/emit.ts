// `npm run schemas:emit`: writes schemas/<name>.schema.json from the TypeScript sources in src/,
// and schemas/openapi.json (the OpenAPI 3.1 document built from the same sources).
// The JSON files are committed (vendors read them); schemas/test/schemas.test.ts and
// schemas/test/openapi.test.ts fail when one is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { authoredSchemas, emittedText } from './src/index.ts';
import { buildOpenApiDocument, openApiFileName } from './src/openapi.ts';

const dir = import.meta.dirname;
const outputs: [file: string, text: string][] = [
  ...Object.entries(authoredSchemas).map(([name, schema]): [string, string] => [
    `${name}.schema.json`,
    emittedText(schema),
  ]),
  [openApiFileName, emittedText(buildOpenApiDocument())],
];
let written = 0;
for (const [name, text] of outputs) {
  const file = join(dir, name);
  let current: string | undefined;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === text) continue;
  writeFileSync(file, text);
  written += 1;
  console.log(`wrote schemas/${name}`);
}
console.log(`${written} of ${outputs.length} files updated.`);
