// The requirement catalogue (requirements/requirements.json) and the catalogue of open
// interpretations (requirements/interpretations.json). The level, area and capability lists are
// defined here once; requirements/types.ts derives its types from these schemas.
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { jsonSchemaDialect, schemaId } from './common.ts';

export const requirementLevels = ['MUST', 'SHOULD', 'ADVISORY', 'INTERPRETATION'] as const;

export const requirementAreas = [
  'grants',
  'lifecycle',
  'token-errors',
  'gateway',
  'limits',
  'versioning',
  'transport',
  'client-auth',
  'token-responses',
  'token-requests',
  'bearer',
] as const;

/**
 * What a check needs of a target, in the words the catalogue and the specs' needs() share: a
 * capability the profile declares, a region or surface it has, or one of its named entries
 * (profileEntryNeedPattern).
 */
export const requirementCapabilities = [
  'clock-control',
  'fault-injection',
  'principal-control',
  'load',
  'destructive',
  'http-basic',
  'us',
  'eu',
  'gateway',
  'people',
  'plain-http',
] as const;

export const requirementIdPattern = '^[A-Z]+(-[A-Z]+)*-[0-9]{3,4}$';
export const interpretationIdPattern = '^OI-[1-9][0-9]*$';
/** A named entry of the profile: `client:<name>` (credentials.clients), `user:<name>` (credentials.users), `token:<name>` (credentials.tokens), `resource:<name>` (resources), `person:<name>` (resources.people). */
export const profileEntryNeedPattern = '^(client|user|token|resource|person):[a-z][A-Za-z0-9]*$';

export const requirementSchema = {
  type: 'object',
  required: ['id', 'level', 'area', 'source', 'statement'],
  properties: {
    id: {
      type: 'string',
      pattern: requirementIdPattern,
      description:
        'Stable ID: an upper-case prefix naming the area and subject, then a 3-digit sequence or, for ERR-GW, the 4 digits of the gateway code. Never renamed or reused once published.',
    },
    level: {
      enum: requirementLevels,
      description:
        'MUST broken → FAIL; SHOULD or ADVISORY broken → WARN; INTERPRETATION → judged against the choice the target declares.',
    },
    area: { enum: requirementAreas, description: 'The part of the suite that checks it.' },
    source: { type: 'string', minLength: 2, description: 'Where it comes from: spec clause (§n) and/or RFC section.' },
    statement: {
      type: 'string',
      minLength: 20,
      maxLength: 400,
      pattern: '^\\S[^\\n]*\\.$',
      description: 'One testable sentence, checkable by a black-box HTTP exchange.',
    },
    interpretation: {
      type: 'string',
      pattern: interpretationIdPattern,
      description:
        'The open interpretation (requirements/interpretations.json) whose declared value fixes the expected outcome.',
    },
    needs: {
      type: 'array',
      uniqueItems: true,
      minItems: 1,
      items: {
        type: 'string',
        anyOf: [{ enum: requirementCapabilities }, { pattern: profileEntryNeedPattern }],
      },
      description:
        'What the target must have for the check to run (a capability, a region or surface, or a named profile entry such as client:usCcOnlyClient); without it the check is SKIP, or NOT_APPLICABLE for a region or surface, with the reason.',
    },
    note: {
      type: 'string',
      minLength: 1,
      description: 'Why the requirement reads as it does, for the vendor; not part of the check.',
    },
  },
  additionalProperties: false,
  if: { properties: { level: { const: 'INTERPRETATION' } } },
  then: { properties: { interpretation: true }, required: ['interpretation'] },
} as const satisfies JSONSchema;

export const requirementCatalogueSchema = {
  $schema: jsonSchemaDialect,
  $id: schemaId('requirement-catalogue'),
  title: 'Requirement catalogue',
  description:
    'The requirements a target of the token service is checked against (requirements/requirements.json): every testable statement of the spec and every RFC rule it delegates, ' +
    'each with a stable ID, a level, an area, its source and one testable sentence. An INTERPRETATION requirement names the open interpretation it depends on.',
  type: 'object',
  required: ['requirements'],
  properties: {
    $schema: { type: 'string', description: 'Editor hint: the path of this schema.' },
    requirements: { type: 'array', minItems: 1, items: requirementSchema },
  },
  additionalProperties: false,
  examples: [
    {
      requirements: [
        {
          id: 'STATE-RT-USED-001',
          level: 'MUST',
          area: 'lifecycle',
          source: '§3 row 5',
          statement:
            'A refresh token that has already been used for a successful refresh is refused with 400 invalid_grant.',
        },
        {
          id: 'ERR-TOK-004',
          level: 'MUST',
          area: 'token-errors',
          source: 'RFC 6749 §5.2; §7.1',
          interpretation: 'OI-1',
          statement:
            'A token request with a grant_type the target does not support is refused with 400 and the error the target declares for unsupported grants.',
        },
        {
          id: 'STATE-AT-EXP-001',
          level: 'MUST',
          area: 'lifecycle',
          source: '§3 row 3; §8',
          needs: ['clock-control'],
          statement:
            'Once expires_in seconds have elapsed since issuance, the protected endpoint refuses the access token with 401.',
        },
      ],
    },
  ],
} as const satisfies JSONSchema;

export const interpretationSchema = {
  type: 'object',
  required: ['id', 'key', 'title', 'question', 'source', 'default', 'reference'],
  properties: {
    id: { type: 'string', pattern: interpretationIdPattern, description: 'OI-n, as cited by requirements.' },
    key: {
      type: 'string',
      pattern: '^[a-z][A-Za-z0-9]*$',
      description: "The key under the target profile's `interpretations` object.",
    },
    title: { type: 'string', minLength: 1 },
    question: { type: 'string', minLength: 1, description: 'What the spec leaves open.' },
    source: {
      type: 'string',
      minLength: 2,
      description: 'The spec clause that leaves it open, and the RFC text that bears on it.',
    },
    values: {
      type: 'array',
      minItems: 2,
      uniqueItems: true,
      items: { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'boolean' }] },
      description: 'The values a target may declare, when the choice is one of a list.',
    },
    schema: {
      type: 'object',
      description:
        'When the declared value is structured: a JSON Schema (draft 2020-12) fragment for it, for the target-profile schema to embed.',
    },
    default: {
      description:
        "The reference server's choice, assumed when a profile declares nothing: one of `values`, or valid against `schema`.",
    },
    reference: { type: 'string', minLength: 1, description: "The reference server's choice, in words." },
  },
  additionalProperties: false,
  oneOf: [
    { properties: { values: true }, required: ['values'] },
    { properties: { schema: true }, required: ['schema'] },
  ],
} as const satisfies JSONSchema;

export const interpretationCatalogueSchema = {
  $schema: jsonSchemaDialect,
  $id: schemaId('interpretation-catalogue'),
  title: 'Open interpretations',
  description:
    'The points the spec leaves open (requirements/interpretations.json). Each has one key under which a target profile declares its own choice, ' +
    "the values allowed (a list, or a JSON Schema for a structured value), and the reference server's choice as the default.",
  type: 'object',
  required: ['interpretations'],
  properties: {
    $schema: { type: 'string', description: 'Editor hint: the path of this schema.' },
    interpretations: { type: 'array', minItems: 1, items: interpretationSchema },
  },
  additionalProperties: false,
  examples: [
    {
      interpretations: [
        {
          id: 'OI-1',
          key: 'unsupportedGrantError',
          title: 'Error for an unsupported grant type',
          question: 'Spec §2.3 lists five error codes without unsupported_grant_type.',
          source: '§2.3, §7.1; RFC 6749 §5.2',
          values: ['unsupported_grant_type', 'invalid_request'],
          default: 'unsupported_grant_type',
          reference: '400 unsupported_grant_type',
        },
      ],
    },
  ],
} as const satisfies JSONSchema;

export type Requirement = FromSchema<typeof requirementSchema>;
export type RequirementCatalogue = FromSchema<typeof requirementCatalogueSchema>;
export type Interpretation = FromSchema<typeof interpretationSchema>;
export type InterpretationCatalogue = FromSchema<typeof interpretationCatalogueSchema>;
