// The shape of reports/conformance.json. This zod schema is the source of truth;
// schemas/conformance-report.schema.json is emitted from it and a test fails when it is stale.
import { z } from 'zod';
import { regionParitySchema } from '../parity/region-parity.schema.ts';

export const verdicts = [
  'PASS',
  'FAIL',
  'WARN',
  'BLOCKED',
  'PENDING',
  'SKIP',
  'NOT_APPLICABLE',
  'UNCHECKED',
  'UNOBSERVED',
] as const;
export const verdictSchema = z
  .enum(verdicts)
  .describe(
    "PASS: verified. FAIL: a MUST (or the target's declared interpretation) broken. WARN: a SHOULD or ADVISORY broken. " +
      'BLOCKED: not verified because the check could not reach the behaviour it verifies (its setup, a token it needs, a client the target refused), ' +
      'with the reason and, when known, the requirement whose violation blocked it (`blockedBy`); "not measured: blocked by an intermediary — …" when a CDN, WAF or proxy answered instead of the target (no `blockedBy`); never a PASS, and not a FAIL of this requirement. ' +
      'PENDING: not verified yet — the check recorded an obligation that a later run settles (a time-dependent rule on a target without clock control), with the earliest due time (`due`); never a PASS, and it does not fail a run. ' +
      'SKIP: not verified, with the reason (a missing capability, not selected). NOT_APPLICABLE: does not apply to this target. ' +
      'UNCHECKED: not judged through no fault of the target — catalogued but no check exists (a defect of the suite), a check failed on the suite\'s own exception ("suite error, not the target\'s"), or the run\'s deadline stopped it ("not finished: the run\'s deadline of N minutes passed"). ' +
      'UNOBSERVED (audit reports only): no exchange of the audited traffic exercised the requirement, or recorded traffic cannot show it (only an active check can) — never a PASS, and it does not fail an audit.',
  );
export type Verdict = z.infer<typeof verdictSchema>;

/** Why a requirement was not verified (harness/reporter/verification.ts reads it from the verdict and reason). */
export const unverifiedCauses = [
  'not-declared',
  'profile-error',
  'blocked-by-target',
  'pending',
  'not-selected',
  'other',
] as const;

/**
 * A requirement's verdict: one of the check verdicts, or WAIVED — a FAIL or WARN covered by an
 * unexpired waiver (harness/waivers/waivers.ts). Only a report judged with waivers carries WAIVED.
 */
export const requirementVerdicts = [...verdicts, 'WAIVED'] as const;
export const requirementVerdictSchema = z
  .enum(requirementVerdicts)
  .describe(
    `${verdictSchema.description ?? ''} WAIVED: a FAIL or WARN covered by an unexpired waiver; the original verdict and reason stay in \`waiver\` and \`reason\`. A waiver never covers BLOCKED: a blocked requirement was not verified, so there is no deviation to accept (the waiver reads not-verified).`,
  );
export type RequirementVerdict = z.infer<typeof requirementVerdictSchema>;

/**
 * What a check's `pending` annotation carries (JSON in its description): an obligation it recorded
 * in the state file, to be settled by a later run once `due` has passed.
 */
export const pendingObligationSchema = z.strictObject({
  obligation: z.string().min(1).describe("The obligation's ID in the state file."),
  due: z.iso.datetime({ offset: true }).describe('When a later run can settle it (ISO 8601).'),
  what: z.string().min(1).describe('What must hold then, in one line.'),
});
export type PendingObligation = z.infer<typeof pendingObligationSchema>;

/** What a check's `settled` annotation carries: an obligation recorded by an earlier run, settled in this one. */
export const settlementOutcomes = ['PASS', 'FAIL', 'VOID'] as const;
export const settlementSchema = z.strictObject({
  obligation: z.string().min(1),
  recordedRun: z.string().min(1).describe('The run that recorded the obligation.'),
  recordedAt: z.iso.datetime({ offset: true }),
  settledAt: z.iso.datetime({ offset: true }),
  outcome: z
    .enum(settlementOutcomes)
    .describe(
      'PASS: the rule held when due. FAIL: it did not (the check failed). VOID: not settled — the target no longer knows the credential for another reason, or the obligation lapsed; reads SKIP with the reason.',
    ),
  reason: z.string().optional(),
});
export type Settlement = z.infer<typeof settlementSchema>;

const levelSchema = z.enum(['MUST', 'SHOULD', 'ADVISORY', 'INTERPRETATION']);

/** What a property check (specs/properties/) reports: its seed and budget, and on failure the shrunk counterexample and how to replay it. */
export const propertyRunSchema = z.strictObject({
  name: z.string(),
  seed: z.number().int(),
  runs: z.number().int().min(0),
  path: z
    .string()
    .optional()
    .describe('fast-check path of the shrunk counterexample (run --seed N --replay-path PATH replays it).'),
  counterexample: z.string().optional(),
  shrinks: z.number().int().min(0).optional(),
  replay: z.string().describe('A one-line command that replays the property with this seed (and path).'),
});
export type PropertyRun = z.infer<typeof propertyRunSchema>;

export const checkResultSchema = z.strictObject({
  title: z.string().describe("The check's title path: file › describe › test."),
  file: z.string().optional(),
  project: z.string().optional(),
  verdict: verdictSchema,
  durationMs: z.number().min(0),
  reason: z
    .string()
    .optional()
    .describe('Why it was skipped, blocked or not applicable; the first line of the failure otherwise.'),
  blockedBy: z
    .array(z.string())
    .optional()
    .describe('BLOCKED only: the requirement(s) whose violation blocked the check, when known.'),
  blockedByProfile: z
    .string()
    .optional()
    .describe(
      'BLOCKED only: blocked by the profile, not the target — the field to fix: a credential of the profile the target refused (e.g. credentials.users.user.password), or a declaration that keeps the check from what it verifies (e.g. a tokenParameters scope of one value where the check needs two); never a finding about the target.',
    ),
  transcripts: z
    .array(z.string())
    .optional()
    .describe("The check's redacted transcript files, relative to the report's directory."),
  property: propertyRunSchema
    .optional()
    .describe('Set for a fast-check property: seed, runs and, on failure, path, counterexample and replay command.'),
  due: z.iso
    .datetime({ offset: true })
    .optional()
    .describe("PENDING only: the earliest due time of the check's open obligations."),
  pending: z
    .array(pendingObligationSchema)
    .optional()
    .describe('Obligations the check recorded (or that stay open) for a later run to settle.'),
  settled: z.array(settlementSchema).optional().describe('Obligations of earlier runs the check settled in this run.'),
  assumed: z
    .array(z.strictObject({ choice: z.string(), declare: z.string() }))
    .optional()
    .describe(
      'WARN on an assumed choice only: the choices the profile did not declare that the failure relied on (`choice` as quoted, `declare` the profile field that settles it).',
    ),
});
export type CheckResult = z.infer<typeof checkResultSchema>;

/** A waiver as the report records it (the reviewed file: schemas/waivers.schema.json). */
export const waiverFields = {
  requirement: z
    .string()
    .regex(/^[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+$/, 'a requirement ID such as GRANT-CC-001')
    .describe('The requirement ID the deviation concerns.'),
  check: z.string().min(1).optional().describe('Optional: only the checks whose title contains this text are waived.'),
  owner: z.string().min(1).describe('Who answers for the deviation (a person or team).'),
  justification: z.string().min(1).describe('Why the deviation is accepted, and what will fix it.'),
  expires: z.iso
    .date()
    .describe('Last day (UTC, inclusive) the waiver applies; from the next day the failure counts again.'),
};

export const waiverStatuses = ['applied', 'expired', 'partial', 'fixed', 'not-verified'] as const;
export const requirementWaiverSchema = z.strictObject({
  ...waiverFields,
  status: z
    .enum(['applied', 'expired', 'partial'])
    .describe(
      "applied: the requirement is WAIVED. expired: past its date, the requirement keeps its FAIL/WARN. partial: failing checks remain that the waiver's `check` does not cover.",
    ),
  originalVerdict: z.enum(['FAIL', 'WARN']),
});

export const reportWaiversSchema = z
  .strictObject({
    file: z.string().optional().describe('The waivers file, as given.'),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional()
      .describe('SHA-256 of the waivers file.'),
    evaluatedAt: z.iso.datetime().describe('When expiry was judged.'),
    entries: z.array(
      z.strictObject({
        ...waiverFields,
        status: z
          .enum(waiverStatuses)
          .describe(
            "applied | expired | partial (see the requirement's waiver); fixed: the requirement passes now, remove the waiver; not-verified: the requirement was not verified in this run (blocked, skipped, not applicable or not selected).",
          ),
      }),
    ),
    fixed: z
      .array(z.string())
      .describe(
        'Requirement IDs whose waiver matched no failure because the requirement passes: remove these waivers.',
      ),
  })
  .describe('Present only when the report was judged with a waivers file.');

export const requirementResultSchema = z.strictObject({
  id: z.string(),
  level: levelSchema,
  area: z.string(),
  source: z.string(),
  statement: z.string(),
  interpretation: z.string().optional().describe('The open interpretation (OI-n) the requirement depends on.'),
  verdict: requirementVerdictSchema,
  reason: z.string().optional(),
  blockedBy: z
    .array(z.string())
    .optional()
    .describe('BLOCKED only: the requirements whose violation blocked its checks, when known.'),
  blockedByProfile: z
    .string()
    .optional()
    .describe(
      'BLOCKED only: blocked by the profile (the field to fix: a credential of it the target refused, or a declaration its checks cannot use), not by the target.',
    ),
  unverified: z
    .strictObject({
      cause: z.enum(unverifiedCauses),
      remedy: z.string().optional(),
    })
    .optional()
    .describe(
      'Why it was not verified: not-declared (the profile does not declare what its checks need; `remedy` says what to declare), profile-error (a credential of the profile was refused, or a declaration of it blocked the check), blocked-by-target, pending, not-selected, other.',
    ),
  due: z.iso
    .datetime({ offset: true })
    .optional()
    .describe('PENDING only: the earliest due time of its open obligations.'),
  settled: z
    .array(settlementSchema)
    .optional()
    .describe(
      'The obligations of earlier runs its checks settled in this run (recorded in run R at T, settled at T′).',
    ),
  checks: z.array(checkResultSchema),
  waiver: requirementWaiverSchema
    .optional()
    .describe(
      'Set when a waiver names this requirement and it failed: the waiver, whether it applied, and the original verdict.',
    ),
});
export type RequirementResult = z.infer<typeof requirementResultSchema>;

/** Which release of the catalogue the report scores (requirements/catalogue-versions/). */
export const catalogueScoringSchema = z.strictObject({
  version: z
    .string()
    .describe(
      'The frozen catalogue release scored (run --catalogue VERSION), or `unreleased`: the whole catalogue of this suite version, holding requirements no release has frozen yet.',
    ),
  frozen: z
    .boolean()
    .describe('true when `version` is a frozen release: a later suite version scores the same requirements for it.'),
  scored: z.number().int().min(0).describe('Requirements scored: those of `requirements`.'),
});
export type CatalogueScoring = z.infer<typeof catalogueScoringSchema>;

// BLOCKED and PENDING are optional so that reports written before they existed still read (diff, gate).
const countsSchema = z.strictObject({
  ...(Object.fromEntries(verdicts.map((v) => [v, z.number().int().min(0)])) as Record<Verdict, z.ZodNumber>),
  BLOCKED: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Absent in reports of suite versions before the BLOCKED verdict.'),
  PENDING: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Absent in reports of suite versions before the PENDING verdict.'),
  UNOBSERVED: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Audit reports only (`token-conformance audit`); absent elsewhere.'),
});

/** Where an audit finding shows: the traffic file, the exchange's index in it (the HAR entry, the recording's line) and its time. */
export const exchangeRefSchema = z.strictObject({
  file: z.string(),
  index: z.number().int().min(0),
  time: z.iso.datetime({ offset: true }),
});

/** What `token-conformance audit` adds to a report: the traffic it judged and every finding with its exchanges. */
export const auditSectionSchema = z
  .strictObject({
    traffic: z.array(
      z.strictObject({
        file: z.string(),
        format: z.enum(['har', 'recording']),
        exchanges: z.number().int().min(0),
        skipped: z
          .number()
          .int()
          .min(0)
          .describe(
            'Entries that could not be read (a line cut short by a killed recorder, an entry without a request).',
          ),
      }),
    ),
    kinds: z
      .record(z.string(), z.number().int().min(0))
      .describe('Exchanges per kind: token-us, token-eu, token-other-version, protected, clock, other (not judged).'),
    firstExchangeAt: z.iso.datetime({ offset: true }).optional(),
    lastExchangeAt: z.iso.datetime({ offset: true }).optional(),
    digestKey: z
      .string()
      .describe(
        "How secrets were digested: env:NAME (the key's variable, never the key), or ephemeral (a random key for this audit only: digests agree within it).",
      ),
    findings: z
      .array(
        z.strictObject({
          requirement: z.string(),
          verdict: z.enum(['FAIL', 'WARN']),
          message: z.string(),
          exchanges: z.array(exchangeRefSchema).min(1),
        }),
      )
      .describe(
        "Each finding with the exchanges that show it (at most 20 per requirement are listed; the requirement's reason counts them all).",
      ),
  })
  .describe(
    'Present only in reports of `token-conformance audit`: verdicts judged from recorded traffic, not from checks the suite sent.',
  );
export type AuditSection = z.infer<typeof auditSectionSchema>;

/** One cause the target showed, with every requirement whose failure shows it (harness/reporter/findings.ts). */
export const findingSchema = z.strictObject({
  cause: z.string().describe('The cause key: equal for failures with the same defect in the same part of the answer.'),
  sentence: z.string().describe('The cause in plain words.'),
  verdict: z.enum(['FAIL', 'WARN']).describe('FAIL when any requirement it lists FAILs, else WARN.'),
  requirements: z.array(z.string()).min(1),
});
export type Finding = z.infer<typeof findingSchema>;

/** A choice the profile did not declare that WARNs rested on, with the profile line that settles it (harness/reporter/declare-these.ts). */
export const assumptionSchema = z.strictObject({
  declare: z.string().describe('The profile field that declares the choice (`interpretations.nonPostTokenRequest`).'),
  assumed: z.string().describe('The reference choice the suite assumed, as quoted (`nonPostTokenRequest=405`).'),
  requirements: z.array(z.string()).min(1).describe('The requirements whose WARN rests on it.'),
  profileLine: z
    .string()
    .describe(
      'What to add to the profile, copy-paste ready: the value the answers point at, else the field with a placeholder.',
    ),
  observed: z.string().optional().describe('The allowed value the failures show the target chose, when exactly one.'),
  values: z.array(z.string()).optional().describe('The allowed values of the field, as JSON text, when listed.'),
});
export type Assumption = z.infer<typeof assumptionSchema>;

export const conformanceReportSchema = z.strictObject({
  $schema: z.string().optional(),
  reportVersion: z.literal(1),
  suiteVersion: z.string(),
  target: z
    .strictObject({
      name: z.string(),
      local: z.boolean(),
      environment: z.string().optional(),
      authUrlUs: z.string().optional(),
      authUrlEu: z.string().optional(),
      baseUrl: z.string().optional(),
      profileSha256: z
        .string()
        .regex(/^[0-9a-f]{64}$/)
        .optional()
        .describe(
          "SHA-256 of the profile file as given, literal secret values excluded (the same hash as a bundle's): shards of one run carry the same.",
        ),
      interpretations: z
        .record(z.string(), z.string())
        .describe(
          'The choices the profile declared (a non-string one as its JSON text). Every other interpretation took the reference choice, only assumed: a mismatch there reads WARN, not FAIL.',
        ),
      requestShaping: z
        .array(
          z.strictObject({
            client: z.string(),
            grant: z.enum(['client_credentials', 'password', 'refresh_token']),
            parameters: z
              .record(z.string(), z.string())
              .describe('Parameter → value; a value read from the environment as $NAME.'),
          }),
        )
        .optional()
        .describe(
          "The extra token-request parameters the profile declares per client and grant (credentials.clients.<name>.tokenParameters): every token request for that client carried them, except the spec-shaped checks (GRANT-CC-001/002, GRANT-PW-001, GRANT-RT-001), which FAIL naming them when the spec's request is refused. Absent: none declared.",
        ),
    })
    .describe('The target, without any credential.'),
  selection: z.strictObject({
    level: z.enum(['must', 'should', 'all']),
    grep: z.string().optional(),
    shard: z.string().optional(),
    strict: z.boolean(),
  }),
  startedAt: z.iso.datetime(),
  durationMs: z.number().min(0),
  verdict: z
    .enum(['PASS', 'FAIL', 'WARN'])
    .describe("The run's overall verdict: FAIL on any FAIL or UNCHECKED, else WARN on any WARN, else PASS."),
  summary: countsSchema
    .extend({ WAIVED: z.number().int().min(0).optional(), total: z.number().int().min(0) })
    .describe('Requirements per verdict (WAIVED only when judged with waivers).'),
  checks: z
    .strictObject({
      passed: z.number().int().min(0),
      failed: z.number().int().min(0),
      skipped: z.number().int().min(0),
      blocked: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe('Of the failed and skipped checks, those that were BLOCKED (setup: failures, markBlocked).'),
      total: z.number().int().min(0),
      requests: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe('HTTP requests the checks sent to the target (the preflight and parity probes not counted).'),
      sentAgain: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe(
          'Requests the checks sent again because the first had no answer within its deadline (a slow or hanging target, or a loaded machine); each check says which in its `sentAgain` count and `sent-again` annotations.',
        ),
    })
    .describe('Playwright tests (checks), not requirements.'),
  verification: z
    .strictObject({
      verified: z
        .number()
        .int()
        .min(0)
        .describe('Requirements whose behaviour the run saw: PASS, FAIL, WARN (and WAIVED).'),
      notApplicable: z.number().int().min(0),
      notVerifiable: z
        .strictObject({
          count: z.number().int().min(0),
          remedies: z.array(z.strictObject({ remedy: z.string(), requirements: z.array(z.string()) })),
        })
        .describe('Not verifiable with this profile as declared, grouped by what would make them verifiable.'),
      blockedByProfile: z
        .number()
        .int()
        .min(0)
        .describe(
          'BLOCKED by the profile: a credential of it the target refused, or a declaration its checks cannot use (a profile error).',
        ),
      blockedByTarget: z.number().int().min(0),
      pending: z.number().int().min(0),
      notSelected: z.number().int().min(0),
      other: z.number().int().min(0),
      total: z.number().int().min(0),
    })
    .optional()
    .describe(
      'How many requirements were verified, and why each other one was not (harness/reporter/verification.ts).',
    ),
  profileProblems: z
    .array(z.string())
    .optional()
    .describe(
      'Profile errors the preflight found (a refused credential, named, with the answer seen): the report opens with them; the checks needing that credential are BLOCKED by the profile.',
    ),
  requirements: z.array(requirementResultSchema),
  unknownRequirementIds: z
    .array(z.string())
    .describe('IDs cited by checks but absent from the catalogue (a defect of the suite).'),
  checksWithoutRequirement: z.array(z.string()).describe('Checks that cite no requirement (a defect of the suite).'),
  malformedAnnotations: z
    .array(z.strictObject({ check: z.string(), type: z.string(), problem: z.string() }))
    .optional()
    .describe(
      '`pending`/`settled` annotations the reporter could not read (a defect of the suite): the check reads SKIP (not verified) unless it failed.',
    ),
  waivers: reportWaiversSchema.optional(),
  regionParity: regionParitySchema.optional(),
  audit: auditSectionSchema.optional(),
  catalogue: catalogueScoringSchema
    .optional()
    .describe('Absent in reports of suite versions before catalogue releases.'),
  findings: z
    .array(findingSchema)
    .optional()
    .describe(
      "What the target broke, by cause: the FAIL/WARN requirements whose failures share one observed defect grouped into one finding (a cause seen once is a finding of its own). WARNs on an assumed choice are in `assumptions`, not here. Verdicts are the requirements' own.",
    ),
  assumptions: z
    .array(assumptionSchema)
    .optional()
    .describe(
      'Declare these: WARNs that rest on a choice the profile did not declare, by profile field, with the profile line that settles each.',
    ),
  notScored: z
    .array(requirementResultSchema)
    .optional()
    .describe(
      'Requirements that ran but are not in the scored catalogue release (`catalogue.version`): added after it. Their verdicts are shown, never counted in `summary` or `verdict`.',
    ),
});
export type ConformanceReport = z.infer<typeof conformanceReportSchema>;
