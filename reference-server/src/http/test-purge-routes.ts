// The purge control of `--test-controls` (never registered otherwise):
//   POST /__test/purge  -> {"refreshTokens": n, "failedAttempts": m}
// Runs the store purge now, at the TEST clock's time, to the end. The server's own purge timer
// reads system time instead (a clock moved forward by a test must not delete tokens that become
// valid again when it is reset); this route lets a test that moved the clock see expired rows go.
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../domain/ports.ts';
import { purgeAll, purgeCutoffs, type PurgeStore } from '../store/purge.ts';

export const TEST_PURGE_PATH = '/__test/purge';

export function testPurgeRoutes(
  app: FastifyInstance,
  options: { store: PurgeStore; clock: Clock; lockoutSeconds: number },
): Promise<void> {
  app.post(TEST_PURGE_PATH, async (_request, reply) => {
    const count = await purgeAll(options.store, purgeCutoffs(options.clock.now(), options.lockoutSeconds * 1000));
    return reply.header('cache-control', 'no-store').send(count);
  });
  return Promise.resolve();
}
