// Client authentication by HTTP Basic at the token endpoints (RFC 6749 §2.3.1): the client_id and
// client_secret each form-encoded, joined by a colon, then base64.
//   AUTH-CLI-002  Basic alone authenticates the client (a SHOULD: sent whatever the profile
//                 declares, so a target without Basic gets WARN);
//   AUTH-CLI-003  a wrong secret by Basic gets 401 invalid_client with a Basic challenge;
//   AUTH-CLI-006  Basic together with a client_secret form field is invalid_request.
import { expect, needs, requirement, test, type Region } from '../../fixtures/index.ts';

const regions: Region[] = ['us', 'eu'];
const clientOf = (region: Region) => (region === 'eu' ? 'euClient' : 'usClient');

test.describe('client authentication: HTTP Basic', () => {
  for (const region of regions) {
    const R = region.toUpperCase();

    test(
      `AUTH-CLI-002 at ${R} client_id and client_secret sent by HTTP Basic, with no client_secret in the body, authenticate the client`,
      requirement('AUTH-CLI-002', needs(region)),
      async ({ tokenClient, rawHttp, control }) => {
        const client = tokenClient.credentials(clientOf(region));
        control.issued(await tokenClient.clientCredentials({ region, client: clientOf(region) }), {
          what: 'the same request with the credentials as form fields',
          region,
        });
        // Sent by hand, not with auth: 'basic', so that a target without Basic is judged (WARN), not skipped.
        const res = await tokenClient.post(region, [['grant_type', 'client_credentials']], {
          auth: 'none',
          headers: [['authorization', rawHttp.basic(client.clientId, client.clientSecret)]],
          label: `client_credentials at ${R} with HTTP Basic`,
        });
        await expect(res, 'client authenticated by HTTP Basic only').toBeTokenIssued();
      },
    );

    test(
      `AUTH-CLI-003 at ${R} a wrong client_secret sent by HTTP Basic is refused with 401 invalid_client and a Basic challenge`,
      requirement('AUTH-CLI-003', needs(region)),
      async ({ tokenClient }) => {
        const client = tokenClient.credentials(clientOf(region));
        const res = await tokenClient.clientCredentials({
          region,
          auth: 'basic',
          client: { clientId: client.clientId, clientSecret: `${client.clientSecret}-wrong` },
        });
        await expect(res, 'wrong client_secret by HTTP Basic').toSatisfy('AUTH-CLI-003');
      },
    );

    test(
      `AUTH-CLI-006 at ${R} a token request authenticating the client by HTTP Basic and by a client_secret form field is refused with 400 invalid_request`,
      requirement('AUTH-CLI-006', needs(region)),
      async ({ tokenClient }) => {
        const client = tokenClient.credentials(clientOf(region));
        // Both methods carry the right credentials: the only fault is using two methods.
        const res = await tokenClient.post(
          region,
          [
            ['grant_type', 'client_credentials'],
            ['client_id', client.clientId],
            ['client_secret', client.clientSecret],
          ],
          {
            auth: 'basic',
            client,
            label: `client_credentials at ${R} with Basic and form credentials`,
          },
        );
        await expect(res, 'HTTP Basic and a client_secret form field').toSatisfy('AUTH-CLI-006');
      },
    );
  }
});
