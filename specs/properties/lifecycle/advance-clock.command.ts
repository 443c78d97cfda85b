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
