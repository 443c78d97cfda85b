// Emits the JSON Schemas whose source of truth is a zod schema of the harness:
//   schemas/target-profile.schema.json       (core/profile/profile.schema.ts + requirements/interpretations.json)
//   schemas/conformance-report.schema.json   (harness/reporter/report.schema.ts)
// Run: node --import tsx harness/reporter/emit-schema.ts   (a unit test fails when a file is stale)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { repoRoot } from '../../core/catalogue/catalogue.ts';
import { conformanceReportSchema } from './report.schema.ts';
import { loadInterpretations } from '../../core/catalogue/catalogue.ts';
import { buildProfileSchema } from '../../core/profile/profile.schema.ts';

export const profileSchemaFile = join(repoRoot, 'schemas', 'target-profile.schema.json');
export const reportSchemaFile = join(repoRoot, 'schemas', 'conformance-report.schema.json');

function emit(
  schema: z.ZodType,
  id: string,
  title: string,
  description: string,
  examples: unknown[],
): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  const { $schema, ...rest } = json;
  return { $schema, $id: id, title, description, ...rest, examples };
}

const profileExample = {
  name: 'staging-us',
  authUrlUs: 'https://auth-us.staging.example.com',
  baseUrl: 'https://api.staging.example.com',
  credentials: { clients: { usClient: { clientId: 'client-123', clientSecret: { env: 'STAGING_US_CLIENT_SECRET' } } } },
  capabilities: { load: { allowed: false, maxRequestsPerSecond: 5, maxRequests: 100 } },
  interpretations: { invalidClientStatus: 401 },
};

const reportExample = {
  reportVersion: 1,
  suiteVersion: '0.1.0',
  target: { name: 'reference', local: true, authUrlUs: 'https://127.0.0.1:8443', interpretations: {} },
  selection: { level: 'all', strict: false },
  startedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 1234,
  verdict: 'PASS',
  summary: { PASS: 1, FAIL: 0, WARN: 0, SKIP: 0, NOT_APPLICABLE: 0, UNCHECKED: 0, total: 1 },
  checks: { passed: 1, failed: 0, skipped: 0, total: 1 },
  requirements: [
    {
      id: 'GRANT-CC-001',
      level: 'MUST',
      area: 'grants',
      source: '§4 row 1',
      statement: 'A client_credentials request at the US endpoint succeeds.',
      verdict: 'PASS',
      checks: [
        {
          title: 'specs/grants/client-credentials.spec.ts › GRANT-CC-001 …',
          project: 'conformance',
          verdict: 'PASS',
          durationMs: 40,
        },
      ],
    },
  ],
  unknownRequirementIds: [],
  checksWithoutRequirement: [],
};

export function targetProfileJsonSchema(): Record<string, unknown> {
  const options = loadInterpretations();
  const json = emit(
    buildProfileSchema(options),
    'https://token-conformance.dev/schemas/target-profile.schema.json',
    'Target profile',
    'What the conformance suite needs to know about one target: its addresses, credentials (as environment-variable references), resources, capabilities, expectations and its choice for each open interpretation. Source of truth: core/profile/profile.schema.ts; explained field by field in profiles/README.md.',
    [profileExample],
  );
  // Structured interpretations are validated in zod through ajv; embed their JSON Schema fragment.
  const props =
    (json.properties as Record<string, { properties?: Record<string, Record<string, unknown>> }>).interpretations
      ?.properties ?? {};
  for (const o of options) {
    if (o.schema && props[o.key]) props[o.key] = { ...o.schema, description: props[o.key]!.description };
  }
  return json;
}

export function conformanceReportJsonSchema(): Record<string, unknown> {
  return emit(
    conformanceReportSchema,
    'https://token-conformance.dev/schemas/conformance-report.schema.json',
    'Conformance report',
    'reports/conformance.json: the verdict per catalogued requirement for one run of the suite against one target, with the checks behind each verdict. No credential appears in it. Source of truth: harness/reporter/report.schema.ts.',
    [reportExample],
  );
}

export const serialize = (schema: Record<string, unknown>): string => `${JSON.stringify(schema, null, 2)}\n`;

if (import.meta.filename === process.argv[1]) {
  writeFileSync(profileSchemaFile, serialize(targetProfileJsonSchema()));
  writeFileSync(reportSchemaFile, serialize(conformanceReportJsonSchema()));
  console.log(`wrote ${profileSchemaFile}\nwrote ${reportSchemaFile}`);
}
