// A clock the test moves by hand.
import type { Clock } from '../../../src/domain/ports.ts';

export class FakeClock implements Clock {
  constructor(private current = Date.UTC(2030, 0, 1, 12, 0, 0)) {}

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(ms: number): void {
    this.current = ms;
  }
}
