// The load budget a profile allows (capabilities.load): a check that sends bursts never starts
// more than `maxRequests` requests in all, nor more than `maxRequestsPerSecond` within any second
// of real time. The pacing waits in real time on purpose: it protects the target, it does not wait
// for the target's state to change (that is the clock fixture's job).
import type { Target } from '../../fixtures/index.ts';

/** The budget's time: real time by default; a test gives its own (a clock that oversleeps like a busy machine). */
export interface BudgetClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const realTime: BudgetClock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export class LoadBudget {
  private started = 0;
  /** Start times (clock.now()) of the requests of the last second. */
  private readonly recent: number[] = [];

  constructor(readonly maxRequests: number, readonly maxRequestsPerSecond: number, private readonly clock: BudgetClock = realTime) {}

  static of(target: Target): LoadBudget {
    const { maxRequests, maxRequestsPerSecond } = target.profile.capabilities.load;
    return new LoadBudget(maxRequests, maxRequestsPerSecond);
  }

  get remaining(): number {
    return this.maxRequests - this.started;
  }

  /** Resolves when one more request stays within both budgets, and counts it. */
  async slot(): Promise<void> {
    if (this.started >= this.maxRequests) throw new Error(`the check exceeded its load budget of ${this.maxRequests} requests (capabilities.load.maxRequests)`);
    this.started += 1;
    for (;;) {
      const now = this.clock.now();
      while (this.recent.length > 0 && now - this.recent[0]! >= 1000) this.recent.shift();
      if (this.recent.length < this.maxRequestsPerSecond) {
        this.recent.push(now);
        return;
      }
      await this.clock.sleep(1000 - (now - this.recent[0]!));
    }
  }

  /** Runs `send` once per slot, `count` times, as concurrently as the budget allows. */
  async burst<T>(count: number, send: (index: number) => Promise<T>): Promise<T[]> {
    return Promise.all(Array.from({ length: count }, async (_, i) => {
      await this.slot();
      return send(i);
    }));
  }
}
