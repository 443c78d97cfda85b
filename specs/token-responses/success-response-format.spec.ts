// The format of every successful token response (spec §2.2, §4; RFC 6749 §5.1), judged on one
// response per grant the region offers (success-samples.ts). Each check names every sample
// that breaks its requirement.
import { expect, needs, requirement, test, type Region } from '../../fixtures/index.ts';
import { successSamples } from '../../fixtures/support/token-responses/success-samples.ts';

const regions: Region[] = ['us', 'eu'];

/** RFC 6749 App. A.12 VSCHAR without the space (RFC 6750 §2.1: the token goes into Authorization: Bearer). */
const visibleAscii = /^[\x21-\x7E]+$/;
/** expires_in written as a JSON integer literal (not 3600.0, not 3.6e3, not "3600"). */
const integerLiteral = /"expires_in"\s*:\s*-?(0|[1-9]\d*)\s*[,}]/;

test.describe('token endpoint: successful responses', () => {
  for (const region of regions) {
    const R = region.toUpperCase();

    test(
      `TOKEN-RESP-001 at ${R} every successful token response has status 200, Content-Type application/json and a JSON object body`,
      requirement('TOKEN-RESP-001', needs(region)),
      async ({ tokenClient, target, control }) => {
        for (const { label, res } of await successSamples(region, tokenClient, target, control)) {
          expect.soft(res.status, `${label}: status — got ${res.describe()}`).toBe(200);
          expect.soft(res.mediaType, `${label}: Content-Type — got ${res.describe()}`).toBe('application/json');
          const isObject = res.json !== null && typeof res.json === 'object' && !Array.isArray(res.json);
          expect.soft(isObject, `${label}: the body is a JSON object — got ${res.describe()}`).toBe(true);
        }
      },
    );

    test(
      `TOKEN-RESP-002 at ${R} the access_token of every token response is a non-empty string of visible ASCII characters`,
      requirement('TOKEN-RESP-002', needs(region)),
      async ({ tokenClient, target, control }) => {
        for (const { label, res } of await successSamples(region, tokenClient, target, control)) {
          const token = res.body.access_token;
          expect.soft(typeof token, `${label}: access_token is a string — got ${res.describe()}`).toBe('string');
          if (typeof token === 'string') {
            // The token itself is never shown: only which rule it breaks.
            const bad = [...token]
              .filter((ch) => !visibleAscii.test(ch))
              .map((ch) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
            expect.soft(token.length, `${label}: access_token is non-empty`).toBeGreaterThan(0);
            expect
              .soft(bad, `${label}: access_token has only visible ASCII (%x21-7E); characters outside it`)
              .toEqual([]);
          }
        }
      },
    );

    test(
      `TOKEN-RESP-003 at ${R} the token_type of every token response is exactly Bearer`,
      requirement('TOKEN-RESP-003', needs(region)),
      async ({ tokenClient, target, control }) => {
        for (const { label, res } of await successSamples(region, tokenClient, target, control)) {
          expect.soft(res.body.token_type, `${label}: token_type — got ${res.describe()}`).toBe('Bearer');
        }
      },
    );

    test(
      `TOKEN-RESP-004 at ${R} the expires_in of every token response is a JSON integer greater than 0`,
      requirement('TOKEN-RESP-004', needs(region)),
      async ({ tokenClient, target, control }) => {
        for (const { label, res } of await successSamples(region, tokenClient, target, control)) {
          const v = res.body.expires_in;
          expect
            .soft(
              typeof v === 'number' && Number.isInteger(v) && v > 0,
              `${label}: expires_in is an integer > 0 — got ${res.describe()}`,
            )
            .toBe(true);
          expect
            .soft(
              integerLiteral.test(res.text),
              `${label}: expires_in is written as a JSON integer — got ${res.describe()}`,
            )
            .toBe(true);
        }
      },
    );
  }
});
