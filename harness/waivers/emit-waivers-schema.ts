// Emits schemas/waivers.schema.json from harness/waivers/waivers.schema.ts (like
// harness/reporter/emit-schema.ts for the profile and the report).
// Run: node --import tsx harness/waivers/emit-waivers-schema.ts   (a unit test fails when it is stale)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { repoRoot } from '../../core/catalogue/catalogue.ts';
import { waiversExample, waiversFileSchema } from './waivers.schema.ts';

export const waiversSchemaFile = join(repoRoot, 'schemas', 'waivers.schema.json');

export function waiversJsonSchema(): Record<string, unknown> {
  const json = z.toJSONSchema(waiversFileSchema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  const { $schema, ...rest } = json;
  return {
    $schema,
    $id: 'https://token-conformance.dev/schemas/waivers.schema.json',
    title: 'Conformance waivers',
    description:
      'A reviewed file of known deviations: each names a requirement ID (optionally a check), an owner, a justification and an expiry date. `run --waivers` and `gate --waivers` report a waived FAIL/WARN as WAIVED, an expired waiver as the original FAIL/WARN, and a waiver that matches no failure as fixed. Source of truth: harness/waivers/waivers.schema.ts.',
    ...rest,
    examples: [waiversExample],
  };
}

export const serializeSchema = (schema: Record<string, unknown>): string => `${JSON.stringify(schema, null, 2)}\n`;

if (import.meta.filename === process.argv[1]) {
  writeFileSync(waiversSchemaFile, serializeSchema(waiversJsonSchema()));
  console.log(`wrote ${waiversSchemaFile}`);
}
