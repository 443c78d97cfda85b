// The redactor's matcher for a set of values that keeps growing: a worker learns every token it
// sees, one by one, and redacts between two additions. One automaton rebuilt over every value after
// each addition costs the whole set per new token (quadratic over a worker's life: a self-validation
// worker running the checks of 40 faults spent most of its CPU there). Here the values sit in levels
// whose sizes halve from the oldest to the newest (a binary counter: a new level swallows every
// older level that is no larger), so each value is rebuilt into an automaton O(log n) times. Levels
// of a few values are searched with indexOf (an automaton allocates a 64 K-entry root table).
import { SecretMatcher } from './secret-matcher.ts';

/** Levels smaller than this are searched value by value. */
const automatonFrom = 32;

interface Level {
  values: string[];
  matcher: SecretMatcher | undefined;
}

export class LayeredMatcher {
  private readonly levels: Level[] = [];
  private pending: string[] = [];
  private count = 0;

  /** Adds a value (callers add each value once). */
  add(value: string): void {
    if (value.length === 0) return;
    this.pending.push(value);
    this.count += 1;
  }

  get size(): number {
    return this.count;
  }

  private settle(): void {
    if (this.pending.length === 0) return;
    let values = this.pending;
    this.pending = [];
    while (this.levels.length > 0 && this.levels.at(-1)!.values.length <= values.length) values = [...this.levels.pop()!.values, ...values];
    this.levels.push({ values, matcher: values.length >= automatonFrom ? new SecretMatcher(values) : undefined });
  }

  /** Every occurrence of any value as disjoint [start, end) ranges, in order: overlapping or touching ones joined (as SecretMatcher.ranges). */
  ranges(text: string): [number, number][] {
    this.settle();
    const found: [number, number][] = [];
    for (const level of this.levels) {
      if (level.matcher) found.push(...level.matcher.ranges(text));
      else for (const v of level.values) for (let i = text.indexOf(v); i >= 0; i = text.indexOf(v, i + 1)) found.push([i, i + v.length]);
    }
    if (this.levels.length > 1 || !this.levels[0]?.matcher) found.sort((a, b) => a[0] - b[0]);
    const out: [number, number][] = [];
    for (const [start, end] of found) {
      const last = out.at(-1);
      if (last && start <= last[1]) last[1] = Math.max(last[1], end);
      else out.push([start, end]);
    }
    return out;
  }
}
