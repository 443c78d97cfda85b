// The waivers file: a reviewed list of known deviations. This zod schema is the source of truth;
// schemas/waivers.schema.json is emitted from it (harness/waivers/emit-waivers-schema.ts) and a test
// fails when the file is stale.
import { z } from 'zod';
import { waiverFields } from '../reporter/report.schema.ts';

export const waiverSchema = z.strictObject({
  ...waiverFields,
  ticket: z
    .string()
    .min(1)
    .optional()
    .describe('Optional: the tracking issue or change that will remove the deviation.'),
});
export type Waiver = z.infer<typeof waiverSchema>;

export const waiversFileSchema = z.strictObject({
  $schema: z.string().optional(),
  waivers: z
    .array(waiverSchema)
    .describe(
      'One entry per known deviation. A requirement may appear more than once only with different `check` texts.',
    ),
});
export type WaiversFile = z.infer<typeof waiversFileSchema>;

export const waiversExample: WaiversFile = {
  $schema: '../schemas/waivers.schema.json',
  waivers: [
    {
      requirement: 'GRANT-CC-001',
      owner: 'identity-platform@example.com',
      justification: 'Staging returns expires_in as a string until the gateway upgrade (PLAT-1234).',
      expires: '2026-12-31',
      ticket: 'PLAT-1234',
    },
  ],
};
