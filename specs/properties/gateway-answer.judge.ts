// Judges one gateway answer to a call without a valid token, per requirement: served → the
// credential's requirements; no §7.2 code → ERR-GW-GEN-001; a code the catalogue does not allow
// there → the requirements of the codes it allows; the declared status of the code → that code's
// requirement; the declared body format → ERR-GW-GEN-002; a 401 the catalogue requires → its BEARER
// requirement; a 401 without a Bearer challenge → BEARER-013.
import type { ApiResponse } from '../../fixtures/index.ts';
import { gatewayFamily, type GatewayChoices } from '../../fixtures/matchers.ts';
import { gatewayErrorCodes, gatewayErrors, type GatewayErrorCode } from '../../schemas/gateway-error-codes.ts';
import type { Finding } from './attributed-property.ts';
import { codeRequirement, credentialRequirements, expectedCodeRequirements, expectedGatewayCodes, type GatewayInput } from './gateway-request.oracle.ts';
import { Findings } from './token-answer.judge.ts';

const table = new Set<string>(gatewayErrorCodes);

export function judgeGatewayAnswer(input: GatewayInput, res: ApiResponse, choices: GatewayChoices): Finding[] {
  const findings = new Findings();
  const expected = expectedGatewayCodes(input);
  const want = expected === 'any-table-code' ? 'a gateway error with a §7.2 code' : `gateway error ${expected.join(' or ')}`;
  if (res.status < 400) findings.add(credentialRequirements(input), want, `status ${res.status}: served without a valid token`);
  if (res.status >= 500) findings.add(expectedCodeRequirements(input), want, `a ${res.status}`);
  const code = res.declaredGatewayCode(choices.body);
  if (res.status >= 400) {
    if (code === undefined || !table.has(code)) {
      findings.add(['ERR-GW-GEN-001'], 'a gateway code of the §7.2 table where the target declares it (OI-25)', `code ${code ?? '(none)'}`);
    } else {
      const allowed = expected === 'any-table-code' || expected.includes(code)
        || (choices.codes.matching === 'family' && expected.some((e) => gatewayFamily(e) === gatewayFamily(code)));
      if (!allowed) findings.add(expectedCodeRequirements(input), want, `code ${code}`);
      const status = choices.codes.statuses?.[code] ?? gatewayErrors[code as GatewayErrorCode].status;
      if (allowed && res.status !== status && res.status < 500) findings.add([codeRequirement(code)], `${code} with status ${status} (declared, OI-14)`, `status ${res.status}`);
      if (choices.body === 'json-code-message' && res.schemaErrors.length > 0) findings.add(['ERR-GW-GEN-002'], 'the declared gateway error body (json-code-message)', `gateway-error schema: ${res.schemaErrors.join('; ')}`);
    }
    const status401 = input.authorization.status401;
    if (status401 && input.pathKind === 'exposed' && input.method === 'GET' && res.status !== 401 && res.status < 500) findings.add([status401], '401', `status ${res.status}`);
  }
  if (res.status === 401 && !/(^|,)\s*bearer\b/i.test(res.header('www-authenticate') ?? '')) findings.add(['BEARER-013'], 'a Bearer challenge on a 401', `WWW-Authenticate: ${res.header('www-authenticate') ?? '(none)'}`);
  return findings.list(`HTTP ${res.status} ${res.mediaType ?? '(no content-type)'} code ${code ?? '(none)'}`);
}
