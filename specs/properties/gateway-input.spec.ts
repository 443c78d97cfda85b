// Property: whatever Authorization value, version, path and method reach the gateway without a
// valid token, the answer is a gateway error of the §7.2 table, with the status the target
// declares for that code (OI-14) and the body format it declares (OI-25), a Bearer challenge on
// every 401, never the protected data — and, for the Authorization header, the code the catalogue
// expects (gateway-request.oracle.ts). Each answer is judged per requirement (gateway-answer.judge.ts):
// a counterexample FAILs the requirement(s) it breaks, nothing else. The real access token's format
// (JWT or opaque, token-format.ts) decides the cases: tokens signed by a foreign key
// (token-material.ts), tampered claims and alg none only for JWTs.
import { needs, requirement, test } from '../../fixtures/index.ts';
import {
  runAttributedProperty,
  sideBySideRuns,
  type Finding,
} from '../../fixtures/support/properties/attributed-property.ts';
import { gatewayInputJudge } from '../../fixtures/support/properties/gateway-input.sender.ts';
import {
  authorizationArbitrary,
  requestArbitrary,
  withPlainBearerScheme,
  type GatewayInput,
} from '../../fixtures/support/properties/gateway-request.oracle.ts';
import { propertyRuns, propertyTag, RequestDeadline } from '../../fixtures/support/properties/property-runner.ts';
import { tokenMaterial } from '../../fixtures/support/properties/token-material.ts';

const name = 'gateway-input';

test.describe('property: gateway input', () => {
  test(
    'gateway input: every generated Authorization, version, path and method without a valid token gets a gateway error of the table with its declared status and body, never the protected data',
    requirement(
      'ERR-GW-GEN-001',
      'ERR-GW-GEN-002',
      'ERR-GW-1201',
      'ERR-GW-1202',
      'ERR-GW-1205',
      'ERR-GW-1020',
      'ERR-GW-4000',
      'BEARER-002',
      'BEARER-003',
      'BEARER-013',
      needs('gateway', 'people'),
      { tag: [propertyTag(name), '@serial'] },
    ),
    async ({ tokenClient, rawHttp, target, redactor }, testInfo) => {
      // Token material: a real access token (only ever sent altered), its format, a key the target never saw.
      const real = await tokenClient.obtain.clientCredentials();
      const material = await tokenMaterial(real.access_token);
      testInfo.annotations.push({ type: 'note', description: `access token format: ${material.described}` });

      const judge = gatewayInputJudge({ rawHttp, target, redactor, deadline: new RequestDeadline(testInfo) });
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
        await runAttributedProperty(
          requestArbitrary(authorizationArbitrary(material.format, target.gatewayCodes().conditions)),
          check,
          { name, testInfo, runs: propertyRuns(target, 'inputs'), ...sideBySideRuns(target) },
        );
      } finally {
        if (schemeOnly > 0)
          testInfo.annotations.push({
            type: 'note',
            description: `${schemeOnly} answer(s) wrong only with the scheme written in another case than Bearer: the same credential with Bearer was answered right (BEARER-006 judges the scheme's case)`,
          });
      }
    },
  );
});
