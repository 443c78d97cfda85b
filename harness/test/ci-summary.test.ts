// ci-summary: the Markdown job summary (counts, each FAIL/UNCHECKED/WARN/BLOCKED requirement with
// its clause and reason, what ran outside the catalogue release, the reports' link), GitHub
// annotations escaped per the workflow-command rules, and key=value outputs appended to a file.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { githubAnnotations, markdownSummary, stepOutputs } from '../ci/ci-summary.ts';
import { ciSummaryMain } from '../commands/ci-summary.command.ts';
import type { ConformanceReport } from '../reporter/report.schema.ts';
import { temporaryDirectory } from './support/temporary-directory.ts';

const fixture = join(import.meta.dirname, 'fixtures', 'gate', 'report-planted-fail.json');
const report = JSON.parse(readFileSync(fixture, 'utf8')) as ConformanceReport;

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}

void describe('ci-summary', () => {
  void test('the Markdown summary lists each failing requirement with its clause; pipes and newlines cannot break the table', () => {
    const failing = report.requirements.find((r) => r.verdict === 'FAIL')!;
    const tricky: ConformanceReport = {
      ...report,
      requirements: report.requirements.map((r) =>
        r.id === failing.id ? { ...r, reason: 'got 404 | text/plain\nsecond line' } : r,
      ),
      notScored: [{ ...failing, id: 'LATER-001', verdict: 'WARN' }],
      catalogue: { version: '1', frozen: true, scored: report.requirements.length },
    };
    const md = markdownSummary(tricky, {
      reportsUrl: 'https://example.invalid/a/1',
      reportPath: 'reports/conformance.json',
    });
    assert.match(md, /^## token-conformance: FAIL — /);
    assert.match(
      md,
      /\| PASS \| FAIL \| WARN \| BLOCKED \| PENDING \| SKIP \| NOT_APPLICABLE \| UNCHECKED \| total \|\n\| (---: \| ){8}---: \|\n\| 3 \| 1 \| 0 \| 0 \| 0 \| 0 \| 0 \| 0 \| 4 \|/,
    );
    assert.ok(
      md.includes(
        `### FAIL (1)\n\n| requirement | clause | level | statement | reason |\n| --- | --- | --- | --- | --- |\n| ${failing.id} | ${failing.source} | ${failing.level} |`,
      ),
    );
    assert.ok(md.includes('| `got 404 \\| text/plain\\u{A}second line` |'), md);
    assert.match(md, /Not scored in catalogue 1 \(added later; never counted\): LATER-001 WARN\./);
    assert.match(
      md,
      /Reports: \[uploaded reports\]\(https:\/\/example\.invalid\/a\/1\) — `reports\/conformance\.json`/,
    );
  });

  void test('annotations: ::error for FAIL with the clause in the title, escaped', () => {
    const failing = report.requirements.find((r) => r.verdict === 'FAIL')!;
    const withPercent: ConformanceReport = {
      ...report,
      requirements: [{ ...failing, source: '§5.2, row 3: a', reason: '100% wrong\nnext' }],
    };
    assert.deepEqual(githubAnnotations(withPercent), [
      `::error title=FAIL ${failing.id} (§5.2%2C row 3%3A a)::${failing.statement} — 100%25 wrong%0Anext`,
    ]);
    assert.deepEqual(
      githubAnnotations({
        ...report,
        requirements: [{ ...failing, verdict: 'BLOCKED', blockedBy: ['X-1'], reason: 'no token' }],
      })[0]?.startsWith(`::warning title=BLOCKED ${failing.id}`),
      true,
    );
    assert.deepEqual(
      githubAnnotations({ ...report, requirements: report.requirements.filter((r) => r.verdict === 'PASS') }),
      [],
    );
  });

  void test('the command appends the summary and the outputs, prints the annotations; exit 2 on an unreadable report', async () => {
    const dir = temporaryDirectory('tc-ci-summary-');
    const summary = join(dir, 'summary.md');
    const outputs = join(dir, 'outputs');
    writeFileSync(summary, 'before\n');
    const c = capture();
    assert.equal(
      await ciSummaryMain([fixture, '--annotations'], c.io, { GITHUB_STEP_SUMMARY: summary, GITHUB_OUTPUT: outputs }),
      0,
    );
    assert.match(readFileSync(summary, 'utf8'), /^before\n## token-conformance: FAIL/);
    const lines = readFileSync(outputs, 'utf8').trim().split('\n');
    assert.ok(
      lines.includes('verdict=FAIL') &&
        lines.includes('fail=1') &&
        lines.includes('pass=3') &&
        lines.includes(`report=${fixture}`),
      lines.join('\n'),
    );
    assert.deepEqual(
      Object.keys(stepOutputs(report, 'r')).map((k) => lines.some((l) => l.startsWith(`${k}=`))),
      Object.keys(stepOutputs(report, 'r')).map(() => true),
    );
    assert.match(c.out[0]!, /^::error title=FAIL /);
    assert.match(c.out.at(-1)!, /^token-conformance: FAIL — 3 PASS, 1 FAIL/);
    const plain = capture();
    const dotenv = join(dir, 'conformance.env');
    writeFileSync(dotenv, 'CONFORMANCE_VERDICT=PASS\n');
    assert.equal(await ciSummaryMain([fixture, '--summary', join(dir, 'gl.md'), '--dotenv', dotenv], plain.io, {}), 0);
    const dotenvLines = readFileSync(dotenv, 'utf8').trim().split('\n');
    assert.equal(dotenvLines.filter((l) => l.startsWith('CONFORMANCE_VERDICT=')).length, 1, 'written afresh');
    assert.ok(
      dotenvLines.includes('CONFORMANCE_VERDICT=FAIL') && dotenvLines.includes('CONFORMANCE_NOT_APPLICABLE=0'),
      dotenvLines.join('\n'),
    );
    for (const l of dotenvLines) assert.match(l, /^[A-Z0-9_]+=/, 'a GitLab dotenv variable name');
    assert.match(plain.out[0]!, /^FAIL [A-Z-]+\d+ \(.+\): /);
    const bad = capture();
    assert.equal(await ciSummaryMain([join(dir, 'missing.json')], bad.io, {}), 2);
    assert.match(bad.err[0]!, /^token-conformance ci-summary: /);
  });
});
