// The clock control of `--test-controls` (never registered otherwise):
//   GET  /__test/clock                         -> {"now": ISO, "epochMs": n}
//   POST /__test/clock {"advanceSeconds": n}   -> the same shape, after moving the clock
//   POST /__test/clock {"setTo": ISO}
//   POST /__test/clock {"reset": true}          -> back to system time
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { TestClock } from '../clock/test-clock.ts';

export const TEST_CLOCK_PATH = '/__test/clock';

const command = z.union([
  z.strictObject({ advanceSeconds: z.number().finite() }),
  z.strictObject({ setTo: z.iso.datetime({ offset: true }) }),
  z.strictObject({ reset: z.literal(true) }),
]);

export function testClockRoutes(app: FastifyInstance, options: { clock: TestClock }): Promise<void> {
  const { clock } = options;
  const reading = () => {
    const epochMs = clock.now();
    return { now: new Date(epochMs).toISOString(), epochMs };
  };
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) => {
    done(null, body);
  });
  app.get(TEST_CLOCK_PATH, (_request, reply) => reply.send(reading()));
  app.post(TEST_CLOCK_PATH, async (request, reply) => {
    let parsed: z.infer<typeof command>;
    try {
      parsed = command.parse(JSON.parse(typeof request.body === 'string' ? request.body : ''));
    } catch {
      return reply.code(400).send({
        error: 'invalid_request',
        error_description:
          'Send one of {"advanceSeconds": n}, {"setTo": "ISO 8601 date-time"} or {"reset": true} as JSON.',
      });
    }
    await clock.apply('setTo' in parsed ? { setToMs: Date.parse(parsed.setTo) } : parsed);
    return reading();
  });
  return Promise.resolve();
}
