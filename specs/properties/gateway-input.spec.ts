// Property: whatever Authorization value, version, path and method reach the gateway without a
// valid token, the answer is a gateway error of the §7.2 table, with the status the target
// declares for that code (OI-14) and the body format it declares (OI-25), a Bearer challenge on
// every 401, never the protected data — and, for the Authorization header, the code the catalogue
// expects (gateway-request.oracle.ts). Tokens signed by a foreign key are made here, with jose.
import fc from 'fast-check';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { needs, requirement, test } from '../../fixtures/index.ts';
import { gatewayErrorResult, gatewayFamily, type GatewayChoices, type GatewayCodesChoice, type GatewayErrorBody } from '../../fixtures/matchers.ts';
import { gatewayErrorCodes, type GatewayErrorCode } from '../../schemas/gateway-error-codes.ts';
import { asGatewayResponse } from '../token-requests/raw-response.helper.ts';
import { authorizationArbitrary, describeGatewayInput, expectedGatewayCodes, requestArbitrary, type GatewayInput, type TokenMaterial } from './gateway-request.oracle.ts';
import { propertyRuns, propertyTag, requestDeadlineMs, runProperty, withDeadline } from './property-runner.ts';

const name = 'gateway-input';
const table = new Set<string>(gatewayErrorCodes);
const b64url = (s: string | Buffer) => Buffer.from(s).toString('base64url');

test.describe('property: gateway input', () => {
  test('gateway input: every generated Authorization, version, path and method without a valid token gets a gateway error of the table with its declared status and body, never the protected data',
    requirement('ERR-GW-GEN-001', 'ERR-GW-GEN-002', 'ERR-GW-1201', 'ERR-GW-1202', 'ERR-GW-1205', 'ERR-GW-1020', 'BEARER-002', 'BEARER-003', 'BEARER-013',
      needs('gateway', 'people'), { tag: [propertyTag(name), '@serial'] }),
    async ({ tokenClient, rawHttp, target, redactor }, testInfo) => {
      const choices: GatewayChoices = {
        codes: target.interpretation<GatewayCodesChoice>('gatewayCodes') ?? {},
        body: target.interpretation<GatewayErrorBody>('gatewayErrorBody') ?? 'json-code-message',
      };
      const existing = target.profile.resources.people!.existing;

      // Token material: a real access token (only ever sent altered) and a key the target never saw.
      const real = await tokenClient.obtain.clientCredentials();
      const [header, payload, signature] = real.access_token.split('.') as [string, string, string];
      const claims: JWTPayload = (() => { try { return decodeJwt(real.access_token); } catch { return {}; } })();
      const realHeader = (() => { try { return decodeProtectedHeader(real.access_token); } catch { return {}; } })();
      const foreign = await generateKeyPair('ES256');
      const foreignKid = (await exportJWK(foreign.publicKey)).x?.slice(0, 16) ?? 'foreign';
      const material: TokenMaterial = {
        isJwt: real.access_token.split('.').length === 3,
        tamper: (claim, value) => `${header}.${b64url(JSON.stringify({ ...claims, [claim]: value }))}.${signature}`,
        flip: (index) => {
          const chars = [...signature];
          const i = index % chars.length;
          chars[i] = chars[i] === 'A' ? 'B' : 'A';
          return `${header}.${payload}.${chars.join('')}`;
        },
        foreign: (overrides, useRealKid) => new SignJWT({ ...claims, ...overrides })
          .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: useRealKid && typeof realHeader.kid === 'string' ? realHeader.kid : foreignKid })
          .sign(foreign.privateKey),
        algNone: (overrides) => `${b64url(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${b64url(JSON.stringify({ ...claims, ...overrides }))}.`,
      };

      const property = fc.asyncProperty(requestArbitrary(authorizationArbitrary()), async (input: GatewayInput) => {
        const authorization = await input.authorization.value(material);
        const path = input.path.replace('{id}', encodeURIComponent(existing));
        const headers: [string, string][] = [['accept', 'application/json']];
        if (authorization !== undefined) headers.push(['authorization', authorization]);
        const data = await withDeadline(rawHttp.send({ method: input.method, url: target.apiUrl(path), headers }), requestDeadlineMs, describeGatewayInput(input));
        const res = asGatewayResponse(data, redactor);
        const problems: string[] = [];
        if (res.status < 400) problems.push(`status ${res.status}: the request was served without a valid token`);
        if (res.status >= 500) problems.push(`a ${res.status}`);
        const code = res.declaredGatewayCode(choices.body);
        const expected = expectedGatewayCodes(input);
        if (code === undefined || !table.has(code)) problems.push(`no gateway code of the §7.2 table (got ${code ?? 'none'})`);
        else {
          const ok = expected === 'any-table-code' || expected.includes(code)
            || (choices.codes.matching === 'family' && expected.some((e) => gatewayFamily(e) === gatewayFamily(code)));
          if (!ok) problems.push(`code ${code}, expected ${(expected).join(' or ')}`);
          const shape = gatewayErrorResult(res, code as GatewayErrorCode, {}, choices);
          if (!shape.pass) problems.push(shape.message());
        }
        if (res.status === 401 && !/(^|,)\s*bearer\b/i.test(res.header('www-authenticate') ?? '')) problems.push('a 401 without a Bearer challenge');
        if (problems.length > 0) throw new Error(`request: ${describeGatewayInput(input)}\nproblems: ${problems.join('; ')}\nresponse: ${res.describe()}`);
      });

      await runProperty(property, { name, testInfo, runs: propertyRuns(target, 'inputs') });
    });
});
