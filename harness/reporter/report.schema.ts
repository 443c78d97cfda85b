// The shape of reports/conformance.json. This zod schema is the source of truth;
// schemas/conformance-report.schema.json is emitted from it and a test fails when it is stale.
import { z } from 'zod';

export const verdicts = ['PASS', 'FAIL', 'WARN', 'SKIP', 'NOT_APPLICABLE', 'UNCHECKED'] as const;
export const verdictSchema = z.enum(verdicts).describe(
  'PASS: verified. FAIL: a MUST (or the target\'s declared interpretation) broken. WARN: a SHOULD or ADVISORY broken. ' +
  'SKIP: not verified, with the reason (a missing capability, not selected). NOT_APPLICABLE: does not apply to this target. ' +
  'UNCHECKED: catalogued but no check exists — a defect of the suite.',
);
export type Verdict = z.infer<typeof verdictSchema>;

const levelSchema = z.enum(['MUST', 'SHOULD', 'ADVISORY', 'INTERPRETATION']);

/** What a property check (specs/properties/) reports: its seed and budget, and on failure the shrunk counterexample and how to replay it. */
export const propertyRunSchema = z.strictObject({
  name: z.string(),
  seed: z.number().int(),
  runs: z.number().int().min(0),
  path: z.string().optional().describe('fast-check path of the shrunk counterexample (TOKEN_CONFORMANCE_PATH).'),
  counterexample: z.string().optional(),
  shrinks: z.number().int().min(0).optional(),
  replay: z.string().describe('A one-line command that replays the property with this seed (and path).'),
});
export type PropertyRun = z.infer<typeof propertyRunSchema>;

export const checkResultSchema = z.strictObject({
  title: z.string().describe('The check\'s title path: file › describe › test.'),
  file: z.string().optional(),
  project: z.string().optional(),
  verdict: verdictSchema,
  durationMs: z.number().min(0),
  reason: z.string().optional().describe('Why it was skipped or not applicable; the first line of the failure otherwise.'),
  property: propertyRunSchema.optional().describe('Set for a fast-check property: seed, runs and, on failure, path, counterexample and replay command.'),
});
export type CheckResult = z.infer<typeof checkResultSchema>;

export const requirementResultSchema = z.strictObject({
  id: z.string(),
  level: levelSchema,
  area: z.string(),
  source: z.string(),
  statement: z.string(),
  interpretation: z.string().optional().describe('The open interpretation (OI-n) the requirement depends on.'),
  verdict: verdictSchema,
  reason: z.string().optional(),
  checks: z.array(checkResultSchema),
});
export type RequirementResult = z.infer<typeof requirementResultSchema>;

const countsSchema = z.strictObject(Object.fromEntries(verdicts.map((v) => [v, z.number().int().min(0)])) as Record<Verdict, z.ZodNumber>);

export const conformanceReportSchema = z.strictObject({
  $schema: z.string().optional(),
  reportVersion: z.literal(1),
  suiteVersion: z.string(),
  target: z.strictObject({
    name: z.string(),
    local: z.boolean(),
    environment: z.string().optional(),
    authUrlUs: z.string().optional(),
    authUrlEu: z.string().optional(),
    baseUrl: z.string().optional(),
    interpretations: z.record(z.string(), z.string()).describe('The target\'s declared choices (reference choices where not declared).'),
  }).describe('The target, without any credential.'),
  selection: z.strictObject({
    level: z.enum(['must', 'should', 'all']),
    grep: z.string().optional(),
    shard: z.string().optional(),
    strict: z.boolean(),
  }),
  startedAt: z.iso.datetime(),
  durationMs: z.number().min(0),
  verdict: z.enum(['PASS', 'FAIL', 'WARN']).describe('The run\'s overall verdict: FAIL on any FAIL or UNCHECKED, else WARN on any WARN, else PASS.'),
  summary: countsSchema.extend({ total: z.number().int().min(0) }).describe('Requirements per verdict.'),
  checks: z.strictObject({ passed: z.number().int().min(0), failed: z.number().int().min(0), skipped: z.number().int().min(0), total: z.number().int().min(0) })
    .describe('Playwright tests (checks), not requirements.'),
  requirements: z.array(requirementResultSchema),
  unknownRequirementIds: z.array(z.string()).describe('IDs cited by checks but absent from the catalogue (a defect of the suite).'),
  checksWithoutRequirement: z.array(z.string()).describe('Checks that cite no requirement (a defect of the suite).'),
});
export type ConformanceReport = z.infer<typeof conformanceReportSchema>;
