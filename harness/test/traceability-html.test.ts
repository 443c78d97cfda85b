// The traceability page: failures first (linked to their rows), then a filter over the matrix.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Script } from 'node:vm';
import type { ConformanceReport } from '../reporter/report.schema.ts';
import { renderTraceability } from '../reporter/traceability-html.ts';

const fixture = (name: string) => JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'gate', name), 'utf8')) as ConformanceReport;

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
  for (const area of new Set(report.requirements.map((r) => r.area))) assert.ok(html.includes(`<option value="${area}">`), area);
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1];
  assert.ok(script);
  assert.doesNotThrow(() => new Script(script), 'the inline script compiles');
});

void test('a clean report says nothing needs attention', () => {
  const html = renderTraceability(fixture('report-pass.json'));
  assert.match(html, /<h2 id="attention">Needs attention<\/h2><p>Nothing: /);
});
