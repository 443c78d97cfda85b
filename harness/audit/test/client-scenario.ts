// What two real OAuth client libraries do against a target, through the recorder's addresses:
// openid-client 6 (client_credentials at US and EU, password, refresh) and simple-oauth2 5
// (client_credentials with HTTP Basic, password, refresh), protected calls with their tokens, and
// one move of the target's test clock past the client_credentials lifetime.
import * as oidc from 'openid-client';
import { ClientCredentials, ResourceOwnerPassword } from 'simple-oauth2';
import { fetch } from 'undici';

export interface ScenarioCredentials {
  usClient: { clientId: string; clientSecret: string };
  euClient: { clientId: string; clientSecret: string };
  passwordClient: { clientId: string; clientSecret: string };
  user: { username: string; password: string };
}

export interface ScenarioOutcome {
  /** Answers the scenario saw (for assertions that the clients really ran). */
  log: string[];
}

const usPath = '/api/v1/auth/oauth2/token';
const euPath = '/oauth2/default/v1/token';

function oidcConfig(authUrl: string, path: string, c: { clientId: string; clientSecret: string }): oidc.Configuration {
  const config = new oidc.Configuration(
    { issuer: authUrl, token_endpoint: `${authUrl}${path}` },
    c.clientId,
    undefined,
    oidc.ClientSecretPost(c.clientSecret),
  );
  // The recorder listens on loopback plain HTTP; it speaks TLS to the target.
  oidc.allowInsecureRequests(config);
  return config;
}

async function call(baseUrl: string, token: string | undefined, log: string[], label: string): Promise<number> {
  const res = await fetch(`${baseUrl}/v1/people/er/E-1001`, {
    headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  await res.arrayBuffer();
  log.push(`${label}: ${res.status}`);
  return res.status;
}

async function clock(authUrlUs: string, body: object | undefined): Promise<void> {
  const res = await fetch(
    `${authUrlUs}/__test/clock`,
    body === undefined
      ? {}
      : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
  );
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`clock control answered ${res.status}`);
}

/** Runs the scenario; a client library's refusal of a reused refresh token is expected and logged, not thrown. */
export async function runClientScenario(
  urls: { authUrlUs: string; authUrlEu: string; baseUrl: string },
  creds: ScenarioCredentials,
  ccLifetimeSeconds: number,
): Promise<ScenarioOutcome> {
  const log: string[] = [];
  await clock(urls.authUrlUs, undefined);

  // openid-client 6.
  const usCc = await oidc.clientCredentialsGrant(oidcConfig(urls.authUrlUs, usPath, creds.usClient));
  log.push(`openid-client cc US: ${usCc.token_type}`);
  const euCc = await oidc.clientCredentialsGrant(oidcConfig(urls.authUrlEu, euPath, creds.euClient));
  log.push(`openid-client cc EU: ${euCc.token_type}`);
  const pwConfig = oidcConfig(urls.authUrlUs, usPath, creds.passwordClient);
  const pw = await oidc.genericGrantRequest(pwConfig, 'password', {
    username: creds.user.username,
    password: creds.user.password,
  });
  const rt1 = pw.refresh_token!;
  const second = await oidc.refreshTokenGrant(pwConfig, rt1);
  const third = await oidc.refreshTokenGrant(pwConfig, second.refresh_token!);
  log.push('openid-client password + 2 refreshes: ok');
  await call(urls.baseUrl, pw.access_token, log, 'password token');
  await call(urls.baseUrl, third.access_token, log, 'refreshed token');
  // The first refresh token again, after its replacement was used in turn: single use says no.
  try {
    await oidc.refreshTokenGrant(pwConfig, rt1);
    log.push('openid-client reuse: accepted');
  } catch (error) {
    log.push(`openid-client reuse: refused (${(error as { error?: string }).error ?? (error as Error).message})`);
  }

  // simple-oauth2 5 (HTTP Basic by default).
  const cc = new ClientCredentials({
    client: { id: creds.usClient.clientId, secret: creds.usClient.clientSecret },
    auth: { tokenHost: urls.authUrlUs, tokenPath: usPath },
  });
  const ccToken = await cc.getToken({});
  const ccAccess = ccToken.token.access_token as string;
  const owner = new ResourceOwnerPassword({
    client: { id: creds.passwordClient.clientId, secret: creds.passwordClient.clientSecret },
    auth: { tokenHost: urls.authUrlUs, tokenPath: usPath },
    options: { authorizationMethod: 'body' },
  });
  const ownerToken = await owner.getToken({ username: creds.user.username, password: creds.user.password });
  const refreshed = await ownerToken.refresh();
  log.push(`simple-oauth2 cc + password + refresh: ${String(refreshed.token.token_type)}`);
  await call(urls.baseUrl, ccAccess, log, 'simple-oauth2 cc token');
  await call(urls.baseUrl, refreshed.token.access_token as string, log, 'simple-oauth2 refreshed token');
  await call(urls.baseUrl, undefined, log, 'no credentials');

  // Past the client_credentials lifetime (and any declared skew): the token must be refused.
  await clock(urls.authUrlUs, { advanceSeconds: ccLifetimeSeconds + 90 });
  await call(urls.baseUrl, ccAccess, log, 'expired cc token');
  await clock(urls.authUrlUs, { reset: true });
  return { log };
}
