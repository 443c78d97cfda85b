// Client authentication by form fields, the spec's method (spec §2.1; RFC 6749 §2.3.1, §5.2).
//   AUTH-CLI-004  a wrong client_secret: invalid_client with the declared status (OI-2);
//   AUTH-CLI-005  an unknown client_id: invalid_client with the declared status (OI-2);
//   AUTH-CLI-007  a missing client_secret, or no client credentials at all, on every grant: no token, 400 and the declared error (OI-13).
import { randomUUID } from 'node:crypto';
import {
  choiceLabel,
  expect,
  judgedOn,
  needs,
  obtainPasswordTokens,
  requirement,
  test,
  type Region,
  type TokenClient,
  type TokenResponse,
} from '../../fixtures/index.ts';

const regions: Region[] = ['us', 'eu'];
const clientOf = (region: Region) => (region === 'eu' ? 'euClient' : 'usClient');

test.describe('client authentication: form fields', () => {
  for (const region of regions) {
    const R = region.toUpperCase();

    test(
      `AUTH-CLI-004 at ${R} a wrong client_secret sent as a form field is refused with invalid_client and the declared status (OI-2)`,
      requirement('AUTH-CLI-004', needs(region)),
      async ({ tokenClient }) => {
        const client = tokenClient.credentials(clientOf(region));
        const res = await tokenClient.clientCredentials({
          region,
          client: { clientId: client.clientId, clientSecret: `${client.clientSecret}-wrong` },
        });
        // Refused with invalid_client whatever the declared status (OI-2); a 401 without a challenge
        // breaks RFC 9110 whatever it too, so it FAILs here before the judge reads the status on the choice.
        await expect(res, 'wrong client_secret').toBeTokenError('invalid_client');
        if (res.status === 401)
          expect(res.header('www-authenticate'), `a 401 carries WWW-Authenticate — got ${res.describe()}`).toBeTruthy();
        await expect(res, 'wrong client_secret').toSatisfy('AUTH-CLI-004');
      },
    );

    test(
      `AUTH-CLI-005 at ${R} an unknown client_id is refused with invalid_client and the declared status (OI-2)`,
      requirement('AUTH-CLI-005', needs(region)),
      async ({ tokenClient, target }) => {
        const status = target.choice('invalidClientStatus');
        const res = await tokenClient.clientCredentials({
          region,
          client: { clientId: `unknown-client-${randomUUID()}`, clientSecret: `unknown-secret-${randomUUID()}` },
        });
        await expect(res, 'unknown client_id').toBeTokenError('invalid_client');
        await judgedOn(status, () =>
          expect(res.status, `unknown client_id (${choiceLabel(status)}) — ${res.describe()}`).toBe(status.value),
        );
      },
    );

    // One check per case: a target that already fails one still shows a new failure in the other.
    const missing: { label: string; fields: (client: { clientId: string }) => [string, string][] }[] = [
      {
        label: 'client_secret omitted',
        fields: (c) => [
          ['grant_type', 'client_credentials'],
          ['client_id', c.clientId],
        ],
      },
      { label: 'client_id and client_secret omitted', fields: () => [['grant_type', 'client_credentials']] },
    ];
    for (const c of missing) {
      test(
        `AUTH-CLI-007 at ${R} a token request with ${c.label} is refused with 400 and the declared error (OI-13)`,
        requirement('AUTH-CLI-007', needs(region)),
        async ({ tokenClient, target }) => {
          const declared = target.choice('missingClientCredentialsError');
          const fields = c.fields(tokenClient.credentials(clientOf(region)));
          const res = await tokenClient.post(region, fields, {
            auth: 'none',
            label: `client_credentials at ${R}, ${c.label}`,
          });
          await expect(res, `${c.label}: refused with 400 and either error of OI-13`).toBeTokenError(
            ['invalid_client', 'invalid_request'],
            { status: 400 },
          );
          await judgedOn(declared, () =>
            expect(res, `${c.label} (${choiceLabel(declared)})`).toBeTokenError(declared.value, { status: 400 }),
          );
        },
      );
    }
  }

  // Every grant, not only client_credentials: a server that authenticates the user (or the refresh
  // token) and forgets the client issues tokens to anyone holding a password or a refresh token.
  const withoutClient: {
    grant: string;
    needs: Parameters<typeof needs>;
    send: (tokenClient: TokenClient) => Promise<TokenResponse>;
  }[] = [
    {
      grant: 'password',
      needs: ['us', 'client:usPasswordClient', 'user:user'],
      send: (tokenClient) => tokenClient.password({ region: 'us', user: 'user', auth: 'none' }),
    },
    {
      grant: 'refresh_token',
      needs: ['us', 'client:usPasswordClient', 'user:user'],
      send: async (tokenClient) =>
        tokenClient.refresh((await obtainPasswordTokens(tokenClient, 'user')).refresh_token, {
          region: 'us',
          auth: 'none',
        }),
    },
  ];
  for (const { grant, needs: grantNeeds, send } of withoutClient) {
    test(
      `AUTH-CLI-007 a ${grant} request with no client authentication at all (no client_id, no client_secret) issues no token and is refused with 400 and the declared error (OI-13)`,
      requirement('AUTH-CLI-007', needs(...grantNeeds)),
      async ({ tokenClient, target }) => {
        const declared = target.choice('missingClientCredentialsError');
        const res = await send(tokenClient);
        expect(
          res.accessToken,
          `a ${grant} grant without client authentication issues no access_token — got ${res.describe()}`,
        ).toBeUndefined();
        expect(
          res.refreshToken,
          `a ${grant} grant without client authentication issues no refresh_token — got ${res.describe()}`,
        ).toBeUndefined();
        await expect(
          res,
          `${grant} without client authentication: refused with 400 and either error of OI-13`,
        ).toBeTokenError(['invalid_client', 'invalid_request'], { status: 400 });
        await judgedOn(declared, () =>
          expect(res, `${grant} without client authentication (${choiceLabel(declared)})`).toBeTokenError(
            declared.value,
            { status: 400 },
          ),
        );
      },
    );
  }
});
