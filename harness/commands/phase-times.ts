// Where a `run` spends its wall time: each named phase of runMain, timed. `run --timings` prints
// them as one line at the end (the bench's breakdown of one `npm start` reads it).

export interface PhaseTime {
  phase: string;
  ms: number;
}

export class PhaseTimes {
  readonly phases: PhaseTime[] = [];
  private readonly startedAt = performance.now();

  /** Runs one phase and records its wall time (also when it throws). */
  async time<T>(phase: string, work: () => T | Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      return await work();
    } finally {
      this.phases.push({ phase, ms: performance.now() - t0 });
    }
  }

  /** `phases: profile 0.2 s, reference start 2.1 s, … (total 14.8 s)`. */
  render(): string {
    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    return `phases: ${this.phases.map((p) => `${p.phase} ${s(p.ms)}`).join(', ')} (total ${s(performance.now() - this.startedAt)})`;
  }
}
