// The traceability page: failures first (linked to their rows), then a filter over the matrix.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Script } from 'node:vm';
import type { ConformanceReport } from '../reporter/report.schema.ts';
import { renderTraceability } from '../reporter/traceability-html.ts';

const fixture = (name: string) =>
  JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'gate', name), 'utf8')) as ConformanceReport;

void test('a failing requirement is listed under "Needs attention" before the matrix, linked to its row', () => {
  const report = fixture('report-planted-fail.json');
  const failing = report.requirements.filter((r) => r.verdict === 'FAIL');
  assert.ok(failing.length > 0, 'the fixture has a FAIL');
  const html = renderTraceability(report);
  const attention = html.indexOf('<h2 id="attention">Needs attention');
  const matrix = html.indexOf('<h2 id="matrix">');
  assert.ok(attention > 0 && attention < matrix, 'the summary comes before the matrix');
  const listed = html.slice(attention, matrix);
  for (const r of failing) assert.ok(listed.includes(`<a href="#${r.id}">${r.id}</a>`), `${r.id} is listed and linked`);
  const passing = report.requirements.find((r) => r.verdict === 'PASS');
  if (passing) assert.ok(!listed.includes(`#${passing.id}"`), 'a PASS is not listed');
  assert.match(html, new RegExp(`<tr id="${failing[0]!.id}" data-verdict="FAIL" data-area="`));
});

void test('the filter offers the verdicts and areas present, and its script parses', () => {
  const report = fixture('report-planted-fail.json');
  const html = renderTraceability(report);
  assert.match(html, /<select name="verdict"><option value="">all<\/option>[^]*<option value="FAIL">FAIL<\/option>/);
  for (const area of new Set(report.requirements.map((r) => r.area)))
    assert.ok(html.includes(`<option value="${area}">`), area);
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1];
  assert.ok(script);
  assert.doesNotThrow(() => new Script(script), 'the inline script compiles');
});

void test('a clean report says nothing needs attention', () => {
  const html = renderTraceability(fixture('report-pass.json'));
  assert.match(html, /<h2 id="attention">Needs attention<\/h2><p>Nothing: /);
});

void test('the filter counts what it shows: every row before any script runs, and the script waits for the rows it counts', () => {
  const report = fixture('report-planted-fail.json');
  const html = renderTraceability(report);
  const rows = html.match(/<tr id="[^"]+" data-verdict=/g)?.length ?? 0;
  assert.equal(rows, report.requirements.length);
  assert.match(html, new RegExp(`<output name="shown">${rows} shown</output>`));
  // The script stands before the rows: run at parse time it must wait for them.
  assert.ok(html.indexOf('<script>') < html.indexOf('<tr id='), 'the script precedes the rows');
  assert.match(html, /document\.readyState === 'loading'\) document\.addEventListener\('DOMContentLoaded', apply\)/);
});

void test('each check links to its transcript(s); a profile error opens the page; the verified count says what would make the rest verifiable', () => {
  const report = fixture('report-planted-fail.json');
  const first = report.requirements[0]!;
  first.checks[0] = { ...first.checks[0]!, transcripts: ['transcripts/conformance--grants-x-0123abcd.txt'] };
  first.verdict = 'SKIP';
  first.reason = 'profile has no credentials.users.burnableUser';
  const html = renderTraceability({
    ...report,
    profileProblems: [
      'the target refused credentials.users.user.password in the preflight (HTTP 400 invalid_grant): fix it in the profile',
    ],
  });
  assert.match(html, /<a class="transcript" href="transcripts\/conformance--grants-x-0123abcd\.txt">transcript<\/a>/);
  assert.ok(html.indexOf('<div id="profile-error"') < html.indexOf('<h1>'), 'the banner comes first');
  assert.match(html, /credentials\.users\.user\.password/);
  assert.match(html, /<h2 id="verified">Verified: \d+ of \d+<\/h2>/);
  assert.match(
    html,
    new RegExp(`<li>declare a burnable user \\(credentials\\.users\\.burnableUser\\): 1 \\(<a href="#${first.id}">`),
  );
});
