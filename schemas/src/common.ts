// Building blocks shared by the schema sources. Each emitted .schema.json file is self-contained
// (no cross-file $ref), so a vendor can validate with one file and any draft 2020-12 validator;
// sharing happens here, in the sources, by spreading these fragments.

export const jsonSchemaDialect = 'https://json-schema.org/draft/2020-12/schema';

/** Base of every `$id`. Shared with the harness's schemas; ids name the schemas, they are not fetched. */
export const schemaIdBase = 'https://token-conformance.dev/schemas/';

/** The `$id` of the schema published as `schemas/<name>.schema.json`. */
export const schemaId = <const Name extends string>(name: Name): `${typeof schemaIdBase}${Name}.schema.json` =>
  `${schemaIdBase}${name}.schema.json`;

// Character classes of RFC 6749 Appendix A, as regular-expression fragments (ajv compiles
// patterns with the `u` flag; every escape below is valid there).
/** VSCHAR = %x20-7E */
const vschar = '[\\x20-\\x7E]';
/** NQCHAR = %x21 / %x23-5B / %x5D-7E (scope-token, RFC 6749 §3.3) */
const nqchar = '[\\x21\\x23-\\x5B\\x5D-\\x7E]';

/** A form field value of RFC 6749 App. A (client_id, client_secret, refresh_token): one or more VSCHAR. */
export const vscharString = { type: 'string', minLength: 1, pattern: `^${vschar}+$` } as const;

/** Visible ASCII (%x21-7E), non-empty: what a bearer credential can carry in `Authorization: Bearer`. */
export const visibleAsciiString = { type: 'string', minLength: 1, pattern: '^[\\x21-\\x7E]+$' } as const;

/** A space-delimited list of scope-tokens (RFC 6749 §3.3). */
export const scopeString = {
  type: 'string',
  minLength: 1,
  pattern: `^${nqchar}+( ${nqchar}+)*$`,
  description: 'Space-delimited scope-tokens (RFC 6749 §3.3); the order carries no meaning, compare as a set.',
} as const;

/** Marks a member that must not appear. Expressed on `properties` so that ajv's strictRequired accepts it. */
export const forbidden = <const Description extends string>(description: Description) =>
  ({ description, not: {} }) as const;
