// The documents' requirement counts come from the catalogue: every example closing line of a run
// ("… of N requirements") in the README and docs/ names the catalogue's size, and its verdict
// counts add up to it. A requirement added without the documents following fails here.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { requirements } from '../../requirements/index.ts';

const root = join(import.meta.dirname, '..', '..');
const documents = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Lines that show a run's or an outlook's total over the whole catalogue. */
const totals = documents.flatMap((file) =>
  readFileSync(join(root, file), 'utf8')
    .split('\n')
    .map((line, i) => ({ file, line: i + 1, text: line }))
    .filter(({ text }) => /\bof \d+ requirements\b/.test(text) && !/frozen|release \d|catalogue version/i.test(text)),
);

void test('every example total in the README and docs/ is the catalogue size, and its verdict counts add up to it', () => {
  assert.ok(totals.length >= 3, `the documents show example totals (found ${totals.length})`);
  const wrong = totals.flatMap(({ file, line, text }) => {
    const total = Number(/\bof (\d+) requirements\b/.exec(text)![1]);
    const problems: string[] = [];
    if (total !== requirements.length) problems.push(`says ${total}, the catalogue has ${requirements.length}`);
    const verdicts = [...text.matchAll(/(\d+) (PASS|FAIL|WARN|BLOCKED|PENDING|SKIP|NOT_APPLICABLE|UNCHECKED)\b/g)];
    const sum = verdicts.reduce((n, m) => n + Number(m[1]), 0);
    if (text.includes('CONFORMANCE') && sum !== total) problems.push(`its verdict counts add up to ${sum}`);
    return problems.map((p) => `${file}:${line}: ${p}`);
  });
  assert.deepEqual(wrong, []);
});
