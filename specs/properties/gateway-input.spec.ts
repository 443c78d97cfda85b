// Property: whatever Authorization value, version, path and method reach the gateway without a
// valid token, the answer is a gateway error of the §7.2 table, with the status the target
// declares for that code (OI-14) and the body format it declares (OI-25), a Bearer challenge on
// every 401, never the protected data — and, for the Authorization header, the code the catalogue
// expects (gateway-request.oracle.ts). Each answer is judged per requirement (gateway-answer.judge.ts):
// a counterexample FAILs the requirement(s) it breaks, nothing else. The real access token's format
// (JWT or opaque, token-format.ts) decides the cases: tokens signed by a foreign key (made here,
// with jose), tampered claims and alg none only for JWTs.
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import {
  needs, requirement, test, asGatewayResponse, alterCharacterAt, describeTokenFormat, tokenFormat, unknownToken,
  runAttributedProperty, sideBySideRuns, judgeGatewayAnswer, authorizationArbitrary, credentialRequirements,
  describeGatewayInput, expectedCodeRequirements, requestArbitrary, withPlainBearerScheme, propertyRuns, propertyTag, RequestDeadline,
  type GatewayChoices, type Finding,
  type GatewayInput, type TokenMaterial,
} from '../../fixtures/index.ts';

const name = 'gateway-input';
const b64url = (s: string | Buffer) => Buffer.from(s).toString('base64url');

/** The real token's material: JWT operations only where the token is a JWS (the spec never says it is). */
async function tokenMaterial(real: string): Promise<TokenMaterial> {
  const format = tokenFormat(real);
  const base = { format, alter: (i: number) => alterCharacterAt(real, i), unknown: () => unknownToken(real) };
  const jwtOnly = (what: string) => () => { throw new Error(`${what} needs a JWT access token; the target's is ${describeTokenFormat(format)}`); };
  if (format.kind !== 'jwt') return { ...base, tamper: jwtOnly('tamper'), foreign: jwtOnly('foreign'), algNone: jwtOnly('algNone') };
  const [header, , signature] = real.split('.') as [string, string, string];
  const claims: JWTPayload = decodeJwt(real);
  const realHeader = decodeProtectedHeader(real);
  const foreign = await generateKeyPair('ES256');
  const foreignKid = (await exportJWK(foreign.publicKey)).x?.slice(0, 16) ?? 'foreign';
  return {
    ...base,
    tamper: (claim, value) => `${header}.${b64url(JSON.stringify({ ...claims, [claim]: value }))}.${signature}`,
    foreign: (overrides, useRealKid) => new SignJWT({ ...claims, ...overrides })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: useRealKid && typeof realHeader.kid === 'string' ? realHeader.kid : foreignKid })
      .sign(foreign.privateKey),
    algNone: (overrides) => `${b64url(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${b64url(JSON.stringify({ ...claims, ...overrides }))}.`,
  };
}

test.describe('property: gateway input', () => {
  test('gateway input: every generated Authorization, version, path and method without a valid token gets a gateway error of the table with its declared status and body, never the protected data',
    requirement('ERR-GW-GEN-001', 'ERR-GW-GEN-002', 'ERR-GW-1201', 'ERR-GW-1202', 'ERR-GW-1205', 'ERR-GW-1020', 'ERR-GW-4000', 'BEARER-002', 'BEARER-003', 'BEARER-013',
      needs('gateway', 'people'), { tag: [propertyTag(name), '@serial'] }),
    async ({ tokenClient, rawHttp, target, redactor }, testInfo) => {
      const choices: GatewayChoices = {
        codes: target.interpretation('gatewayCodes') ?? {},
        body: target.interpretation('gatewayErrorBody') ?? 'json-code-message',
      };
      const existing = target.profile.resources.people!.existing;

      // Token material: a real access token (only ever sent altered), its format, a key the target never saw.
      const real = await tokenClient.obtain.clientCredentials();
      const material = await tokenMaterial(real.access_token);
      testInfo.annotations.push({ type: 'note', description: `access token format: ${describeTokenFormat(material.format)}` });

      const deadline = new RequestDeadline(testInfo);
      const judge = async (input: GatewayInput, authorization: string | undefined): Promise<Finding[]> => {
        const path = input.path.replace('{id}', encodeURIComponent(existing));
        const headers: [string, string][] = [['accept', 'application/json']];
        if (authorization !== undefined) headers.push(['authorization', authorization]);
        let data;
        try {
          data = await deadline.answer(() => rawHttp.send({ method: input.method, url: target.apiUrl(path), headers }), describeGatewayInput(input));
        } catch (error) {
          const cause = error instanceof Error ? error.message : String(error);
          return [...new Set([...expectedCodeRequirements(input), ...credentialRequirements(input)])].map((requirement) => ({ requirement, expected: 'a gateway error', actual: `no answer: ${cause}` }));
        }
        return judgeGatewayAnswer(input, asGatewayResponse(data, redactor), choices);
      };
      let schemeOnly = 0;
      const check = async (input: GatewayInput): Promise<Finding[]> => {
        const authorization = await input.authorization.value(material);
        const findings = await judge(input, authorization);
        // Control: the same credential with the scheme spelled Bearer. Answered right, the finding
        // shows only a case-sensitive scheme (BEARER-006, its own check), not this credential's code.
        const plain = findings.length > 0 ? withPlainBearerScheme(authorization) : undefined;
        if (plain !== undefined && (await judge(input, plain)).length === 0) {
          schemeOnly += 1;
          return [];
        }
        return findings;
      };

      // The runs share no state on the target (no valid token: nothing counted, nothing issued): side by side.
      try {
        await runAttributedProperty(requestArbitrary(authorizationArbitrary(material.format, target.gatewayCodes().conditions)), check, { name, testInfo, runs: propertyRuns(target, 'inputs'), ...sideBySideRuns(target) });
      } finally {
        if (schemeOnly > 0) testInfo.annotations.push({ type: 'note', description: `${schemeOnly} answer(s) wrong only with the scheme written in another case than Bearer: the same credential with Bearer was answered right (BEARER-006 judges the scheme's case)` });
      }
    });
});
