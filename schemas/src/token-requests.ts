// The form fields of the three token requests (spec §2.1, §4). One schema per grant.
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { jsonSchemaDialect, schemaId, scopeString, vscharString } from './common.ts';

const formDescription =
  'The fields are those of an application/x-www-form-urlencoded body, decoded into a JSON object with one string per field name ' +
  '(for example Object.fromEntries(new URLSearchParams(body))). A field sent twice is invalid (RFC 6749 §3.2) and has no representation here; ' +
  'a field sent with an empty value counts as absent (RFC 6749 §3.2), hence minLength 1. Unknown fields are allowed because the server ignores them ' +
  '(RFC 6749 §3.2). client_id and client_secret are shown as form fields, the method of spec §2.1; a client using HTTP Basic (RFC 6749 §2.3.1) ' +
  'sends them in the Authorization header instead.';

const clientFields = {
  client_id: {
    ...vscharString,
    description: 'Issued at partner application registration (spec §2.1; RFC 6749 App. A.1).',
  },
  client_secret: {
    ...vscharString,
    description: 'Issued at partner application registration (spec §2.1; RFC 6749 App. A.2).',
  },
} as const;

const optionalScope = {
  ...scopeString,
  description:
    'Optional (RFC 6749 §3.3; not listed by spec §2.1). How a target treats it is catalogued as GRANT-CC-007, GRANT-CC-008, GRANT-PW-011 and GRANT-RT-003 to GRANT-RT-005.',
} as const;

export const tokenRequestClientCredentialsSchema = {
  $schema: jsonSchemaDialect,
  $id: schemaId('token-request-client-credentials'),
  title: 'Token request: client_credentials grant',
  description: `The form fields of a client_credentials token request at the US or EU token endpoint (spec §2.1, §4 rows 1 and 2; RFC 6749 §4.4.2). ${formDescription}`,
  type: 'object',
  required: ['client_id', 'client_secret', 'grant_type'],
  properties: {
    ...clientFields,
    grant_type: { const: 'client_credentials', description: 'Must equal the grant used (spec §2.1).' },
    scope: optionalScope,
  },
  additionalProperties: { type: 'string' },
  examples: [
    { client_id: 'us-cc-client', client_secret: 'example-secret-0001', grant_type: 'client_credentials' },
    {
      client_id: 'eu-cc-client',
      client_secret: 'example-secret-0002',
      grant_type: 'client_credentials',
      scope: 'empty_default',
    },
  ],
} as const satisfies JSONSchema;

export const tokenRequestPasswordSchema = {
  $schema: jsonSchemaDialect,
  $id: schemaId('token-request-password'),
  title: 'Token request: password grant',
  description: `The form fields of a password token request at the US token endpoint (spec §2.1, §4 row 3; RFC 6749 §4.3.2). ${formDescription}`,
  type: 'object',
  required: ['client_id', 'client_secret', 'grant_type', 'username', 'password'],
  properties: {
    ...clientFields,
    grant_type: { const: 'password', description: 'Must equal the grant used (spec §2.1).' },
    username: {
      type: 'string',
      pattern: '^[^\\\\\\r\\n]+\\\\[^\\r\\n]+$',
      description:
        'tenant_system_name\\user_name (spec §2.1, §5.5): a non-empty tenant system name without backslash, one backslash, a non-empty user name; no CR or LF (RFC 6749 App. A.3).',
    },
    password: {
      type: 'string',
      minLength: 1,
      pattern: '^[^\\r\\n]+$',
      description: "The user's password: any Unicode characters except CR and LF (RFC 6749 App. A.4).",
    },
    scope: optionalScope,
  },
  additionalProperties: { type: 'string' },
  examples: [
    {
      client_id: 'us-cc-client',
      client_secret: 'example-secret-0001',
      grant_type: 'password',
      username: 'acme\\jdoe',
      password: 'correct horse battery staple',
    },
  ],
} as const satisfies JSONSchema;

export const tokenRequestRefreshTokenSchema = {
  $schema: jsonSchemaDialect,
  $id: schemaId('token-request-refresh-token'),
  title: 'Token request: refresh_token grant',
  description: `The form fields of a refresh_token token request at the US token endpoint (spec §2.1, §4 row 4; RFC 6749 §6). The spec does not state its content type (§4 notes); it is a form like the other two. ${formDescription}`,
  type: 'object',
  required: ['client_id', 'client_secret', 'grant_type', 'refresh_token'],
  properties: {
    ...clientFields,
    grant_type: { const: 'refresh_token', description: 'Must equal the grant used (spec §2.1).' },
    refresh_token: {
      ...vscharString,
      description:
        'The refresh token of an earlier password-grant or refresh response (spec §2.1; RFC 6749 App. A.17).',
    },
    scope: {
      ...scopeString,
      description:
        'Optional (RFC 6749 §6): must not include a scope-token not originally granted; when omitted, the original scope applies.',
    },
  },
  additionalProperties: { type: 'string' },
  examples: [
    {
      client_id: 'us-cc-client',
      client_secret: 'example-secret-0001',
      grant_type: 'refresh_token',
      refresh_token: 'tGzv3JOkF0XG5Qx2TlKWIA',
    },
    {
      client_id: 'us-cc-client',
      client_secret: 'example-secret-0001',
      grant_type: 'refresh_token',
      refresh_token: 'tGzv3JOkF0XG5Qx2TlKWIA',
      scope: 'email profile',
    },
  ],
} as const satisfies JSONSchema;

export type TokenRequestClientCredentials = FromSchema<typeof tokenRequestClientCredentialsSchema>;
export type TokenRequestPassword = FromSchema<typeof tokenRequestPasswordSchema>;
export type TokenRequestRefreshToken = FromSchema<typeof tokenRequestRefreshTokenSchema>;
