// The JSON body of a gateway error in the reference interpretation (spec §7.2; interpretation OI-25).
// The code enum comes from gateway-error-codes.ts, the one list of §7.2 codes.
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { gatewayErrorCodes } from '../gateway-error-codes.ts';
import { jsonSchemaDialect, schemaId } from './common.ts';

export const gatewayErrorSchema = {
  $schema: jsonSchemaDialect,
  $id: schemaId('gateway-error'),
  title: 'Gateway error',
  description:
    'The body of an error from the gateway in front of the protected APIs, as the reference server sends it with Content-Type application/json. ' +
    'Spec §7.2 gives the codes and their messages only; the body format is not shown, so this shape is an interpretation (OI-25) that a target may replace. ' +
    'code is one of the codes of the §7.2 table (the family patterns 000-1xxx, 000-20xx and 000-21xx are not codes themselves). Unknown members are allowed.',
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: { enum: gatewayErrorCodes, description: 'A code of the spec §7.2 table.' },
    message: {
      type: 'string',
      minLength: 1,
      description: 'The message §7.2 gives for the code (ERR-GW-GEN-003 checks the match).',
    },
  },
  additionalProperties: true,
  examples: [
    { code: '000-1202', message: 'Unauthorized' },
    { code: '000-1020', message: 'Invalid/missing version' },
    { code: '000-2001', message: 'Rate Limit Exceeded' },
  ],
} as const satisfies JSONSchema;

export type GatewayError = FromSchema<typeof gatewayErrorSchema>;
