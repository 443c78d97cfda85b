// The token endpoints take POST only (spec §4). A GET carries the client_credentials fields in its
// query string, so that a server which treated GET like POST would issue a token.
import { choiceLabel, expect, judgedOn, needs, requirement, test, type Region } from '../../fixtures/index.ts';
import { asClientCredentialsResponse } from '../../fixtures/support/token-requests/raw-response.ts';

const regions: Region[] = ['us', 'eu'];

test.describe('token endpoint: HTTP method', () => {
  for (const region of regions) {
    const R = region.toUpperCase();
    test(
      `TOKEN-REQ-001 a GET to the ${R} token endpoint issues no token and is refused as the target declares (OI-12)`,
      requirement('TOKEN-REQ-001', needs(region)),
      async ({ rawHttp, tokenClient, target, redactor }) => {
        const client = tokenClient.credentials(region === 'eu' ? 'euClient' : 'usClient');
        const query = rawHttp.form([
          ['grant_type', 'client_credentials'],
          ['client_id', client.clientId],
          ['client_secret', client.clientSecret],
        ]);
        const res = asClientCredentialsResponse(
          await rawHttp.send({
            method: 'GET',
            url: `${rawHttp.tokenUrl(region)}?${query}`,
            headers: [['accept', 'application/json']],
          }),
          redactor,
          region,
          target,
        );

        // No token, and a refusal (4xx): so every reading of OI-12 says; the judge decides it.
        await expect(res).toSatisfy('TOKEN-REQ-001');

        // How it is refused is the target's choice (OI-12): judged as declared, or WARN if assumed.
        const declared = target.choice('nonPostTokenRequest');
        const label = choiceLabel(declared);
        await judgedOn(declared, async () => {
          switch (declared.value) {
            case '405':
              expect(res.status, `${label}: status — got ${res.describe()}`).toBe(405);
              // RFC 9110 §15.5.6: a 405 response carries Allow, listing the methods the resource takes.
              expect(
                res
                  .header('allow')
                  ?.split(',')
                  .map((m) => m.trim().toUpperCase()) ?? [],
                `${label}: the Allow header lists POST — got Allow: ${res.header('allow') ?? '(none)'}`,
              ).toContain('POST');
              break;
            case 'invalid_request':
              await expect(res, label).toBeTokenError('invalid_request', { status: 400 });
              break;
            case '404':
              expect(res.status, `${label}: status — got ${res.describe()}`).toBe(404);
              break;
            default:
              throw new Error(
                `unknown nonPostTokenRequest value '${String(declared.value)}' (requirements/interpretations.json OI-12)`,
              );
          }
        });
      },
    );
  }
});
