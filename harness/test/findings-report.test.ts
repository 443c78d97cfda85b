// A target whose every token error has an empty body and no Content-Type: its failures read as one
// finding listing every requirement they break — in conformance.json, the terminal summary, the
// page and the job summary — with each requirement's verdict unchanged; the WARNs on a choice the
// profile did not declare stand apart, with the profile lines that declare it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { requirements as catalogue } from '../../requirements/index.ts';
import { markdownSummary } from '../ci/ci-summary.ts';
import { conformanceReportSchema } from '../reporter/report.schema.ts';
import { renderSummary } from '../reporter/terminal-summary.ts';
import { renderTraceability } from '../reporter/traceability-html.ts';
import { buildReport, type CheckOutcome } from '../reporter/verdict.ts';
import { applyWaivers } from '../waivers/waivers.ts';

const musts = catalogue.filter((r) => r.level === 'MUST' && !r.interpretation);
const emptyBodyIds = musts.slice(0, 21).map((r) => r.id);
const pragmaId = musts[21]!.id;
const assumedIds = musts.slice(22, 24).map((r) => r.id);
const expectedCodes = ['invalid_request', 'invalid_grant', 'invalid_client', 'unsupported_grant_type'];

const outcomes: CheckOutcome[] = [
  // Two wordings of one defect: the matchers' problem list, and a check's own message with the answer.
  ...emptyBodyIds.map((id, i): CheckOutcome => ({
    title: `empty body ${i}`,
    requirementIds: [id],
    status: 'failed',
    durationMs: 1,
    // A property among them: its replay stays printed though its requirement reads under the cause.
    ...(i === 1
      ? {
          property: {
            name: 'token-input-us',
            seed: 7,
            runs: 1,
            path: '0:1',
            replay: 'npx token-conformance run --seed 7',
          },
        }
      : {}),
    error:
      i % 3 === 0
        ? `the refusal is a JSON error — got HTTP 403 (no content-type) `
        : `expected token error ${expectedCodes[i % expectedCodes.length]}: status 403, expected 400; Content-Type (none), expected application/json; no string \`error\` member`,
  })),
  {
    title: 'pragma',
    requirementIds: [pragmaId],
    status: 'failed',
    durationMs: 1,
    error: 'client_credentials at US: Pragma — got Pragma: (none)',
  },
  ...assumedIds.map((id, i): CheckOutcome => ({
    title: `non-POST ${i}`,
    requirementIds: [id],
    status: 'failed',
    durationMs: 1,
    error: `GET to the token endpoint: status 404, expected 405`,
    assumed: [{ choice: 'nonPostTokenRequest=405', declare: 'interpretations.nonPostTokenRequest' }],
  })),
];

const report = buildReport(catalogue as never, outcomes, {
  level: 'all',
  filtered: true,
  strict: false,
  suiteVersion: '1.0.0',
  startedAt: new Date('2026-01-01T00:00:00Z'),
  durationMs: 10,
  target: { name: 'empty-body target', local: true, interpretations: {} },
});
const verdictOf = new Map(report.requirements.map((r) => [r.id, r.verdict]));
const profileLine = '"interpretations": { "nonPostTokenRequest": "404" }';

void describe('findings by cause in every output', () => {
  void test('conformance.json: one finding lists the 21 requirements; the assumed WARNs are an assumption, not a finding', () => {
    conformanceReportSchema.parse(report);
    assert.deepEqual(
      report.findings?.map((f) => [f.cause, f.verdict, f.requirements.length]),
      [
        ['content-type=none', 'FAIL', 21],
        ['header-missing=pragma', 'FAIL', 1],
      ],
    );
    assert.deepEqual(report.findings?.[0]?.requirements, emptyBodyIds);
    assert.deepEqual(report.assumptions, [
      {
        declare: 'interpretations.nonPostTokenRequest',
        assumed: 'nonPostTokenRequest=405',
        requirements: assumedIds,
        profileLine,
        observed: '404',
        values: ['"405"', '"invalid_request"', '"404"'],
      },
    ]);
    // The verdicts are the requirements' own.
    for (const id of [...emptyBodyIds, pragmaId]) assert.equal(verdictOf.get(id), 'FAIL');
    for (const id of assumedIds) assert.equal(verdictOf.get(id), 'WARN');
  });

  void test('terminal: the cause once with its 21 requirements, the single cause on its own line, the declarations apart', () => {
    const text = renderSummary(report);
    const causeLines = text.split('\n').filter((l) => l.includes('no Content-Type'));
    assert.equal(causeLines.length, 1, text);
    assert.match(causeLines[0]!, /FAIL\s+21 × the answer has no Content-Type/);
    for (const id of emptyBodyIds) assert.ok(causeLines[0]!.includes(id), id);
    // No requirement of the group has a line of its own.
    const broken = text.slice(text.indexOf('\nBroken:'), text.indexOf('\nDeclare these'));
    assert.match(broken, new RegExp(`FAIL ${pragmaId} `));
    for (const id of [...emptyBodyIds, ...assumedIds]) assert.ok(!broken.includes(`${id} `), id);
    const declare = text.slice(text.indexOf('\nDeclare these'));
    assert.match(
      declare,
      new RegExp(`WARN ${assumedIds.join(' ')} — assumed nonPostTokenRequest=405; the answers point at 404`),
    );
    assert.ok(declare.includes(`         ${profileLine}\n`), declare);
    assert.ok(text.includes('\n  token-input-us: seed 7, path 0:1 — replay: npx token-conformance run --seed 7'), text);
    assert.match(
      text,
      /\nFindings: 2 findings for 24 FAIL\/WARN requirements; 1 choice to declare \(2 requirements WARN on an assumption\)\n/,
    );
  });

  void test('page: the findings and the declarations, escaped, each requirement linked', () => {
    const html = renderTraceability(report);
    assert.match(html, /<h2 id="findings">Findings by cause<\/h2>/);
    assert.match(html, /<strong>21 requirements<\/strong>: the answer has no Content-Type/);
    assert.match(html, /<h2 id="declare">Declare these<\/h2>/);
    assert.ok(
      html.includes(`<pre>&quot;interpretations&quot;: { &quot;nonPostTokenRequest&quot;: &quot;404&quot; }</pre>`),
    );
    for (const id of assumedIds) assert.ok(html.includes(`<a href="#${id}">${id}</a>`));
  });

  void test('job summary: the cause in one row with its 21 requirements, the profile line in a JSON block', () => {
    const md = markdownSummary(report);
    // The cause sits in a code span, as every text a report shows in Markdown does (core/untrusted/neutralise.ts).
    const row = md.split('\n').find((l) => l.startsWith('| FAIL | `the answer has no Content-Type'));
    assert.ok(row, md);
    assert.equal(row.split('|')[3]!.trim().split(' ').length, 21);
    assert.match(md, /### Declare these \(1\)/);
    assert.ok(md.includes(`  \`\`\`json\n  ${profileLine}\n  \`\`\``), md);
    assert.match(md, /\*\*Findings:\*\* 2 findings for 24 FAIL\/WARN requirements/);
  });

  void test('a waived requirement leaves its cause: the outputs list what still fails', () => {
    const waived = applyWaivers(
      report,
      [{ requirement: emptyBodyIds[0]!, owner: 'team', justification: 'known', expires: '2099-12-31' }],
      new Date('2026-01-02T00:00:00Z'),
    );
    const text = renderSummary(waived);
    assert.match(text, /FAIL\s+20 × the answer has no Content-Type/);
    assert.ok(!text.split('\n').some((l) => l.includes('no Content-Type') && l.includes(`${emptyBodyIds[0]!} `)));
    assert.match(text, /\nFindings: 2 findings for 23 FAIL\/WARN requirements/);
  });
});
