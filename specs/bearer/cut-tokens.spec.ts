// A valid access token truncated or extended is not that token (RFC 6750 §3.1 invalid_token;
// CVE-2026-27840, GHSA-6mq3-xmgp-pjm5): BEARER-021 asks that each variant be refused with 401, never
// served; ERR-GW-1202 asks that the refusal carry the code the target declares for a token that
// is not valid (OI-14 conditions.unknownToken), or 000-1205 (§7.2 "token parse error"): a cut
// token may no longer parse as one of the target's own (a JWT segment of an impossible base64url
// length, an opaque token of the wrong length). Another code where the profile declares none is
// the reference's assumption, so the report reads WARN there. The variants take the real
// token's format (JWT or opaque: fixtures/token-format.ts).
import {
  expect,
  markBlocked,
  needs,
  requirement,
  test,
  type ApiClient,
  type ApiResponse,
} from '../../fixtures/index.ts';
import { cutTokens, formatOf, type CutToken } from '../../fixtures/support/bearer/cut-tokens.ts';

/** Each variant of a freshly issued token, presented once, after the token itself was seen accepted. */
async function presentCutTokens(token: string, api: ApiClient): Promise<[CutToken, ApiResponse][]> {
  expect(
    (await api.person('existing', { token })).status,
    `setup: the unaltered token (${formatOf(token)}) is accepted`,
  ).toBe(200);
  const answers: [CutToken, ApiResponse][] = [];
  for (const cut of cutTokens(token)) answers.push([cut, await api.person('existing', { token: cut.token })]);
  return answers;
}

test.describe('bearer: truncated and extended tokens', () => {
  test(
    'BEARER-021 a valid access token truncated (all but 1, 80 characters, half) or extended is refused with 401',
    requirement('BEARER-021', needs('people')),
    async ({ api, wire }) => {
      const answers = await presentCutTokens(await wire.token(), api);
      const wrong = answers
        .filter(([, res]) => res.status !== 401)
        .map(([cut, res]) => `${cut.what}: ${res.describe()}`);
      expect(wrong, `every truncated or extended token is refused with 401 (${answers.length} variants)`).toEqual([]);
    },
  );

  test(
    'ERR-GW-1202 a valid access token truncated or extended gets the code declared for an unknown token (reference 000-1202) or 000-1205',
    requirement('ERR-GW-1202', needs('people')),
    async ({ target, api, wire }, testInfo) => {
      const code = target.gatewayCodes().conditions.unknownToken;
      const answers = await presentCutTokens(await wire.token(), api);
      const accepted = answers.filter(([, res]) => res.status < 300).map(([cut]) => cut.what);
      if (accepted.length > 0)
        markBlocked(
          testInfo,
          `a truncated or extended token was served (${accepted.join('; ')}), so there is no refusal whose code could be judged`,
          { by: ['BEARER-021'] },
        );
      for (const [cut, res] of answers) {
        const expected = res.gatewayCode === '000-1205' ? '000-1205' : code;
        await expect(
          res,
          `${cut.what}: declared unknownToken=${code}, or 000-1205 for a token that no longer parses`,
        ).toBeGatewayError(expected);
      }
    },
  );
});
