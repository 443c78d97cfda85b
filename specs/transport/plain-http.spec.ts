// SEC-TLS-002: the target's plain-HTTP address (profile plainHttpUrl) yields neither a token nor
// resource data. A refused connection, a 4xx or a redirect all pass; so does any other answer that
// carries no token and no resource. Credentials never travel over plain HTTP to a target that is
// not a local throw-away (the sender refuses): such a target is sent made-up credentials, which
// still show whether the address serves the token and resource paths at all.
import { expect, requirement, test } from '../../fixtures/index.ts';
import type { RawHttp, Region, Target, TokenClient } from '../../fixtures/index.ts';
import { tokenPaths } from '../../fixtures/target.ts';

interface PlainOutcome {
  status?: number;
  text: string;
  error?: string;
}

async function plainSend(rawHttp: RawHttp, request: Parameters<RawHttp['send']>[0]): Promise<PlainOutcome> {
  try {
    const res = await rawHttp.send(request);
    return { status: res.status, text: res.text };
  } catch (e) {
    // The sender refusing to send credentials over plain HTTP is a defect of this check, not a refusal by the target.
    if (e instanceof Error && e.message.startsWith('refused: credentials')) throw e;
    return { text: '', error: e instanceof Error ? e.message : String(e) };
  }
}

/** Real credentials for a local target, made-up ones otherwise (see the file comment). */
function credentialsFor(target: Target, tokenClient: TokenClient, region: Region): { clientId: string; clientSecret: string } {
  return target.local ? tokenClient.credentials(region === 'us' ? 'usClient' : 'euClient') : { clientId: 'conformance-plain-http-probe', clientSecret: 'not-a-secret' };
}

async function accessTokenFor(target: Target, tokenClient: TokenClient): Promise<string> {
  return target.local ? (await tokenClient.obtain.clientCredentials({ client: 'usClient' })).access_token : 'conformance-plain-http-probe-token';
}

const isSuccess = (status: number) => status >= 200 && status < 300;

const plainUrl = (target: Target, path: string) => target.profile.plainHttpUrl!.replace(/\/+$/, '') + path;

test.describe('transport: plain HTTP', () => {
  for (const [region, path] of Object.entries(tokenPaths) as [Region, string][]) {
    test(`SEC-TLS-002 a client_credentials request to the ${region.toUpperCase()} token path at the plain-HTTP address yields no token`,
      requirement('SEC-TLS-002'),
      async ({ target, tokenClient, rawHttp }) => {
        expect(new URL(target.profile.plainHttpUrl!).protocol, 'setup: plainHttpUrl is an http:// address').toBe('http:');
        const client = credentialsFor(target, tokenClient, region);
        const out = await plainSend(rawHttp, {
          method: 'POST',
          url: plainUrl(target, path),
          headers: [['content-type', 'application/x-www-form-urlencoded'], ['accept', 'application/json']],
          body: rawHttp.form([['grant_type', 'client_credentials'], ['client_id', client.clientId], ['client_secret', client.clientSecret]]),
        });
        if (out.error !== undefined) return; // no connection: nothing was issued
        expect(out.text.includes('access_token'), `no access_token in the answer (HTTP ${out.status})`).toBe(false);
        expect(isSuccess(out.status!), `no success answer (HTTP ${out.status})`).toBe(false);
      });
  }

  test('SEC-TLS-002 a protected call to the plain-HTTP address yields no resource data',
    requirement('SEC-TLS-002'),
    async ({ target, tokenClient, rawHttp }) => {
      const token = await accessTokenFor(target, tokenClient);
      const id = encodeURIComponent(target.profile.resources.people?.existing ?? 'conformance');
      const out = await plainSend(rawHttp, {
        method: 'GET',
        url: plainUrl(target, `/v1/people/er/${id}`),
        headers: [['authorization', `Bearer ${token}`], ['accept', 'application/json']],
      });
      if (out.error !== undefined) return; // no connection: no resource data
      expect(isSuccess(out.status!), `no resource data (HTTP ${out.status})`).toBe(false);
    });
});
