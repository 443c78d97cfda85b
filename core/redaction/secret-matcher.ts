// A multi-pattern matcher: every occurrence of any of a run's known secret values in one pass over
// a text, however many values there are (the profile's secrets and every token the run saw, each
// in several encodings: thousands in a long run), and values added at any time at constant cost.
// Used by the redactor (replace; a worker learns a token with almost every answer) and by the
// end-of-run verification (find).
//
// Each value is filed under a hash of its last `anchorLength` code units. One pass over the text
// keeps the rolling hash of the window ending at each position; where it is the anchor of some
// values (a 64 K-entry filter answers "none" for almost every position without a lookup), the
// values filed there are compared with the text ending at that position, longest first. Anchoring
// on the end (not the start) keeps the buckets small: the tokens of one issuer share their first
// characters (a JWT's header), never their last ones (the signature). Values shorter than the
// anchor are searched one by one (the redactor never registers any; the verification neither).
// Not an Aho–Corasick automaton: it also finds everything in one pass, but must be rebuilt whole
// (a Map per trie node) whenever a value is added, and a worker adds one with almost every answer.

/** One occurrence: [start, end) in the text, and the value found. */
export interface Occurrence {
  start: number;
  end: number;
  value: string;
}

const anchorLength = 8;
const base = 0x01000193;
/** base ** (anchorLength - 1), modulo 2 ** 32: what the outgoing code unit weighs in the rolling hash. */
const outgoingWeight = (() => {
  let w = 1;
  for (let i = 1; i < anchorLength; i++) w = Math.imul(w, base);
  return w;
})();
/** Small-integer map keys (V8 stores them without allocation). */
const keyOf = (hash: number) => hash & 0x3fffffff;
const filterIndex = (key: number) => (key ^ (key >>> 16)) & 0xffff;

/** The hash of `text`'s `anchorLength` code units ending before `end`. */
function anchorHash(text: string, end: number): number {
  let h = 0;
  for (let i = end - anchorLength; i < end; i++) h = (Math.imul(h, base) + text.charCodeAt(i)) | 0;
  return h;
}

export class SecretMatcher {
  private readonly known = new Set<string>();
  /** Values by anchor key, longest first. */
  private readonly byAnchor = new Map<number, string[]>();
  /** Whether any anchor key falls on this filter index. */
  private readonly filter = new Uint8Array(0x10000);
  /** Values shorter than the anchor. */
  private readonly short: string[] = [];

  constructor(values: Iterable<string> = []) {
    for (const v of values) this.add(v);
  }

  /** Registers one more value (no-op for an empty or already known one). */
  add(value: string): void {
    if (value.length === 0 || this.known.has(value)) return;
    this.known.add(value);
    if (value.length < anchorLength) {
      this.short.push(value);
      return;
    }
    const key = keyOf(anchorHash(value, value.length));
    const bucket = this.byAnchor.get(key);
    if (bucket === undefined) this.byAnchor.set(key, [value]);
    else {
      let at = 0;
      while (at < bucket.length && bucket[at]!.length >= value.length) at++;
      bucket.splice(at, 0, value);
    }
    this.filter[filterIndex(key)] = 1;
  }

  get size(): number {
    return this.known.size;
  }

  /**
   * Every occurrence, the longest one ending at each position (shorter values ending there lie
   * inside it), in the order of their ends; `limit` keeps the first few only.
   */
  occurrences(text: string, limit = Infinity): Occurrence[] {
    const found: Occurrence[] = [];
    if (this.byAnchor.size > 0 && text.length >= anchorLength) {
      let h = anchorHash(text, anchorLength);
      for (let end = anchorLength; ; end++) {
        const key = keyOf(h);
        if (this.filter[filterIndex(key)] === 1) {
          const bucket = this.byAnchor.get(key);
          if (bucket !== undefined) {
            for (const value of bucket) {
              const start = end - value.length;
              if (start >= 0 && text.startsWith(value, start)) {
                found.push({ start, end, value });
                break;
              }
            }
          }
        }
        if (end === text.length) break;
        h =
          (Math.imul(h - Math.imul(text.charCodeAt(end - anchorLength), outgoingWeight), base) + text.charCodeAt(end)) |
          0;
      }
    }
    if (this.short.length > 0) this.addShortOccurrences(text, found);
    return found.length > limit ? found.slice(0, limit) : found;
  }

  /** The short values' occurrences merged into `found`: still one per end (the longest), in end order. */
  private addShortOccurrences(text: string, found: Occurrence[]): void {
    const byEnd = new Map<number, Occurrence>(found.map((o) => [o.end, o]));
    for (const value of this.short) {
      for (let start = text.indexOf(value); start >= 0; start = text.indexOf(value, start + 1)) {
        const end = start + value.length;
        const there = byEnd.get(end);
        if (there === undefined || there.value.length < value.length) byEnd.set(end, { start, end, value });
      }
    }
    found.length = 0;
    found.push(...[...byEnd.values()].sort((a, b) => a.end - b.end));
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
