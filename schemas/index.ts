// The contract's validators: every schema of schemas/ compiled once with ajv (draft 2020-12, strict
// mode, ajv-formats), typed by the TypeScript type derived from the same source.
//
// Adding a schema is one entry in `registry` below (plus its import). A schema authored as JSON:
//   import targetProfileSchema from './target-profile.schema.json' with { type: 'json' };
//   'target-profile': entry<TargetProfile>(targetProfileSchema),
//
// Error texts name the failing location and the rule, never the offending value: a value may be
// a secret or a token, and error texts end up in reports.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { GatewayError } from './src/gateway-error.ts';
import { authoredSchemas } from './src/index.ts';
import conformanceReportSchema from './conformance-report.schema.json' with { type: 'json' }; // emitted by harness/reporter/emit-schema.ts
import targetProfileSchema from './target-profile.schema.json' with { type: 'json' }; // emitted by harness/reporter/emit-schema.ts
import waiversSchema from './waivers.schema.json' with { type: 'json' }; // emitted by harness/waivers/emit-waivers-schema.ts
import type { InterpretationCatalogue, RequirementCatalogue } from './src/requirement-catalogue.ts';
import type { TokenError } from './src/token-error.ts';
import type {
  TokenRequestClientCredentials,
  TokenRequestPassword,
  TokenRequestRefreshToken,
} from './src/token-requests.ts';
import type {
  TokenResponseEuClientCredentials,
  TokenResponsePassword,
  TokenResponseRefreshToken,
  TokenResponseUsClientCredentials,
} from './src/token-responses.ts';

export type { GatewayError } from './src/gateway-error.ts';
export type { Interpretation, InterpretationCatalogue, RequirementCatalogue } from './src/requirement-catalogue.ts';
export type { TokenError, TokenErrorCode } from './src/token-error.ts';
export { tokenErrorCodes } from './src/token-error.ts';
export type {
  TokenRequestClientCredentials,
  TokenRequestPassword,
  TokenRequestRefreshToken,
} from './src/token-requests.ts';
export type {
  TokenResponseEuClientCredentials,
  TokenResponsePassword,
  TokenResponseRefreshToken,
  TokenResponseUsClientCredentials,
} from './src/token-responses.ts';
export { schemaIdBase } from './src/common.ts';

/** A registered schema; `T` (never present at run time) is the type a valid value has. */
export interface SchemaEntry<T> {
  readonly schema: Readonly<Record<string, unknown>> & { readonly $id: string };
  readonly type?: T;
}

const entry = <T>(schema: object): SchemaEntry<T> => ({ schema: schema as SchemaEntry<T>['schema'] });

const registry = {
  'token-request-client-credentials': entry<TokenRequestClientCredentials>(
    authoredSchemas['token-request-client-credentials'],
  ),
  'token-request-password': entry<TokenRequestPassword>(authoredSchemas['token-request-password']),
  'token-request-refresh-token': entry<TokenRequestRefreshToken>(authoredSchemas['token-request-refresh-token']),
  'token-response-us-client-credentials': entry<TokenResponseUsClientCredentials>(
    authoredSchemas['token-response-us-client-credentials'],
  ),
  'token-response-eu-client-credentials': entry<TokenResponseEuClientCredentials>(
    authoredSchemas['token-response-eu-client-credentials'],
  ),
  'token-response-password': entry<TokenResponsePassword>(authoredSchemas['token-response-password']),
  'token-response-refresh-token': entry<TokenResponseRefreshToken>(authoredSchemas['token-response-refresh-token']),
  'token-error': entry<TokenError>(authoredSchemas['token-error']),
  'gateway-error': entry<GatewayError>(authoredSchemas['gateway-error']),
  'requirement-catalogue': entry<RequirementCatalogue>(authoredSchemas['requirement-catalogue']),
  'interpretation-catalogue': entry<InterpretationCatalogue>(authoredSchemas['interpretation-catalogue']),
  'target-profile': entry<Record<string, unknown>>(targetProfileSchema),
  'conformance-report': entry<Record<string, unknown>>(conformanceReportSchema),
  waivers: entry<Record<string, unknown>>(waiversSchema),
} as const satisfies Record<string, SchemaEntry<unknown>>;

/** The short id of a schema: the file schemas/<id>.schema.json, `$id` = schemaIdBase + `<id>.schema.json`. */
export type SchemaId = keyof typeof registry;

/** The type of a value valid against schema `I`. */
export type SchemaType<I extends SchemaId> = (typeof registry)[I] extends SchemaEntry<infer T> ? T : never;

export const schemaIds = Object.freeze(Object.keys(registry)) as readonly SchemaId[];

/** The JSON Schema registered under `schemaId` (the object the .schema.json file holds). */
export const schemaFor = (schemaId: SchemaId): SchemaEntry<unknown>['schema'] => registry[schemaId].schema;

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** A fresh ajv with the contract's settings: draft 2020-12, every strict option on, all errors, formats. */
export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, verbose: true });
  addFormats(ajv);
  return ajv;
}

const ajv = createAjv();
// Registered without validating each against the draft's meta-schema: that compiles the
// meta-schema (~50 ms of CPU in every process that imports this, each Playwright worker among
// them), and these schemas are the package's own, each compiled against it by the unit tests
// (schemas/test/schemas.test.ts).
for (const id of schemaIds) ajv.addSchema(registry[id].schema, undefined, undefined, false);

// Compiled on first use, not at import: every Playwright worker and CLI process imports this
// module, and most use two or three of the schemas (compiling all of them cost ~0.5 s per process).
const compiled = new Map<SchemaId, ValidateFunction>();

/** The compiled validator of a schema (compiled once, on first use). */
export const validatorFor = <I extends SchemaId>(schemaId: I): ValidateFunction<SchemaType<I>> => {
  let check = compiled.get(schemaId);
  if (!check) {
    check = ajv.getSchema(registry[schemaId].schema.$id) ?? ajv.compile(registry[schemaId].schema);
    compiled.set(schemaId, check);
  }
  return check as ValidateFunction<SchemaType<I>>;
};

export type ValidationResult<T> =
  | { readonly valid: true; readonly value: T }
  | { readonly valid: false; readonly errors: readonly string[]; readonly text: string };

/** Validates `value` against a schema; on failure `errors` has one readable line per violation. */
export function validate<I extends SchemaId>(schemaId: I, value: unknown): ValidationResult<SchemaType<I>> {
  const check = validatorFor(schemaId);
  if (check(value)) return { valid: true, value };
  const errors = formatErrors(check.errors ?? []);
  return { valid: false, errors, text: `not a valid ${schemaId}:\n  ${errors.join('\n  ')}` };
}

export class SchemaValidationError extends Error {
  override readonly name = 'SchemaValidationError';
  constructor(
    readonly schemaId: SchemaId,
    readonly errors: readonly string[],
    label: string,
  ) {
    super(`${label} is not a valid ${schemaId}:\n  ${errors.join('\n  ')}`);
  }
}

/** Throws a SchemaValidationError (readable text, no values echoed) unless `value` is valid. */
export function assertValid<I extends SchemaId>(
  schemaId: I,
  value: unknown,
  label = 'value',
): asserts value is SchemaType<I> {
  const result = validate(schemaId, value);
  if (!result.valid) throw new SchemaValidationError(schemaId, result.errors, label);
}

/** One readable line per ajv error: the JSON pointer of the location, then the rule broken. Never the value. */
export function formatErrors(errors: readonly ErrorObject[]): string[] {
  const lines = errors
    // An `if`/`then` failure is reported again by the keyword inside `then`; keep the specific one.
    .filter((error) => error.keyword !== 'if')
    .map((error) => `${error.instancePath === '' ? '(root)' : error.instancePath}: ${describe(error)}`);
  return [...new Set(lines)];
}

function describe(error: ErrorObject): string {
  const parent = error.parentSchema as { description?: unknown } | undefined;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'not':
      return typeof parent?.description === 'string'
        ? `must be absent: ${parent.description}`
        : 'must not match the excluded shape';
    case 'required':
      return `missing required member "${String(params.missingProperty)}"`;
    case 'const':
      return `must equal ${JSON.stringify(params.allowedValue)}`;
    case 'enum': {
      const allowed = params.allowedValues as unknown[];
      return allowed.length <= 8
        ? `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`
        : `must be one of the ${allowed.length} values the schema lists`;
    }
    case 'type':
      return `must be of type ${String(params.type)}`;
    case 'pattern':
      return `does not match ${String(params.pattern)}`;
    case 'additionalProperties':
      return `unknown member "${String(params.additionalProperty)}"`;
    default:
      return error.message ?? error.keyword;
  }
}
