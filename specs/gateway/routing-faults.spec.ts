// Gateway codes of the routing layer, reached by switching the target's upstream faults (capability
// fault-injection): 000-1003, 000-1004, 000-1208, 000-3000, 000-3010, 000-5000. A fault affects
// every call through the gateway, so these checks run one at a time (tag @serial).
import { expect, needs, requirement, test } from '../../fixtures/index.ts';
import type { GatewayErrorCode } from '../../schemas/gateway-error-codes.ts';

const cases: [string, GatewayErrorCode, string, string][] = [
  ['ERR-GW-1003', '000-1003', 'invalid-gateway', 'routed to a gateway or environment not configured for the API'],
  ['ERR-GW-1004', '000-1004', 'gateway-config-error', 'during an internal gateway configuration fault'],
  ['ERR-GW-1208', '000-1208', 'key-source-failure', 'while the gateway cannot obtain the keys that validate tokens'],
  ['ERR-GW-3000', '000-3000', 'route-failure', 'while the upstream of its route is unreachable'],
  ['ERR-GW-3010', '000-3010', 'multi-route-failure', 'while every candidate upstream of its route fails'],
  ['ERR-GW-5000', '000-5000', 'unavailable', 'while the backend is down or in maintenance'],
];

test.describe('gateway: upstream faults', () => {
  for (const [id, code, fault, when] of cases) {
    test(
      `${id} a protected call ${when} (fault ${fault}) gets ${code}`,
      requirement(id, needs('people')),
      async ({ api, faults, control, wire }) => {
        const token = await wire.token();
        const plain = await api.person('existing', { token });
        control.answered(plain.status === 200, plain.describe(), {
          what: 'the call succeeds before the fault',
          by: 'BEARER-001',
        });
        await faults.set(fault);
        await expect(await api.person('existing', { token })).toBeGatewayError(code);
      },
    );
  }
});
