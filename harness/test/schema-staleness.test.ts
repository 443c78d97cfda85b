// The JSON Schemas whose source is a zod schema of the harness are committed files; this fails
// when one is stale. Fix: node --import tsx harness/reporter/emit-schema.ts
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createAjv } from '../../schemas/index.ts';
import {
  conformanceReportJsonSchema,
  profileSchemaFile,
  reportSchemaFile,
  serialize,
  targetProfileJsonSchema,
} from '../reporter/emit-schema.ts';
import { parseJsonc } from '../../core/profile/jsonc.ts';

const fix = 'stale: run `node --import tsx harness/reporter/emit-schema.ts` and commit the result';

void describe('emitted JSON Schemas', () => {
  void test('schemas/target-profile.schema.json matches the zod schema and requirements/interpretations.json', () => {
    assert.equal(readFileSync(profileSchemaFile, 'utf8'), serialize(targetProfileJsonSchema()), fix);
  });

  void test('schemas/conformance-report.schema.json matches the zod schema', () => {
    assert.equal(readFileSync(reportSchemaFile, 'utf8'), serialize(conformanceReportJsonSchema()), fix);
  });

  void test("both compile with the contract's ajv (draft 2020-12, strict) and the shipped profiles are valid", () => {
    const ajv = createAjv();
    const profile = ajv.compile(targetProfileJsonSchema());
    ajv.compile(conformanceReportJsonSchema());
    const root = join(import.meta.dirname, '..', '..');
    for (const file of [
      'profiles/reference.json',
      'profiles/examples/staging-us.jsonc',
      'profiles/examples/eu-only.jsonc',
    ]) {
      assert.ok(
        profile(parseJsonc(readFileSync(join(root, file), 'utf8'))),
        `${file}: ${JSON.stringify(profile.errors)}`,
      );
    }
    assert.equal(
      profile({ name: 'x', authUrlUs: 'https://a.example.com', typo: 1 }),
      false,
      'unknown keys are refused by the JSON Schema too',
    );
  });
});
