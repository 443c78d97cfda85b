// The controllable clock of `--test-controls`: system time plus an offset that the control
// endpoint moves, so that time keeps flowing between control calls. Exact (no skew, OI-18).
// Replicas on one shared store keep the offset there (SharedOffset): a move through one replica
// is written to the store, and every replica reads it back before each request (`refresh`), so
// the clock moves for all of them at once.
import type { Clock } from '../domain/ports.ts';

/** An offset kept outside the process (store/server-store.ts SharedClockOffset). */
export interface SharedOffset {
  read(): Promise<number>;
  moveBy(ms: number): Promise<number>;
  set(ms: number): Promise<number>;
}

export type ClockCommand = { advanceSeconds: number } | { setToMs: number } | { reset: true };

export class TestClock implements Clock {
  #offsetMs = 0;

  constructor(
    private readonly base: Clock = { now: () => Date.now() },
    private readonly shared?: SharedOffset,
  ) {}

  /** Whether the offset lives in a shared store (then call `refresh` before each request). */
  get isShared(): boolean {
    return this.shared !== undefined;
  }

  /** Reads the shared offset (a no-op without one). */
  async refresh(): Promise<void> {
    if (this.shared) this.#offsetMs = await this.shared.read();
  }

  /** Moves the clock: in the shared store when there is one (every replica follows), here otherwise. */
  async apply(command: ClockCommand): Promise<void> {
    if (!this.shared) {
      if ('advanceSeconds' in command) this.advance(command.advanceSeconds);
      else if ('setToMs' in command) this.setTo(command.setToMs);
      else this.reset();
      return;
    }
    if ('advanceSeconds' in command)
      this.#offsetMs = await this.shared.moveBy(Math.round(command.advanceSeconds * 1000));
    else if ('setToMs' in command) this.#offsetMs = await this.shared.set(command.setToMs - this.base.now());
    else this.#offsetMs = await this.shared.set(0);
  }

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
