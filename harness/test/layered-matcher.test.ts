// The redactor's growing matcher (core/redaction/layered-matcher.ts) finds exactly what one
// automaton over every value finds (SecretMatcher.ranges), however the additions and the searches
// interleave: values learnt between two searches are found by the next one.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LayeredMatcher } from '../../core/redaction/layered-matcher.ts';
import { SecretMatcher } from '../../core/redaction/secret-matcher.ts';

/** A small deterministic generator (so a failure replays). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

void describe('LayeredMatcher', () => {
  void test('finds what one SecretMatcher over every value finds, with additions and searches interleaved', () => {
    const next = random(18);
    const word = (min: number, max: number) => Array.from({ length: min + Math.floor(next() * (max - min + 1)) }, () => 'abcd'[Math.floor(next() * 4)]).join('');
    const layered = new LayeredMatcher();
    const all: string[] = [];
    for (let round = 0; round < 300; round++) {
      const adds = Math.floor(next() * 4);
      for (let i = 0; i < adds; i++) {
        const v = word(3, 9);
        if (all.includes(v)) continue;
        all.push(v);
        layered.add(v);
      }
      const text = word(0, 80);
      assert.deepEqual(layered.ranges(text), new SecretMatcher(all).ranges(text), `round ${round}: ${text}`);
    }
    assert.equal(layered.size, all.length);
    assert.ok(all.length > 200, 'enough values for several automaton levels');
  });

  void test('a value learnt after a search is found by the next one; nothing is found without values', () => {
    const m = new LayeredMatcher();
    assert.deepEqual(m.ranges('token-1234567890'), []);
    m.add('1234567890');
    assert.deepEqual(m.ranges('token-1234567890 and 1234567890'), [[6, 16], [21, 31]]);
  });
});
