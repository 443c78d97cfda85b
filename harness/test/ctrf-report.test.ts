// reports/ctrf.json: one CTRF test per requirement verdict, every verdict mapped (rawStatus keeps
// it), valid against CTRF's published JSON Schema (the schema file the `ctrf` package ships, from
// ctrf-io/ctrf) and accepted by that package's own validator.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { validate as ctrfValidate } from 'ctrf';
import { ctrfReport, ctrfStatusOf } from '../reporter/ctrf-report.ts';
import { scoreInCatalogue } from '../reporter/catalogue-scoring.ts';
import { writeReportFiles } from '../reporter/write-report-files.ts';
import { requirementVerdicts, type ConformanceReport, type RequirementResult } from '../reporter/report.schema.ts';
import { countVerdicts, overallVerdict } from '../reporter/verdict.ts';
import { temporaryDirectory } from './support/temporary-directory.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
// The package exports no package.json: its schema file sits beside its entry point's folder (dist/ → src/).
const ctrfSchemaFile = join(
  dirname(createRequire(import.meta.url).resolve('ctrf')),
  '..',
  'src',
  'ctrf-schema-0.0.json',
);
const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
const validateCtrf = ajv.compile(JSON.parse(readFileSync(ctrfSchemaFile, 'utf8')) as object);

function assertValidCtrf(doc: unknown): void {
  assert.equal(validateCtrf(doc), true, JSON.stringify(validateCtrf.errors, null, 2));
  const own = ctrfValidate(doc);
  assert.equal(own.valid, true, JSON.stringify(own.errors));
}

/** A report with one requirement per verdict (the fixture's first requirement as the model). */
function everyVerdictReport(): ConformanceReport {
  const base = JSON.parse(
    readFileSync(join(import.meta.dirname, 'fixtures', 'gate', 'report-planted-fail.json'), 'utf8'),
  ) as ConformanceReport;
  const model = base.requirements[0]!;
  const requirements: RequirementResult[] = requirementVerdicts.map((verdict, i) => ({
    ...model,
    id: `TEST-V-${String(i + 1).padStart(3, '0')}`,
    verdict,
    ...(verdict === 'PASS' ? {} : { reason: `why ${verdict}` }),
    ...(verdict === 'BLOCKED' ? { blockedBy: ['TEST-V-002'] } : {}),
    ...(verdict === 'PENDING' ? { due: '2026-12-01T00:00:00.000Z' } : {}),
    checks: model.checks.map((c) => ({ ...c, verdict: verdict === 'WAIVED' ? 'FAIL' : verdict, durationMs: 12.6 })),
  }));
  const counts = countVerdicts(requirements);
  return { ...base, requirements, summary: { ...counts, total: requirements.length }, verdict: overallVerdict(counts) };
}

void describe('CTRF report', () => {
  void test('one test per requirement verdict, each verdict mapped and kept as rawStatus, valid against the CTRF schema', () => {
    const report = everyVerdictReport();
    const doc = ctrfReport(report, new Date('2026-11-26T04:00:00Z'));
    assertValidCtrf(doc);
    assert.equal(doc.results.tests.length, report.requirements.length);
    const byRaw = new Map(doc.results.tests.map((t) => [t.rawStatus, t]));
    const expected = {
      PASS: 'passed',
      FAIL: 'failed',
      UNCHECKED: 'failed',
      WARN: 'other',
      WAIVED: 'other',
      BLOCKED: 'other',
      PENDING: 'pending',
      SKIP: 'skipped',
      NOT_APPLICABLE: 'skipped',
      UNOBSERVED: 'skipped',
    } as const;
    for (const verdict of requirementVerdicts) {
      assert.equal(byRaw.get(verdict)?.status, expected[verdict], verdict);
      assert.equal(ctrfStatusOf[verdict].status, expected[verdict]);
      assert.ok(
        (doc.extra.statusMapping as Record<string, string>)[verdict]!.startsWith(`${expected[verdict]}: `),
        `the mapping of ${verdict} is explained`,
      );
    }
    const fail = byRaw.get('FAIL')!;
    assert.equal(fail.message, `FAIL (${report.requirements[1]!.source}): why FAIL`, 'the clause, then the reason');
    assert.equal(fail.labels.clause, report.requirements[1]!.source);
    assert.deepEqual(byRaw.get('BLOCKED')!.labels.blockedBy, ['TEST-V-002']);
    assert.equal(byRaw.get('PENDING')!.labels.due, '2026-12-01T00:00:00.000Z');
    assert.equal(fail.duration, 13, 'milliseconds as an integer');
    const s = doc.results.summary;
    assert.deepEqual([s.tests, s.passed, s.failed, s.skipped, s.pending, s.other], [10, 1, 2, 3, 1, 3]);
    assert.equal(s.stop - s.start, Math.round(report.durationMs));
    assert.equal(doc.results.extra.verdict, 'FAIL');
  });

  void test('requirements outside the scored catalogue release read `other`, never failed; the failed count follows the verdict', () => {
    const report = everyVerdictReport();
    const release = {
      version: '1',
      frozenAt: '2026-11-26',
      requirements: report.requirements
        .filter((r) => r.verdict !== 'FAIL' && r.verdict !== 'UNCHECKED')
        .map((r) => r.id),
    };
    const scored = scoreInCatalogue(report, release);
    assert.equal(scored.verdict, 'WARN', 'without the FAIL and UNCHECKED requirements the run only warns');
    const doc = ctrfReport(scored);
    assertValidCtrf(doc);
    assert.equal(doc.results.summary.failed, 0);
    const notScored = doc.results.tests.filter((t) => t.labels.scored === false);
    assert.deepEqual(
      notScored.map((t) => [t.rawStatus, t.status, t.labels.notScoredIn]),
      [
        ['FAIL', 'other', '1'],
        ['UNCHECKED', 'other', '1'],
      ],
    );
    assert.match(notScored[0]!.message!, /not scored in catalogue 1: FAIL — why FAIL/);
  });

  void test('written beside conformance.json and traceability.html', () => {
    const dir = temporaryDirectory('tc-ctrf-');
    writeReportFiles(dir, everyVerdictReport());
    assertValidCtrf(JSON.parse(readFileSync(join(dir, 'ctrf.json'), 'utf8')));
    assert.equal(
      (JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8')) as ConformanceReport).requirements.length,
      requirementVerdicts.length,
    );
  });
});
