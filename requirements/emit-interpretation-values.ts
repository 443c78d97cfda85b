// Emits requirements/interpretation-values.ts from requirements/interpretations.json: the profile key
// of each open interpretation and the type of its value (the union of its `values`, or the type of
// its JSON Schema fragment), so that `target.interpretation(key)` is typed from the catalogue and
// never by hand. A JSON import cannot carry literal types, hence a generated file.
// Run: node --import tsx requirements/emit-interpretation-values.ts   (requirements/test/interpretation-values.test.ts fails when it is stale)
import { writeFileSync } from 'node:fs';
import { interpretations } from './index.ts';

export const interpretationValuesFile = new URL('./interpretation-values.ts', import.meta.url);

/** The text of requirements/interpretation-values.ts for the current catalogue. */
export function interpretationValuesText(): string {
  const withSchema = interpretations.filter((i) => !i.values?.length && i.schema);
  // The fragment as a type literal (FromSchema reads its literal types), indented under its key.
  const schemaType = (schema: unknown): string => JSON.stringify(schema, null, 2).replace(/\n/g, '\n  ');
  const valueType = (i: (typeof interpretations)[number]): string => {
    if (i.values?.length) return i.values.map((v) => JSON.stringify(v)).join(' | ');
    if (i.schema) return `FromSchema<${schemaType(i.schema)}>`;
    return 'unknown';
  };
  return [
    '// Generated from requirements/interpretations.json by requirements/emit-interpretation-values.ts: do not edit.',
    '// requirements/test/interpretation-values.test.ts fails when this file is stale.',
    ...(withSchema.length ? ["import type { FromSchema } from 'json-schema-to-ts';"] : []),
    '',
    '/** The value of each open interpretation, by its profile key (`interpretations.<key>` of a target profile). */',
    'export interface InterpretationValues {',
    ...interpretations.flatMap((i) => [
      `  /** ${i.id}${i.title ? `: ${i.title.replace(/\*\//g, '*\\/')}` : ''} */`,
      `  ${i.key}: ${valueType(i)};`,
    ]),
    '}',
    '',
    'export type InterpretationKey = keyof InterpretationValues;',
    '',
  ].join('\n');
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  writeFileSync(interpretationValuesFile, interpretationValuesText());
  console.log('wrote requirements/interpretation-values.ts');
}
