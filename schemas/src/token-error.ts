// The JSON body of a token endpoint error (spec §2.3, §7.1; RFC 6749 §5.2).
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { forbidden, jsonSchemaDialect, schemaId } from './common.ts';

/**
 * The five codes of spec §2.3, then unsupported_grant_type. The spec's list omits it, but §7.1 leaves
 * the mapping of conditions to codes to RFC 6749, and RFC 6749 §5.2 reserves unsupported_grant_type
 * for a grant type the server does not support; invalid_request there explicitly excludes an
 * unsupported grant type. A conforming server therefore needs it (catalogued as ERR-TOK-004,
 * interpretation OI-1, for targets that answer invalid_request instead).
 */
export const tokenErrorCodes = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'invalid_scope',
  'unsupported_grant_type',
] as const;

export type TokenErrorCode = (typeof tokenErrorCodes)[number];

export const tokenErrorSchema = {
  $schema: jsonSchemaDialect,
  $id: schemaId('token-error'),
  title: 'Token endpoint error',
  description:
    'The body of an error response from either token endpoint (spec §2.3, §7.1; RFC 6749 §5.2), sent with Content-Type application/json. ' +
    'error takes the five values of spec §2.3 plus unsupported_grant_type, which spec §7.1 brings in by leaving the mapping to RFC 6749 (§5.2 reserves it for an unsupported grant type). ' +
    'Unknown members are allowed (RFC 6749 §8.5 lets extensions add error parameters); an error response never carries a token.',
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      enum: tokenErrorCodes,
      description: 'One of the five codes of spec §2.3, or unsupported_grant_type (RFC 6749 §5.2).',
    },
    error_description: {
      type: 'string',
      pattern: '^[\\x20\\x21\\x23-\\x5B\\x5D-\\x7E]*$',
      description:
        'Human-readable ASCII text; RFC 6749 §5.2 allows only %x20-21 / %x23-5B / %x5D-7E (no double quote, no backslash, no control or non-ASCII characters).',
    },
    error_uri: {
      type: 'string',
      format: 'uri',
      pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$',
      description: 'An absolute URI of a page about the error (RFC 6749 §5.2: %x21 / %x23-5B / %x5D-7E only).',
    },
    access_token: forbidden('An error response issues no token (spec §7.1).'),
    refresh_token: forbidden('An error response issues no token (spec §7.1).'),
  },
  additionalProperties: true,
  examples: [
    { error: 'invalid_request', error_description: 'The grant_type parameter is missing.' },
    { error: 'invalid_client' },
    {
      error: 'unsupported_grant_type',
      error_description: 'grant_type authorization_code is not supported.',
      error_uri: 'https://docs.example.com/errors/unsupported_grant_type',
    },
  ],
} as const satisfies JSONSchema;

export type TokenError = FromSchema<typeof tokenErrorSchema>;
