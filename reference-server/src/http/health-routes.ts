// Health endpoints for a load balancer or an orchestrator (no authentication, no test controls):
//   GET /healthz -> 200 {"status":"ok"}: the process answers HTTP (liveness)
//   GET /readyz  -> 200 {"status":"ready"} when the store answers a query within READY_TIMEOUT_MS,
//                   503 {"status":"unavailable"} otherwise (readiness: take the replica out of rotation)
// Registered before the gateway, which owns every other path.
import type { FastifyInstance } from 'fastify';

export const HEALTH_PATH = '/healthz';
export const READY_PATH = '/readyz';
const READY_TIMEOUT_MS = 2_000;

export function healthRoutes(app: FastifyInstance, options: { ping: () => Promise<void> }): Promise<void> {
  app.get(HEALTH_PATH, (_request, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }));
  app.get(READY_PATH, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    });
    try {
      await Promise.race([options.ping(), timeout]);
      return await reply.send({ status: 'ready' });
    } catch (error) {
      request.log.warn({ err: error }, 'readiness: the store does not answer');
      return await reply.code(503).send({ status: 'unavailable' });
    } finally {
      clearTimeout(timer);
    }
  });
  return Promise.resolve();
}
