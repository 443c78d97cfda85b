// The format of every token-endpoint error response (spec §2.3, §7.1; RFC 6749 §5.2), judged on a
// representative set of error conditions at each region (error-conditions.ts). Each check
// names every condition whose answer breaks its requirement.
import { expect, needs, requirement, test, type Region } from '../../fixtures/index.ts';
import { sampleErrorResponses } from '../../fixtures/support/token-errors/error-conditions.ts';

const regions: Region[] = ['us', 'eu'];

/** Spec §2.3, plus unsupported_grant_type (§7.1 leaves the mapping to RFC 6749 §5.2). */
const errorCodes = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'invalid_scope',
  'unsupported_grant_type',
];

/** RFC 6749 §5.2: error_description is %x20-21 / %x23-5B / %x5D-7E. */
const descriptionChars = /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/;
/** RFC 6749 §5.2: error_uri is %x21 / %x23-5B / %x5D-7E, and an absolute URI starts with its scheme (RFC 3986 §4.3). */
const uriChars = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
const absoluteUriStart = /^[A-Za-z][A-Za-z0-9+.-]*:/;

const isJsonObject = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);

test.describe('token endpoint: error responses', () => {
  for (const region of regions) {
    const R = region.toUpperCase();

    test(
      `ERR-TOK-001 at ${R} every token-endpoint error response is application/json with a JSON object whose error is a catalogued code`,
      requirement('ERR-TOK-001', needs(region)),
      async ({ tokenClient, rawHttp, target, redactor }) => {
        for (const { label, res } of await sampleErrorResponses(region, { tokenClient, rawHttp, target, redactor })) {
          expect.soft(res.mediaType, `${label}: Content-Type — got ${res.describe()}`).toBe('application/json');
          expect.soft(isJsonObject(res.json), `${label}: the body is a JSON object — got ${res.describe()}`).toBe(true);
          expect
            .soft(errorCodes, `${label}: error is one of ${errorCodes.join(', ')} — got ${res.describe()}`)
            .toContain(res.body.error);
        }
      },
    );

    test(
      `ERR-TOK-002 at ${R} every token-endpoint error response other than invalid_client has status 400`,
      requirement('ERR-TOK-002', needs(region)),
      async ({ tokenClient, rawHttp, target, redactor }) => {
        for (const { label, res } of await sampleErrorResponses(region, { tokenClient, rawHttp, target, redactor })) {
          if (res.error === 'invalid_client') continue;
          expect
            .soft(res.status, `${label}: status of a ${res.error ?? 'token'} error — got ${res.describe()}`)
            .toBe(400);
        }
      },
    );

    test(
      `ERR-TOK-003 at ${R} the error_description of every token-endpoint error uses only RFC 6749 characters and its error_uri is an absolute URI`,
      requirement('ERR-TOK-003', needs(region)),
      async ({ tokenClient, rawHttp, target, redactor }) => {
        for (const { label, res } of await sampleErrorResponses(region, { tokenClient, rawHttp, target, redactor })) {
          const description = res.body.error_description;
          if (description !== undefined) {
            expect
              .soft(
                typeof description === 'string' && descriptionChars.test(description),
                `${label}: error_description uses only %x20-21 / %x23-5B / %x5D-7E — got ${res.describe()}`,
              )
              .toBe(true);
          }
          const uri = res.body.error_uri;
          if (uri !== undefined) {
            const absolute =
              typeof uri === 'string' && uriChars.test(uri) && absoluteUriStart.test(uri) && URL.canParse(uri);
            expect.soft(absolute, `${label}: error_uri is an absolute URI — got ${res.describe()}`).toBe(true);
          }
        }
      },
    );

    test(
      `ERR-TOK-005 at ${R} no token-endpoint error response contains an access_token or refresh_token member`,
      requirement('ERR-TOK-005', needs(region)),
      async ({ tokenClient, rawHttp, target, redactor }) => {
        for (const { label, res } of await sampleErrorResponses(region, { tokenClient, rawHttp, target, redactor })) {
          for (const member of ['access_token', 'refresh_token']) {
            expect
              .soft(
                Object.hasOwn(res.body, member),
                `${label}: the error response has no ${member} member — got ${res.describe()}`,
              )
              .toBe(false);
          }
        }
      },
    );

    test(
      `ERR-TOK-006 at ${R} every token-endpoint error response carries a non-empty error_description`,
      requirement('ERR-TOK-006', needs(region)),
      async ({ tokenClient, rawHttp, target, redactor }) => {
        for (const { label, res } of await sampleErrorResponses(region, { tokenClient, rawHttp, target, redactor })) {
          expect
            .soft(
              (res.errorDescription ?? '').trim().length,
              `${label}: a non-empty error_description — got ${res.describe()}`,
            )
            .toBeGreaterThan(0);
        }
      },
    );

    test(
      `ERR-TOK-008 at ${R} no token-endpoint error response echoes the client_secret, password or refresh_token the request carried`,
      requirement('ERR-TOK-008', needs(region)),
      async ({ tokenClient, rawHttp, target, redactor }) => {
        for (const { label, carried, res } of await sampleErrorResponses(region, {
          tokenClient,
          rawHttp,
          target,
          redactor,
        })) {
          const answer = [res.text, ...Object.values(res.headers)].join('\n');
          for (const { what, value } of carried) {
            // The value as sent, form-encoded, URI-encoded and JSON-escaped.
            const forms = new Set([
              value,
              new URLSearchParams({ v: value }).toString().slice(2),
              encodeURIComponent(value),
              JSON.stringify(value).slice(1, -1),
            ]);
            const echoed = [...forms].some((f) => answer.includes(f));
            // The message never shows the value: the description is redacted, and the value is named by its field.
            expect
              .soft(echoed, `${label}: the answer echoes the ${what} the request carried — got ${res.describe()}`)
              .toBe(false);
          }
        }
      },
    );
  }
});
