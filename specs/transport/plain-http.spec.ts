// SEC-TLS-002: the target's plain-HTTP address (profile plainHttpUrl) yields neither a token nor
// resource data, and does not serve the token endpoint or the gateway at all. Credentials never
// travel over plain HTTP to a target that is not a local throw-away (the sender refuses): such a
// target is sent made-up credentials. Those cannot yield a token, so the requirement's judge
// (judges/transport-judges.ts) also looks at what the answer is: a redirect, or a refusal that
// carries neither an OAuth token error nor a gateway code passes; an OAuth error (`invalid_client`
// for the made-up client) or a gateway code (000-1202 for the made-up token) shows the address
// evaluated the request over plain HTTP, and fails. A refused connection passes too: it leaves no
// exchange to judge, so that half is the check's (the judge's activeHalf). A target the profile
// marks `local` whose own addresses are plain http has no TLS in its setup: there the requirement
// is NOT_APPLICABLE naming `local`.
import {
  asClientCredentialsResponse,
  expect,
  requirement,
  test,
  type Region,
  type Target,
  type TokenClient,
} from '../../fixtures/index.ts';
import { notApplicableWhenLocalPlainHttp } from '../../fixtures/support/transport/local-plain-http.ts';
import { asPlainApiAnswer, plainSend } from '../../fixtures/support/transport/plain-send.ts';
import { tokenPaths } from '../../schemas/token-paths.ts';

/** Real credentials for a local target, made-up ones otherwise (see the file comment). */
function credentialsFor(
  target: Target,
  tokenClient: TokenClient,
  region: Region,
): { clientId: string; clientSecret: string } {
  return target.local
    ? tokenClient.credentials(region === 'us' ? 'usClient' : 'euClient')
    : { clientId: 'conformance-plain-http-probe', clientSecret: 'not-a-secret' };
}

async function accessTokenFor(target: Target, tokenClient: TokenClient): Promise<string> {
  return target.local
    ? (await tokenClient.obtain.clientCredentials({ client: 'usClient' })).access_token
    : 'conformance-plain-http-probe-token';
}

const plainUrl = (target: Target, path: string) => target.profile.plainHttpUrl!.replace(/\/+$/, '') + path;

test.describe('transport: plain HTTP', () => {
  for (const [region, path] of Object.entries(tokenPaths) as [Region, string][]) {
    test(
      `SEC-TLS-002 a client_credentials request to the ${region.toUpperCase()} token path at the plain-HTTP address yields no token`,
      requirement('SEC-TLS-002'),
      async ({ target, tokenClient, rawHttp, redactor }, testInfo) => {
        const address = target.authUrl(region);
        if (address)
          notApplicableWhenLocalPlainHttp(target, testInfo, `the ${region.toUpperCase()} token server`, address);
        expect(new URL(target.profile.plainHttpUrl!).protocol, 'setup: plainHttpUrl is an http:// address').toBe(
          'http:',
        );
        const client = credentialsFor(target, tokenClient, region);
        const out = await plainSend(rawHttp, {
          method: 'POST',
          url: plainUrl(target, path),
          headers: [
            ['content-type', 'application/x-www-form-urlencoded'],
            ['accept', 'application/json'],
          ],
          body: rawHttp.form([
            ['grant_type', 'client_credentials'],
            ['client_id', client.clientId],
            ['client_secret', client.clientSecret],
          ]),
        });
        if (out.answer === undefined) return; // no connection (the judge's active half): nothing was issued
        await expect(asClientCredentialsResponse(out.answer, redactor, region, target)).toSatisfy('SEC-TLS-002');
      },
    );
  }

  test(
    'SEC-TLS-002 a protected call to the plain-HTTP address yields no resource data',
    requirement('SEC-TLS-002'),
    async ({ target, tokenClient, rawHttp, redactor }, testInfo) => {
      if (target.profile.baseUrl)
        notApplicableWhenLocalPlainHttp(target, testInfo, 'the protected API', target.profile.baseUrl);
      const token = await accessTokenFor(target, tokenClient);
      const id = encodeURIComponent(target.profile.resources.people?.existing ?? 'conformance');
      const out = await plainSend(rawHttp, {
        method: 'GET',
        url: plainUrl(target, `/v1/people/er/${id}`),
        headers: [
          ['authorization', `Bearer ${token}`],
          ['accept', 'application/json'],
        ],
      });
      if (out.answer === undefined) return; // no connection (the judge's active half): no resource data
      await expect(asPlainApiAnswer(out.answer, redactor, target)).toSatisfy('SEC-TLS-002');
    },
  );
});
