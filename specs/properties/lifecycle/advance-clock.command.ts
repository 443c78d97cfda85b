// Command: move the target's clock across the boundaries of the lifecycle: the 1-hour access
// token, the 7-day access and refresh tokens, the 45-day password. Only where the target has
// clock control (the clock variant of the model).
import type fc from 'fast-check';
import type { LifecycleModel, RealSystem } from './lifecycle.model.ts';

export class AdvanceClockCommand implements fc.AsyncCommand<LifecycleModel, RealSystem> {
  constructor(readonly seconds: number, readonly label: string) {}

  check(m: Readonly<LifecycleModel>): boolean {
    return m.options.clock;
  }

  async run(m: LifecycleModel, r: RealSystem): Promise<void> {
    await r.clock!.advance(this.seconds);
    m.now += this.seconds;
  }

  toString(): string {
    return `advance-clock(${this.label})`;
  }
}

/**
 * Command: move the clock to a point relative to the burnable user's 45-day password edge (from
 * its declared age): just below it, where the grant must still work, or just past it, where it
 * must be refused. Only forward, and only when the profile declares the password age.
 */
export class AdvanceToPasswordEdgeCommand implements fc.AsyncCommand<LifecycleModel, RealSystem> {
  constructor(readonly offset: number, readonly label: string) {}

  private seconds(m: Readonly<LifecycleModel>): number | undefined {
    const edge = m.passwordEdge();
    return edge === undefined ? undefined : edge + this.offset - m.now;
  }

  check(m: Readonly<LifecycleModel>): boolean {
    const s = this.seconds(m);
    return m.options.clock && s !== undefined && s > 0;
  }

  async run(m: LifecycleModel, r: RealSystem): Promise<void> {
    const s = this.seconds(m)!;
    await r.clock!.advance(s);
    m.now += s;
  }

  toString(): string {
    return `advance-clock(${this.label})`;
  }
}
