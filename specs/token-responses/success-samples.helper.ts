// A representative set of successful token responses, one per grant the region offers, for the
// checks that speak of "every (successful) token response" (TOKEN-RESP-001 to -006, -009):
//   US  client_credentials, password, refresh_token (of that password grant's refresh token);
//   EU  client_credentials, plus password and refresh_token when the target declares
//       euOtherGrants=supported (OI-9).
// That each request issues a token is a precondition (`setup:`); the checks judge the response.
import type { Region, Target, TokenClient, TokenResponse } from '../../fixtures/index.ts';
import { expect } from '../../fixtures/index.ts';

export interface SuccessSample {
  /** Grant and region, e.g. "password at US". */
  label: string;
  res: TokenResponse;
}

function issued(label: string, res: TokenResponse): SuccessSample {
  expect(res.accessToken, `setup: ${label} issues an access_token — got ${res.describe()}`).toBeDefined();
  return { label, res };
}

export async function successSamples(region: Region, tokenClient: TokenClient, target: Target): Promise<SuccessSample[]> {
  const R = region.toUpperCase();
  const samples = [issued(`client_credentials at ${R}`, await tokenClient.clientCredentials({ region }))];
  if (region === 'us' || target.interpretation('euOtherGrants') === 'supported') {
    const password = issued(`password at ${R}`, await tokenClient.password({ region }));
    samples.push(password);
    const refreshToken = password.res.refreshToken;
    expect(refreshToken, `setup: password at ${R} returns a refresh_token — got ${password.res.describe()}`).toBeDefined();
    samples.push(issued(`refresh_token at ${R}`, await tokenClient.refresh(refreshToken!, { region })));
  }
  return samples;
}
