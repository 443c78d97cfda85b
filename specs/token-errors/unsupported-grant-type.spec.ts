// A grant_type the target does not support (RFC 6749 §5.2; spec §7.1): refused with 400 and the
// error the target declares (OI-1). Client_Credentials checks that grant_type values are compared
// case-sensitively.
import { expect, needs, requirement, test, type Region } from '../../fixtures/index.ts';

const regions: Region[] = ['us', 'eu'];
const unsupportedGrants = ['authorization_code', 'urn:example:unknown', 'Client_Credentials'];

test.describe('token endpoint: unsupported grant types', () => {
  for (const region of regions) {
    const R = region.toUpperCase();
    // One check per grant_type: a target that already fails one still shows a new failure in another.
    for (const grantType of unsupportedGrants) {
      test(
        `ERR-TOK-004 at ${R} grant_type=${grantType}, which the target does not support, is refused with 400 and the declared error (OI-1)`,
        requirement('ERR-TOK-004', needs(region)),
        async ({ tokenClient }) => {
          const res = await tokenClient.clientCredentials({ region, override: { grant_type: grantType } });
          await expect(res, `grant_type=${grantType}: refused with 400 and either error of OI-1`).toBeTokenError(
            ['unsupported_grant_type', 'invalid_request'],
            { status: 400 },
          );
          // Which of the two is the target's choice (OI-1): the judge decides it, WARN if assumed.
          await expect(res, `grant_type=${grantType}`).toSatisfy('ERR-TOK-004');
        },
      );
    }
  }
});
