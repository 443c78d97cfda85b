// The form parameters of a token request (spec §2.1; RFC 6749 §3.2, App. B).
//   TOKEN-REQ-005  a repeated parameter is refused with invalid_request, even with the same value;
//   TOKEN-REQ-006  an empty grant_type counts as absent;
//   TOKEN-REQ-007  an unknown parameter is ignored;
//   TOKEN-REQ-009  a missing grant_type is refused with invalid_request;
//   TOKEN-REQ-012  percent-escaped ordinary characters are decoded.
import { expect, needs, requirement, test, type TokenResponse, type Region } from '../../fixtures/index.ts';
import {
  asClientCredentialsResponse,
  asTokenResponse,
  formContentType,
} from '../../fixtures/support/token-requests/raw-response.ts';

const regions: Region[] = ['us', 'eu'];
const clientOf = (region: Region) => (region === 'eu' ? 'euClient' : 'usClient');
const formHeaders: [string, string][] = [
  ['content-type', formContentType],
  ['accept', 'application/json'],
];

/** What "as if the parameter were absent" compares between two successful responses. */
function successShape(res: TokenResponse): Record<string, unknown> {
  return {
    status: res.status,
    mediaType: res.mediaType,
    members: Object.keys(res.body).sort(),
    token_type: res.body.token_type,
    scope: res.body.scope,
  };
}

test.describe('token request: form parameters', () => {
  for (const region of regions) {
    const R = region.toUpperCase();

    // One check per case: a target that already fails one still shows a new failure in another.
    const repeated: {
      label: string;
      fields: (client: { clientId: string; clientSecret: string }) => [string, string][];
    }[] = [
      {
        label: 'grant_type twice with the same value',
        fields: (c) => [
          ['grant_type', 'client_credentials'],
          ['grant_type', 'client_credentials'],
          ['client_id', c.clientId],
          ['client_secret', c.clientSecret],
        ],
      },
      {
        label: 'client_id twice with the same value',
        fields: (c) => [
          ['grant_type', 'client_credentials'],
          ['client_id', c.clientId],
          ['client_id', c.clientId],
          ['client_secret', c.clientSecret],
        ],
      },
      {
        label: 'client_id twice, the second an unknown id',
        fields: (c) => [
          ['grant_type', 'client_credentials'],
          ['client_id', c.clientId],
          ['client_id', `unknown-${c.clientId}-x7q`],
          ['client_secret', c.clientSecret],
        ],
      },
    ];
    for (const c of repeated) {
      test(
        `TOKEN-REQ-005 at ${R} a client_credentials request with ${c.label} is refused with 400 invalid_request`,
        requirement('TOKEN-REQ-005', needs(region)),
        async ({ rawHttp, tokenClient, redactor, target }) => {
          const fields = c.fields(tokenClient.credentials(clientOf(region)));
          const res = asClientCredentialsResponse(
            await rawHttp.send({ url: rawHttp.tokenUrl(region), headers: formHeaders, body: rawHttp.form(fields) }),
            redactor,
            region,
            target,
          );
          await expect(res, c.label).toSatisfy('TOKEN-REQ-005');
        },
      );
    }

    test(
      `TOKEN-REQ-006 at ${R} a token request with an empty grant_type is refused with 400 invalid_request`,
      requirement('TOKEN-REQ-006', needs(region)),
      async ({ tokenClient }) => {
        const res = await tokenClient.clientCredentials({ region, override: { grant_type: '' } });
        await expect(res, 'grant_type= (empty)').toSatisfy('TOKEN-REQ-006');
      },
    );

    test(
      `TOKEN-REQ-007 at ${R} a client_credentials request with the unknown parameter foo=bar succeeds as if it were absent`,
      requirement('TOKEN-REQ-007', needs(region)),
      async ({ tokenClient, control }) => {
        const without = await tokenClient.clientCredentials({ region });
        control.issued(without, { what: 'the same request without foo=bar', region });
        const withFoo = await tokenClient.clientCredentials({ region, extra: { foo: 'bar' } });
        await expect(withFoo, 'with foo=bar').toBeTokenIssued();
        expect(
          successShape(withFoo),
          `with foo=bar the response is shaped as without it — with: ${withFoo.describe()}; without: ${without.describe()}`,
        ).toEqual(successShape(without));
      },
    );

    test(
      `TOKEN-REQ-009 at ${R} a token request without grant_type is refused with 400 invalid_request`,
      requirement('TOKEN-REQ-009', needs(region)),
      async ({ tokenClient }) => {
        const res = await tokenClient.clientCredentials({ region, omit: ['grant_type'] });
        await expect(res, 'no grant_type').toSatisfy('TOKEN-REQ-009');
      },
    );

    // One check per case: a target that already fails one still shows a new failure in another.
    const escapes: { field: 'client_id' | 'grant_type'; hexCase: 'upper' | 'lower' }[] = [
      { field: 'client_id', hexCase: 'upper' },
      { field: 'client_id', hexCase: 'lower' },
      { field: 'grant_type', hexCase: 'upper' },
    ];
    for (const c of escapes) {
      test(
        `TOKEN-REQ-012 at ${R} ${c.field} with a letter written as a %XX escape (${c.hexCase}-case hex digits) is decoded and the request succeeds`,
        requirement('TOKEN-REQ-012', needs(region)),
        async ({ rawHttp, tokenClient, redactor, control }) => {
          const client = tokenClient.credentials(clientOf(region));
          control.issued(await tokenClient.clientCredentials({ region, client: clientOf(region) }), {
            what: `the same request with ${c.field} unescaped`,
            region,
          });
          const encode = (s: string) => rawHttp.form([['v', s]]).slice(2);
          /** The form encoding of `value` with its first letter written as %XX (hex digits in the given case). */
          const escapeFirstLetter = (value: string, hexCase: 'upper' | 'lower') => {
            const at = value.search(/[A-Za-z]/);
            const hex = value.charCodeAt(at).toString(16).padStart(2, '0');
            return {
              escaped:
                encode(value.slice(0, at)) +
                `%${hexCase === 'upper' ? hex.toUpperCase() : hex.toLowerCase()}` +
                encode(value.slice(at + 1)),
              letter: value[at],
            };
          };
          const value = c.field === 'client_id' ? client.clientId : 'client_credentials';
          expect(value, `setup: the profile's ${clientOf(region)} client_id has a letter to escape`).toMatch(
            /[A-Za-z]/,
          );
          const secret = rawHttp.form([['client_secret', client.clientSecret]]);
          const { escaped, letter } = escapeFirstLetter(value, c.hexCase);
          const body =
            c.field === 'client_id'
              ? `grant_type=client_credentials&client_id=${escaped}&${secret}`
              : `grant_type=${escaped}&client_id=${encode(client.clientId)}&${secret}`;
          const declared = rawHttp.declaredParameters(client.clientId, 'client_credentials');
          const shaped = declared.length === 0 ? body : `${body}&${rawHttp.form(declared)}`;
          const res = asClientCredentialsResponse(
            await rawHttp.send({ url: rawHttp.tokenUrl(region), headers: formHeaders, body: shaped }),
            redactor,
            region,
          );
          await expect(
            res,
            `${c.field} with '${letter}' written as a %XX escape (${c.hexCase}-case hex digits)`,
          ).toBeTokenIssued();
        },
      );
    }
  }

  test(
    'TOKEN-REQ-005 at US a refresh_token request that repeats refresh_token with the same value is refused with 400 invalid_request',
    requirement('TOKEN-REQ-005', needs('us')),
    async ({ rawHttp, tokenClient, redactor, target }) => {
      const issued = await tokenClient.obtain.password();
      expect(issued.refresh_token, 'setup: the password grant returns a refresh_token').toBeTruthy();
      const client = tokenClient.credentials('usPasswordClient');
      const fields: [string, string][] = [
        ['grant_type', 'refresh_token'],
        ['refresh_token', issued.refresh_token!],
        ['refresh_token', issued.refresh_token!],
        ['client_id', client.clientId],
        ['client_secret', client.clientSecret],
      ];
      const res = asTokenResponse(
        await rawHttp.send({ url: rawHttp.tokenUrl('us'), headers: formHeaders, body: rawHttp.form(fields) }),
        redactor,
        'token-response-refresh-token',
        target,
      );
      await expect(res, 'refresh_token twice with the same value').toSatisfy('TOKEN-REQ-005');
    },
  );
});
