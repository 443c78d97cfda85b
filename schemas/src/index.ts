// Every schema authored in TypeScript: the list `npm run schemas:emit` writes to
// schemas/<name>.schema.json, and the staleness test compares with those files.
// (Schemas authored directly as JSON are registered in ../index.ts only.)
import { gatewayErrorSchema } from './gateway-error.ts';
import { interpretationCatalogueSchema, requirementCatalogueSchema } from './requirement-catalogue.ts';
import { tokenErrorSchema } from './token-error.ts';
import {
  tokenRequestClientCredentialsSchema,
  tokenRequestPasswordSchema,
  tokenRequestRefreshTokenSchema,
} from './token-requests.ts';
import {
  tokenResponseEuClientCredentialsSchema,
  tokenResponsePasswordSchema,
  tokenResponseRefreshTokenSchema,
  tokenResponseUsClientCredentialsSchema,
} from './token-responses.ts';

export const authoredSchemas = {
  'token-request-client-credentials': tokenRequestClientCredentialsSchema,
  'token-request-password': tokenRequestPasswordSchema,
  'token-request-refresh-token': tokenRequestRefreshTokenSchema,
  'token-response-us-client-credentials': tokenResponseUsClientCredentialsSchema,
  'token-response-eu-client-credentials': tokenResponseEuClientCredentialsSchema,
  'token-response-password': tokenResponsePasswordSchema,
  'token-response-refresh-token': tokenResponseRefreshTokenSchema,
  'token-error': tokenErrorSchema,
  'gateway-error': gatewayErrorSchema,
  'requirement-catalogue': requirementCatalogueSchema,
  'interpretation-catalogue': interpretationCatalogueSchema,
} as const;

export type AuthoredSchemaName = keyof typeof authoredSchemas;

/** The exact text of schemas/<name>.schema.json for a schema authored here. */
export const emittedText = (schema: object): string => `${JSON.stringify(schema, null, 2)}\n`;
