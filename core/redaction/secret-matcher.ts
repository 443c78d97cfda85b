// A multi-pattern matcher (Aho–Corasick over UTF-16 code units): every occurrence of any of a
// run's known secret values in one pass over a text, however many values there are (a run knows
// ~1,500: the profile's secrets and every token it saw, each in several encodings). Built once,
// used by the redactor (replace) and by the end-of-run verification (find).

/** One occurrence: [start, end) in the text, and the value found. */
export interface Occurrence {
  start: number;
  end: number;
  value: string;
}

export class SecretMatcher {
  /** Transitions per node; the root's are an array indexed by code unit (the hot path: most characters start nothing). */
  private readonly next: Map<number, number>[] = [new Map<number, number>()];
  private readonly rootNext = new Int32Array(0x10000);
  private readonly failure: number[] = [0];
  /** The longest value ending at a node (-1: none); then the next node down the failure chain with a value. */
  private readonly value: number[] = [-1];
  private readonly outputLink: number[] = [-1];
  private readonly values: string[];

  constructor(values: Iterable<string>) {
    this.values = [...new Set(values)].filter((v) => v.length > 0);
    this.values.forEach((v, index) => {
      let node = 0;
      for (let i = 0; i < v.length; i++) {
        const c = v.charCodeAt(i);
        let child = this.next[node]!.get(c);
        if (child === undefined) {
          child = this.next.length;
          this.next.push(new Map<number, number>());
          this.failure.push(0);
          this.value.push(-1);
          this.outputLink.push(-1);
          this.next[node]!.set(c, child);
        }
        node = child;
      }
      this.value[node] = index;
    });
    // Breadth first: a node's failure is the longest proper suffix of its path that is a path too.
    const queue: number[] = [];
    for (const [c, child] of this.next[0]!) {
      this.rootNext[c] = child;
      queue.push(child);
    }
    for (let head = 0; head < queue.length; head++) {
      const node = queue[head]!;
      for (const [c, child] of this.next[node]!) {
        let f = this.failure[node]!;
        while (f !== 0 && !this.next[f]!.has(c)) f = this.failure[f]!;
        const target = this.next[f]!.get(c);
        this.failure[child] = target !== undefined && target !== child ? target : 0;
        const fc = this.failure[child];
        this.outputLink[child] = this.value[fc]! >= 0 ? fc : this.outputLink[fc]!;
        queue.push(child);
      }
    }
  }

  get size(): number {
    return this.values.length;
  }

  private step(node: number, c: number): number {
    let n = node;
    for (;;) {
      if (n === 0) return this.rootNext[c]!;
      const child = this.next[n]!.get(c);
      if (child !== undefined) return child;
      n = this.failure[n]!;
    }
  }

  /**
   * Every occurrence, the longest one ending at each position (shorter values ending there lie
   * inside it); `limit` stops early (a verification needs the first few only).
   */
  occurrences(text: string, limit = Infinity): Occurrence[] {
    const found: Occurrence[] = [];
    if (this.values.length === 0) return found;
    let node = 0;
    for (let i = 0; i < text.length; i++) {
      node = this.step(node, text.charCodeAt(i));
      if (node === 0) continue;
      const at = this.value[node]! >= 0 ? node : this.outputLink[node]!;
      if (at < 0) continue;
      const value = this.values[this.value[at]!]!;
      found.push({ start: i + 1 - value.length, end: i + 1, value });
      if (found.length >= limit) break;
    }
    return found;
  }

  /** The occurrences as disjoint [start, end) ranges, in order: overlapping or touching ones joined. */
  ranges(text: string): [number, number][] {
    const sorted = this.occurrences(text).sort((a, b) => a.start - b.start);
    const out: [number, number][] = [];
    for (const o of sorted) {
      const last = out.at(-1);
      if (last && o.start <= last[1]) last[1] = Math.max(last[1], o.end);
      else out.push([o.start, o.end]);
    }
    return out;
  }
}
