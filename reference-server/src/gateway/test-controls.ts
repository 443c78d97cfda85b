// Test controls of the gateway, registered only when the server runs with test controls:
//   GET  /__test/faults                 → {"active": null | name}
//   POST /__test/faults                 {"fault": name | null} → {"active": …}; 400 on an unknown name
//   POST /__test/principals/deactivate  {"kind":"user","tenant","userName"} | {"kind":"client","clientId"}
//   POST /__test/principals/activate    the same, setting `active` back to true
// Deactivating a principal after its token was issued is how 000-5002 and the token endpoint's
// refusals of a deactivated account are reached (domain/account-state.ts).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { setAccountActive } from '../domain/account-state.ts';
import { faultNames } from './faults.ts';
import type { FaultSwitch } from './faults.ts';
import type { GatewayStore } from './gateway-deps.ts';
import type { RawBody } from './raw-request.ts';

const faultRequest = z.object({ fault: z.enum(faultNames).nullable() });
const principalRequest = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('user'), tenant: z.string().min(1), userName: z.string().min(1) }),
  z.object({ kind: z.literal('client'), clientId: z.string().min(1) }),
]);

export const testControlPaths = [
  '/__test/faults',
  '/__test/principals/deactivate',
  '/__test/principals/activate',
] as const;

export function registerTestControls(
  app: FastifyInstance,
  faults: FaultSwitch,
  store: GatewayStore,
  shared?: { set(name: string | null): Promise<void> },
): void {
  app.get('/__test/faults', async (_request, reply) => sendJson(reply, 200, { active: faults.active }));

  app.post('/__test/faults', async (request, reply) => {
    const parsed = faultRequest.safeParse(jsonBody(request.body));
    if (!parsed.success) {
      return sendJson(reply, 400, {
        error: 'invalid_request',
        message: `expected {"fault": null | ${faultNames.map((n) => `"${n}"`).join(' | ')}}`,
      });
    }
    await shared?.set(parsed.data.fault);
    faults.set(parsed.data.fault);
    request.log.info({ fault: parsed.data.fault }, 'gateway fault switch set');
    return sendJson(reply, 200, { active: faults.active });
  });

  for (const [path, active] of [
    ['/__test/principals/deactivate', false],
    ['/__test/principals/activate', true],
  ] as const) {
    app.post(path, async (request, reply) => {
      const parsed = principalRequest.safeParse(jsonBody(request.body));
      if (!parsed.success) {
        return sendJson(reply, 400, {
          error: 'invalid_request',
          message: 'expected {"kind":"user","tenant","userName"} or {"kind":"client","clientId"}',
        });
      }
      const state = await setAccountActive(store, parsed.data, active);
      if (!state.found) return sendJson(reply, 404, { error: 'not_found', message: `no such ${parsed.data.kind}` });
      return sendJson(reply, 200, { ...state.account, active });
    });
  }
}

function jsonBody(body: unknown): unknown {
  const raw = body as RawBody | undefined;
  if (raw === undefined || raw.tooLarge || !Buffer.isBuffer(raw.bytes)) return undefined;
  try {
    return JSON.parse(raw.bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'application/json')
    .header('cache-control', 'no-store')
    .send(JSON.stringify(body));
}
