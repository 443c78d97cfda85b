import type { Clock } from '../domain/ports.ts';

/** Wall-clock time. */
export const systemClock: Clock = { now: () => Date.now() };
