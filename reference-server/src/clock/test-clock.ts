// The controllable clock of `--test-controls`: system time plus an offset that the control
// endpoint moves, so that time keeps flowing between control calls. Exact (no skew, OI-18).
import type { Clock } from '../domain/ports.ts';

export class TestClock implements Clock {
  #offsetMs = 0;

  constructor(private readonly base: Clock = { now: () => Date.now() }) {}

  now(): number {
    return this.base.now() + this.#offsetMs;
  }

  advance(seconds: number): void {
    this.#offsetMs += Math.round(seconds * 1000);
  }

  setTo(epochMs: number): void {
    this.#offsetMs = epochMs - this.base.now();
  }

  reset(): void {
    this.#offsetMs = 0;
  }

  get offsetMs(): number {
    return this.#offsetMs;
  }
}

/** A clock that moves only when told: for unit tests. */
export class ManualClock implements Clock {
  constructor(private epochMs: number) {}

  now(): number {
    return this.epochMs;
  }

  advance(seconds: number): void {
    this.epochMs += Math.round(seconds * 1000);
  }

  set(epochMs: number): void {
    this.epochMs = epochMs;
  }
}
