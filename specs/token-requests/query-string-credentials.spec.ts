// Client credentials belong in the body or in HTTP Basic, never in the URI (RFC 6749 §2.3.1, §3.2):
// a token request whose client_id and client_secret are only in the query string issues no token.
import { expect, needs, requirement, test, type Region } from '../../fixtures/index.ts';
import { asClientCredentialsResponse, formContentType } from '../../fixtures/support/token-requests/raw-response.ts';

const regions: Region[] = ['us', 'eu'];

test.describe('token request: client credentials in the query string', () => {
  for (const region of regions) {
    const R = region.toUpperCase();
    test(
      `TOKEN-REQ-008 at ${R} a client_credentials request with client_id and client_secret only in the URL query string issues no token`,
      requirement('TOKEN-REQ-008', needs(region)),
      async ({ rawHttp, tokenClient, redactor, target }) => {
        const client = tokenClient.credentials(region === 'eu' ? 'euClient' : 'usClient');
        const query = rawHttp.form([
          ['client_id', client.clientId],
          ['client_secret', client.clientSecret],
        ]);
        const res = asClientCredentialsResponse(
          await rawHttp.send({
            url: `${rawHttp.tokenUrl(region)}?${query}`,
            headers: [
              ['content-type', formContentType],
              ['accept', 'application/json'],
            ],
            body: rawHttp.form([['grant_type', 'client_credentials']], { clientId: client.clientId }),
          }),
          redactor,
          region,
          target,
        );
        await expect(res, 'credentials only in the query string').toSatisfy('TOKEN-REQ-008');
      },
    );
  }
});
