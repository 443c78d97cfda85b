// The region-parity section of reports/conformance.json (zod; emitted with the report's schema).
import { z } from 'zod';

export const parityStatuses = ['same', 'explained', 'unexplained'] as const;

export const parityAspectSchema = z.strictObject({
  aspect: z
    .string()
    .describe('What is compared, e.g. "success.fields", "success.expires_in", "error.bad_client_secret".'),
  us: z.string().describe('What the US endpoint answered (a short rendering, never a token or secret).'),
  eu: z.string().describe('What the EU endpoint answered.'),
  status: z
    .enum(parityStatuses)
    .describe(
      "same; explained (the spec or the target's declared interpretation accounts for the difference: see `clause`); unexplained (flag it).",
    ),
  clause: z.string().optional().describe('The spec clause or open interpretation that explains the difference.'),
  note: z.string().optional(),
});
export type ParityAspect = z.infer<typeof parityAspectSchema>;

export const regionParitySchema = z
  .strictObject({
    compared: z.boolean().describe('False when the two regions could not be compared (the reason says why).'),
    reason: z.string().optional(),
    usEndpoint: z.string().optional(),
    euEndpoint: z.string().optional(),
    aspects: z.array(parityAspectSchema),
    counts: z.strictObject({
      same: z.number().int().min(0),
      explained: z.number().int().min(0),
      unexplained: z.number().int().min(0),
    }),
  })
  .describe(
    'US and EU client_credentials compared side by side (response fields, expires_in, token_type, token format, error codes for the same bad requests). Informative: it does not change a verdict.',
  );
export type RegionParity = z.infer<typeof regionParitySchema>;
