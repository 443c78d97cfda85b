// One client never speaks for another (RFC 6749 §2.3.1, §3.2.1): a token request is served as the
// client the server authenticated, whatever else the request names.
//   AUTH-CLI-012  HTTP Basic authenticates one client and the body's client_id names another: refused
//                 with the declared error (OI-32), on every grant at both endpoints; no token for either;
//   AUTH-CLI-013  a client_id with the secret of another client (form fields; HTTP Basic alone; HTTP
//                 Basic beside a body client_id naming the secret's owner): invalid_client, no token.
// A server that authenticates one client and then reads the other from the body (OAuthLib
// CVE-2026-118669, GHSA-7984-qgvg-3j9c) serves the request as a client whose secret it never saw.
// Each variant is sent only after each of its clients got a token by itself (the control): a refusal
// that any request of such a client would get says nothing about the variant.
import {
  choiceLabel,
  expect,
  judgedOn,
  needs,
  requirement,
  test,
  type Region,
  type Target,
  type TokenClient,
  type TokenResponse,
} from '../../fixtures/index.ts';

type ClientName = Extract<Parameters<TokenClient['credentials']>[0], string>;
type Grant = 'client_credentials' | 'password' | 'refresh_token';

/** The control fixture, as far as these checks use it. */
interface Control {
  issued(res: TokenResponse, options: { what: string; grant?: Grant; region?: Region; by?: string }): void;
}

/**
 * The control of a client the variant authenticates by HTTP Basic: its plain request as form fields
 * (a refusal is the grant's), then by HTTP Basic (a refusal is then Basic's, AUTH-CLI-002). Returns
 * the form-field answer.
 */
async function controlFormThenBasic(
  control: Control,
  send: (auth: 'form' | 'basic') => Promise<TokenResponse>,
  what: string,
  grant: Grant,
  region: Region = 'us',
): Promise<TokenResponse> {
  const form = await send('form');
  control.issued(form, { what: `${what}, as form fields`, grant, region });
  control.issued(await send('basic'), { what: `${what}, by HTTP Basic`, grant, region, by: 'AUTH-CLI-002' });
  return form;
}

/** No token for either client, whatever the error. */
function expectNoToken(res: TokenResponse, what: string): void {
  expect(res.accessToken, `${what}: no access_token for either client — got ${res.describe()}`).toBeUndefined();
  expect(res.refreshToken, `${what}: no refresh_token for either client — got ${res.describe()}`).toBeUndefined();
}

/**
 * The answer to a body client_id that names another client than HTTP Basic: no token and either
 * error whatever the choice; which error (OI-32) and its status AUTH-CLI-012's judge decides.
 */
async function expectMismatchRefused(res: TokenResponse, what: string): Promise<void> {
  expectNoToken(res, what);
  await expect(res, `${what}: refused with invalid_request or invalid_client`).toBeTokenError([
    'invalid_request',
    'invalid_client',
  ]);
  await expect(res, what).toSatisfy('AUTH-CLI-012');
}

/**
 * The mismatch as AUTH-CLI-013's Basic variant meets it: the declared error (OI-32); invalid_client
 * with 401 (HTTP Basic was used) or the status declared for invalid_client. Judged on the choices
 * for the check it is in (AUTH-CLI-013's), where a failure on an assumed one reads WARN.
 */
async function expectMismatchRefusedAsDeclared(res: TokenResponse, target: Target, what: string): Promise<void> {
  expectNoToken(res, what);
  await expect(res, `${what}: refused with invalid_request or invalid_client`).toBeTokenError([
    'invalid_request',
    'invalid_client',
  ]);
  const declared = target.choice('clientIdMismatchError');
  const status = target.choice('invalidClientStatus');
  const statuses = declared.value === 'invalid_client' ? [...new Set([401, status.value])] : [400];
  await judgedOn(declared.value === 'invalid_client' ? [declared, status] : [declared], () =>
    expect(res, `${what} (${choiceLabel(declared)})`).toBeTokenError(declared.value, { status: statuses }),
  );
}

test.describe('client identity: one client never speaks for another', () => {
  /** client_credentials at `region` as a client (by HTTP Basic or its form fields), with form fields added. */
  const clientCredentialsAt =
    (tokenClient: TokenClient, region: Region) =>
    (client: ClientName, auth: 'basic' | 'form', extra?: Record<string, string>) =>
      tokenClient.clientCredentials({ region, client, auth, ...(extra && { extra }) });

  // client_credentials at both endpoints: the EU endpoint has one client of its own, so the body
  // names a US client there (a server that serves it is wrong whether it then issues or refuses).
  const ccCases: { region: Region; basic: ClientName; body: ClientName; bodyRegion: Region }[] = [
    { region: 'us', basic: 'usClient', body: 'usCcOnlyClient', bodyRegion: 'us' },
    { region: 'eu', basic: 'euClient', body: 'usClient', bodyRegion: 'us' },
  ];
  for (const c of ccCases) {
    const R = c.region.toUpperCase();
    test(
      `AUTH-CLI-012 at ${R} a client_credentials request authenticated by HTTP Basic with a body client_id naming another client is refused with the declared error (OI-32) and issues no token`,
      requirement('AUTH-CLI-012', needs(c.region, c.bodyRegion, `client:${c.basic}`, `client:${c.body}`)),
      async ({ tokenClient, control }) => {
        const send = clientCredentialsAt(tokenClient, c.region);
        await controlFormThenBasic(
          control,
          (auth) => send(c.basic, auth),
          `client_credentials at ${R} by ${c.basic} alone`,
          'client_credentials',
          c.region,
        );
        control.issued(await tokenClient.clientCredentials({ region: c.bodyRegion, client: c.body }), {
          what: `client_credentials at ${c.bodyRegion.toUpperCase()} by ${c.body} alone`,
          region: c.bodyRegion,
        });
        const other = tokenClient.credentials(c.body);
        const res = await send(c.basic, 'basic', { client_id: other.clientId });
        await expectMismatchRefused(res, `HTTP Basic as ${c.basic}, body client_id of ${c.body}`);
      },
    );
  }

  test(
    'AUTH-CLI-012 a password request authenticated by HTTP Basic with a body client_id naming another password client is refused with the declared error (OI-32) and issues no token',
    requirement('AUTH-CLI-012', needs('us', 'client:usPasswordClient', 'client:usClient2', 'user:user')),
    async ({ tokenClient, control }) => {
      await controlFormThenBasic(
        control,
        (auth) => tokenClient.password({ client: 'usPasswordClient', auth }),
        'the password grant by usPasswordClient alone',
        'password',
      );
      control.issued(await tokenClient.password({ client: 'usClient2' }), {
        what: 'the password grant by usClient2 alone',
        grant: 'password',
      });
      const res = await tokenClient.password({
        client: 'usPasswordClient',
        auth: 'basic',
        extra: { client_id: tokenClient.credentials('usClient2').clientId },
      });
      await expectMismatchRefused(res, 'HTTP Basic as usPasswordClient, body client_id of usClient2');
    },
  );

  test(
    "AUTH-CLI-012 a refresh_token request authenticated by HTTP Basic as another client, with a body client_id naming the refresh token's own client, is refused with the declared error (OI-32) and issues no token",
    requirement('AUTH-CLI-012', needs('us', 'client:usPasswordClient', 'client:usClient2', 'user:user')),
    async ({ tokenClient, control }) => {
      const issued = await tokenClient.password({ client: 'usPasswordClient' });
      control.issued(issued, { what: 'the password grant by usPasswordClient alone', grant: 'password' });
      expect(
        issued.refreshToken,
        `setup: the password grant issues a refresh_token — got ${issued.describe()}`,
      ).toEqual(expect.any(String));
      // The plain refresh by the token's own client, then the variant with the token it returned.
      const refreshed = await tokenClient.refresh(issued.refreshToken!, { client: 'usPasswordClient' });
      control.issued(refreshed, {
        what: 'the refresh by usPasswordClient, the refresh token its own',
        grant: 'refresh_token',
      });
      await controlFormThenBasic(
        control,
        (auth) => tokenClient.password({ client: 'usClient2', auth }),
        'the password grant by usClient2 alone',
        'password',
      );
      const res = await tokenClient.refresh(refreshed.refreshToken ?? issued.refreshToken!, {
        client: 'usClient2',
        auth: 'basic',
        extra: { client_id: tokenClient.credentials('usPasswordClient').clientId },
      });
      await expectMismatchRefused(
        res,
        "HTTP Basic as usClient2, body client_id of usPasswordClient (the refresh token's client)",
      );
    },
  );

  // AUTH-CLI-013: usClient's secret presented for usCcOnlyClient. A server that finds the client by
  // its secret, or verifies the secret against one client and serves another, issues a token.
  test(
    "AUTH-CLI-013 a client_id sent as a form field with another client's client_secret is refused with invalid_client and the declared status (OI-2) and issues no token",
    requirement('AUTH-CLI-013', needs('us', 'client:usClient', 'client:usCcOnlyClient')),
    async ({ tokenClient, control }) => {
      const owner = tokenClient.credentials('usClient');
      const named = tokenClient.credentials('usCcOnlyClient');
      const ownersOwn = await tokenClient.clientCredentials({ client: 'usClient' });
      control.issued(ownersOwn, { what: 'usClient alone' });
      const namedOwn = await tokenClient.clientCredentials({ client: 'usCcOnlyClient' });
      control.issued(namedOwn, { what: 'usCcOnlyClient alone' });
      const what = "client_id of usCcOnlyClient with usClient's client_secret, as form fields";
      const res = await tokenClient.clientCredentials({
        client: { clientId: named.clientId, clientSecret: owner.clientSecret },
      });
      // No token and invalid_client whatever the choice; the status (OI-2) the judge decides, WARN if assumed.
      expectNoToken(res, what);
      await expect(res, what).toBeTokenError('invalid_client');
      await expect([ownersOwn, namedOwn, res], what).toSatisfy('AUTH-CLI-013');
    },
  );

  test(
    "AUTH-CLI-013 HTTP Basic with a client's id and another client's secret, alone and beside a body client_id naming the secret's owner, is refused (invalid_client with 401) and issues no token",
    requirement('AUTH-CLI-013', needs('us', 'http-basic', 'client:usClient', 'client:usCcOnlyClient')),
    async ({ tokenClient, target, control }) => {
      const owner = tokenClient.credentials('usClient');
      const named = tokenClient.credentials('usCcOnlyClient');
      const ownersOwn = await tokenClient.clientCredentials({ client: 'usClient' });
      control.issued(ownersOwn, { what: 'usClient alone' });
      const namedOwn = await controlFormThenBasic(
        control,
        (auth) => tokenClient.clientCredentials({ client: 'usCcOnlyClient', auth }),
        'usCcOnlyClient alone',
        'client_credentials',
      );
      const crossed = { clientId: named.clientId, clientSecret: owner.clientSecret };

      await test.step('HTTP Basic alone', async () => {
        const what = "HTTP Basic with usCcOnlyClient's id and usClient's secret";
        const res = await tokenClient.clientCredentials({ client: crossed, auth: 'basic' });
        // A 401 by HTTP Basic is no choice: asserted before the judge, whose OI-2 reading would make it WARN.
        expectNoToken(res, what);
        await expect(res, what).toBeTokenError('invalid_client', { status: 401 });
        await expect([ownersOwn, namedOwn, res], what).toSatisfy('AUTH-CLI-013');
      });

      await test.step("beside a body client_id naming the secret's owner", async () => {
        const what = "HTTP Basic with usCcOnlyClient's id and usClient's secret, body client_id of usClient";
        const res = await tokenClient.clientCredentials({
          client: crossed,
          auth: 'basic',
          extra: { client_id: owner.clientId },
        });
        expectNoToken(res, what);
        // Also a mismatch (AUTH-CLI-012), and RFC 6749 orders no errors: the mismatch's declared
        // error is as right as the failed authentication's.
        if (res.error === 'invalid_client' && target.choice('clientIdMismatchError').value !== 'invalid_client')
          await expect(res, `${what}: a failed HTTP Basic authentication`).toBeTokenError('invalid_client', {
            status: 401,
          });
        else await expectMismatchRefusedAsDeclared(res, target, what);
      });
    },
  );
});
