// The media type of a token request body (spec §4: application/x-www-form-urlencoded).
//   TOKEN-REQ-002  a charset parameter on the form media type changes nothing;
//   TOKEN-REQ-003  the same fields as a JSON body issue no token and are refused as declared (OI-5).
import {
  choiceLabel,
  expect,
  judgedOn,
  needs,
  requirement,
  test,
  type TokenResponse,
  type Region,
} from '../../fixtures/index.ts';
import {
  asClientCredentialsResponse,
  asGatewayResponse,
  formContentType,
} from '../../fixtures/support/token-requests/raw-response.ts';

const regions: Region[] = ['us', 'eu'];
const clientOf = (region: Region) => (region === 'eu' ? 'euClient' : 'usClient');

/** What "processed the same way" compares: the outcome, and the shape of what came back. */
function outcome(res: TokenResponse): Record<string, unknown> {
  return {
    status: res.status,
    mediaType: res.mediaType,
    members: Object.keys(res.body).sort(),
    error: res.error,
    token_type: res.body.token_type,
    scope: res.body.scope,
    issuesToken: res.accessToken !== undefined,
  };
}

test.describe('token endpoint: media type of the request', () => {
  for (const region of regions) {
    const R = region.toUpperCase();

    test(
      `TOKEN-REQ-002 at ${R} a form sent as application/x-www-form-urlencoded;charset=UTF-8 is processed like one without the charset`,
      requirement('TOKEN-REQ-002', needs(region)),
      async ({ rawHttp, tokenClient, redactor, control }) => {
        const client = tokenClient.credentials(clientOf(region));
        const cases: { label: string; fields: [string, string][]; succeeds: boolean }[] = [
          {
            label: 'a valid client_credentials request',
            succeeds: true,
            fields: [
              ['grant_type', 'client_credentials'],
              ['client_id', client.clientId],
              ['client_secret', client.clientSecret],
            ],
          },
          {
            label: 'a request without grant_type',
            succeeds: false,
            fields: [
              ['client_id', client.clientId],
              ['client_secret', client.clientSecret],
            ],
          },
        ];
        const send = async (fields: [string, string][], contentType: string) =>
          asClientCredentialsResponse(
            await rawHttp.send({
              url: rawHttp.tokenUrl(region),
              headers: [
                ['content-type', contentType],
                ['accept', 'application/json'],
              ],
              body: rawHttp.form(fields),
            }),
            redactor,
            region,
          );

        for (const c of cases) {
          await test.step(c.label, async () => {
            const plain = await send(c.fields, formContentType);
            if (c.succeeds) control.issued(plain, { what: `${c.label} without the charset`, region });
            else
              control.answered(!plain.ok, plain.describe(), {
                what: `${c.label} without the charset (no token)`,
                by: 'TOKEN-REQ-009',
              });
            const withCharset = await send(c.fields, `${formContentType};charset=UTF-8`);
            expect(
              outcome(withCharset),
              `${c.label}: with ;charset=UTF-8 — got ${withCharset.describe()}; without the charset — got ${plain.describe()}`,
            ).toEqual(outcome(plain));
          });
        }
      },
    );

    test(
      `TOKEN-REQ-003 at ${R} a token request with a JSON body issues no token and is refused as the target declares (OI-5)`,
      requirement('TOKEN-REQ-003', needs(region)),
      async ({ rawHttp, tokenClient, target, redactor }) => {
        const client = tokenClient.credentials(clientOf(region));
        const data = await rawHttp.send({
          url: rawHttp.tokenUrl(region),
          headers: [
            ['content-type', 'application/json'],
            ['accept', 'application/json'],
          ],
          body: JSON.stringify({
            grant_type: 'client_credentials',
            client_id: client.clientId,
            client_secret: client.clientSecret,
          }),
        });
        const res = asClientCredentialsResponse(data, redactor, region, target);
        // No token, and a refusal (4xx): so every reading of OI-5 says; the judge decides it.
        await expect(res).toSatisfy('TOKEN-REQ-003');

        // How it is refused is the target's choice (OI-5): judged as declared, or WARN if assumed.
        const declared = target.choice('nonFormTokenRequest');
        await judgedOn(declared, async () => {
          switch (declared.value) {
            case 'invalid_request':
              await expect(res, choiceLabel(declared)).toBeTokenError('invalid_request', { status: 400 });
              break;
            case '415-000-1005':
              await expect(asGatewayResponse(data, redactor, target), choiceLabel(declared)).toBeGatewayError(
                '000-1005',
                { status: 415 },
              );
              break;
            default:
              throw new Error(
                `unknown nonFormTokenRequest value '${String(declared.value)}' (requirements/interpretations.json OI-5)`,
              );
          }
        });
      },
    );
  }
});
