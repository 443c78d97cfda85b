// The secret matcher finds what a search of every value at every position finds (the longest
// occurrence ending at each position), whatever the order values were added in, including values
// that overlap, share their ends or their starts, are shorter than its anchor, or contain
// surrogate pairs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { SecretMatcher, type Occurrence } from '../redaction/secret-matcher.ts';

/** Every value at every position; per end, the longest; in end order. */
function bruteForce(values: string[], text: string): Occurrence[] {
  const out: Occurrence[] = [];
  const distinct = [...new Set(values)].filter((v) => v.length > 0);
  for (let end = 1; end <= text.length; end++) {
    let best: string | undefined;
    for (const v of distinct)
      if (v.length <= end && text.startsWith(v, end - v.length) && (best === undefined || v.length > best.length))
        best = v;
    if (best !== undefined) out.push({ start: end - best.length, end, value: best });
  }
  return out;
}

// Few letters, so that values overlap, repeat and share ends; a surrogate pair among them.
const letter = fc.constantFrom('a', 'b', 'c', '\u{1F600}');
const word = (min: number, max: number) => fc.array(letter, { minLength: min, maxLength: max }).map((l) => l.join(''));

void test('same occurrences as searching every value at every position', () => {
  fc.assert(
    fc.property(fc.array(word(1, 14), { maxLength: 12 }), fc.array(word(0, 10), { maxLength: 8 }), (words, fillers) => {
      // With some of their own suffixes: values that end alike, nested in one another.
      const values = [...words, ...words.map((w, i) => w.slice(1 + (i % 4)))];
      // The text holds the values (some twice, some cut short) between fillers.
      const parts = words.flatMap((v, i) => [
        fillers[i % Math.max(1, fillers.length)] ?? '',
        v,
        i % 3 === 0 ? v.slice(1) : '',
      ]);
      const text = parts.join('');
      assert.deepEqual(new SecretMatcher(values).occurrences(text), bruteForce(values, text));
      // Added one by one, in reverse order, with a search in between: the same.
      const incremental = new SecretMatcher();
      for (const v of [...values].reverse()) {
        incremental.add(v);
        incremental.occurrences(text);
      }
      assert.deepEqual(incremental.occurrences(text), bruteForce(values, text));
    }),
    { seed: 20261124, numRuns: 400 },
  );
});

void test("tokens sharing their first characters (one issuer's JWT header) are told apart", () => {
  const header = 'eyJhbGciOiJFUzI1NiIsImtpZCI6IjEifQ.';
  const tokens = Array.from({ length: 50 }, (_, i) => `${header}payload${i}.signature-${i * 7919}`);
  const m = new SecretMatcher(tokens);
  const text = `a ${tokens[17]} b ${header}payload17.signature-unknown c ${tokens[49]}`;
  assert.deepEqual(
    m.occurrences(text).map((o) => o.value),
    [tokens[17], tokens[49]],
  );
  assert.equal(m.size, 50);
});

void test('the limit keeps the first occurrences by end', () => {
  const m = new SecretMatcher(['abcdefghij', 'klmnopqrst']);
  assert.deepEqual(
    m.occurrences('klmnopqrst abcdefghij klmnopqrst', 2).map((o) => o.start),
    [0, 11],
  );
});
