// The JSON bodies of successful token responses (spec §2.2, §4): one schema per endpoint and grant.
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { forbidden, jsonSchemaDialect, schemaId, scopeString, visibleAsciiString, vscharString } from './common.ts';

const openObject =
  'Members not named here are allowed and ignored: RFC 6749 §5.1 says the client must ignore unrecognized value names (id_token, jti, ...).';

/** The members every token response carries (spec §2.2; RFC 6749 §5.1). */
const coreProperties = {
  access_token: {
    ...visibleAsciiString,
    description:
      'The bearer credential for protected calls (spec §2.2). Opaque to the client. Non-empty visible ASCII: RFC 6749 App. A.12 allows VSCHAR, but a credential with a space cannot be sent as `Authorization: Bearer <token>` (RFC 6750 §2.1).',
  },
  token_type: { const: 'Bearer', description: 'Always "Bearer", spelled exactly so (spec §2.2).' },
  expires_in: {
    type: 'integer',
    exclusiveMinimum: 0,
    description:
      'Lifetime of the access token in seconds from the response (spec §2.2, §8; RFC 6749 §5.1): a JSON integer, not a string, greater than 0.',
  },
} as const;

const core = ['access_token', 'token_type', 'expires_in'] as const;

const userTokenProperties = {
  ...coreProperties,
  refresh_token: {
    ...vscharString,
    description:
      'Single use (spec §3, §8); valid 7 days after the access token (spec §8). RFC 6749 App. A.17: one or more VSCHAR.',
  },
  refresh_token_expires_in: {
    type: 'integer',
    exclusiveMinimum: 0,
    description:
      'Optional (draft-ietf-oauth-refresh-token-expiration-03): seconds from the response until the refresh token is refused. Where present, catalogued as STATE-RT-EXP-003.',
  },
  scope: {
    ...scopeString,
    description:
      'The granted scope, space-delimited (spec §2.2, §5.7; RFC 6749 §3.3). Which values: catalogued as GRANT-PW-002 (interpretation OI-3).',
  },
} as const;

export const tokenResponseUsClientCredentialsSchema = {
  $schema: jsonSchemaDialect,
  $id: schemaId('token-response-us-client-credentials'),
  title: 'Token response: client_credentials at the US endpoint',
  description: `The body of a successful client_credentials response from POST {auth_url_us}/api/v1/auth/oauth2/token (spec §2.2, §4 row 1): no refresh_token and no scope. ${openObject}`,
  type: 'object',
  required: core,
  properties: {
    ...coreProperties,
    refresh_token: forbidden('Never returned for client_credentials (spec §2.2, §3 row 1, §5.6).'),
    scope: forbidden('Not returned by US client_credentials (spec §2.2, §4 row 1).'),
  },
  additionalProperties: true,
  examples: [
    {
      access_token: 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1cy1jYy1jbGllbnQifQ.c2lnbmF0dXJl',
      token_type: 'Bearer',
      expires_in: 3600,
    },
  ],
} as const satisfies JSONSchema;

export const tokenResponseEuClientCredentialsSchema = {
  $schema: jsonSchemaDialect,
  $id: schemaId('token-response-eu-client-credentials'),
  title: 'Token response: client_credentials at the EU endpoint',
  description: `The body of a successful client_credentials response from POST {auth_url_eu}/oauth2/default/v1/token (spec §2.2, §4 row 2): scope is always the constant "empty_default"; no refresh_token. ${openObject}`,
  type: 'object',
  required: [...core, 'scope'],
  properties: {
    ...coreProperties,
    scope: { const: 'empty_default', description: 'Unused; always the constant "empty_default" (spec §2.2).' },
    refresh_token: forbidden('Never returned for client_credentials (spec §2.2, §3 row 1, §5.6).'),
  },
  additionalProperties: true,
  examples: [
    {
      access_token: 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJldS1jYy1jbGllbnQifQ.c2lnbmF0dXJl',
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'empty_default',
    },
  ],
} as const satisfies JSONSchema;

export const tokenResponsePasswordSchema = {
  $schema: jsonSchemaDialect,
  $id: schemaId('token-response-password'),
  title: 'Token response: password grant',
  description: `The body of a successful password response from the US token endpoint (spec §2.2, §4 row 3): includes refresh_token and scope. ${openObject}`,
  type: 'object',
  required: [...core, 'refresh_token', 'scope'],
  properties: userTokenProperties,
  additionalProperties: true,
  examples: [
    {
      access_token: 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhY21lXFxqZG9lIn0.c2lnbmF0dXJl',
      token_type: 'Bearer',
      expires_in: 604800,
      refresh_token: 'tGzv3JOkF0XG5Qx2TlKWIA',
      scope: 'email openid profile company',
    },
  ],
} as const satisfies JSONSchema;

export const tokenResponseRefreshTokenSchema = {
  $schema: jsonSchemaDialect,
  $id: schemaId('token-response-refresh-token'),
  title: 'Token response: refresh_token grant',
  description: `The body of a successful refresh_token response from the US token endpoint: the same shape as the password response (spec §4 row 4), with a new refresh_token (the one presented is single use, spec §3). ${openObject}`,
  type: 'object',
  required: [...core, 'refresh_token', 'scope'],
  properties: userTokenProperties,
  additionalProperties: true,
  examples: [
    {
      access_token: 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhY21lXFxqZG9lIiwibiI6Mn0.c2lnbmF0dXJl',
      token_type: 'Bearer',
      expires_in: 604800,
      refresh_token: '8xLOxBtZp8TzQhZrFJ6Wyw',
      scope: 'email openid profile company',
    },
  ],
} as const satisfies JSONSchema;

export type TokenResponseUsClientCredentials = FromSchema<typeof tokenResponseUsClientCredentialsSchema>;
export type TokenResponseEuClientCredentials = FromSchema<typeof tokenResponseEuClientCredentialsSchema>;
export type TokenResponsePassword = FromSchema<typeof tokenResponsePasswordSchema>;
export type TokenResponseRefreshToken = FromSchema<typeof tokenResponseRefreshTokenSchema>;
