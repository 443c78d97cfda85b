// Waivers: the schema file is current, the file is validated, and a waived FAIL is WAIVED (not
// hidden), an expired waiver is a FAIL again, a waiver on a passing requirement is FIXED.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createAjv } from '../../schemas/index.ts';
import { serializeSchema, waiversJsonSchema, waiversSchemaFile } from '../waivers/emit-waivers-schema.ts';
import { readReport } from '../reporter/read-report.ts';
import {
  applyWaivers,
  applyWaiversToRun,
  isExpired,
  loadWaivers,
  waiversOf,
  withoutWaivers,
  WaiversError,
} from '../waivers/waivers.ts';
import { parseRunArgs, runMain } from '../commands/run.command.ts';
import type { Waiver } from '../waivers/waivers.schema.ts';
import { conformanceReportSchema } from '../reporter/report.schema.ts';
import { renderTraceability } from '../reporter/traceability-html.ts';
import { temporaryDirectory } from './support/temporary-directory.ts';

const fixtures = join(import.meta.dirname, 'fixtures', 'gate');
const planted = () => readReport(join(fixtures, 'report-planted-fail.json'));
const passing = () => readReport(join(fixtures, 'report-pass.json'));
const before = new Date('2026-11-22T10:00:00Z');
const after = new Date('2027-01-01T00:00:01Z');
const waiver = (over: Partial<Waiver> = {}): Waiver => ({
  requirement: 'TOKEN-REQ-001',
  owner: 'team-a',
  justification: 'known gateway gap',
  expires: '2026-12-31',
  ...over,
});

void describe('waivers schema', () => {
  void test('schemas/waivers.schema.json matches the zod schema', () => {
    assert.equal(
      readFileSync(waiversSchemaFile, 'utf8'),
      serializeSchema(waiversJsonSchema()),
      'stale: run `node --import tsx harness/waivers/emit-waivers-schema.ts`',
    );
  });

  void test("it compiles with the contract's ajv and accepts the fixture", () => {
    const validate = createAjv().compile(waiversJsonSchema());
    assert.ok(
      validate(JSON.parse(readFileSync(join(fixtures, 'waivers.json'), 'utf8'))),
      JSON.stringify(validate.errors),
    );
    assert.equal(
      validate({ waivers: [{ requirement: 'TOKEN-REQ-001', owner: 'x', justification: 'y' }] }),
      false,
      'expires is required',
    );
  });

  void test('loadWaivers refuses a bad file with one line per problem, naming the field', () => {
    const dir = temporaryDirectory('tc-waivers-');
    const file = join(dir, 'w.json');
    writeFileSync(
      file,
      JSON.stringify({
        waivers: [{ requirement: 'token-req-1', owner: '', justification: 'j', expires: '31/12/2026', extra: 1 }],
      }),
    );
    assert.throws(
      () => loadWaivers(file),
      (e: Error) =>
        e instanceof WaiversError &&
        /waivers\.0\.requirement/.test(e.message) &&
        /waivers\.0\.expires/.test(e.message) &&
        /waivers\.0\.owner/.test(e.message) &&
        /unknown key "extra"/.test(e.message),
    );
    writeFileSync(file, JSON.stringify({ waivers: [waiver(), waiver()] }));
    assert.throws(() => loadWaivers(file), /waived twice/);
    assert.throws(() => loadWaivers(join(dir, 'missing.json')), /cannot read/);
    assert.equal(loadWaivers(join(fixtures, 'waivers.json')).waivers.length, 1);
  });

  void test('expiry is inclusive of the last day (UTC)', () => {
    assert.equal(isExpired({ expires: '2026-12-31' }, new Date('2026-12-31T23:59:59Z')), false);
    assert.equal(isExpired({ expires: '2026-12-31' }, new Date('2027-01-01T00:00:00Z')), true);
  });
});

void describe('applying waivers', () => {
  void test('a waived FAIL is WAIVED, keeps its original verdict and reason, and the run passes', () => {
    const r = applyWaivers(planted(), [waiver()], before);
    const req = r.requirements.find((x) => x.id === 'TOKEN-REQ-001')!;
    assert.equal(req.verdict, 'WAIVED');
    assert.equal(req.waiver?.originalVerdict, 'FAIL');
    assert.equal(req.waiver?.status, 'applied');
    assert.match(req.reason ?? '', /GET \/token answered 200/);
    assert.equal(req.checks[0]!.verdict, 'FAIL', 'the check keeps its verdict');
    assert.equal(r.verdict, 'PASS');
    assert.equal(r.summary.FAIL, 0);
    assert.equal(r.summary.WAIVED, 1);
    assert.deepEqual(
      r.waivers?.entries.map((e) => e.status),
      ['applied'],
    );
    assert.ok(conformanceReportSchema.safeParse(r).success, 'the waived report is a valid report');
    assert.match(renderTraceability(r), /WAIVED[\s\S]*waiver applied \(was FAIL; owner team-a/);
  });

  void test('an expired waiver turns back into a FAIL', () => {
    const r = applyWaivers(planted(), [waiver()], after);
    const req = r.requirements.find((x) => x.id === 'TOKEN-REQ-001')!;
    assert.equal(req.verdict, 'FAIL');
    assert.equal(req.waiver?.status, 'expired');
    assert.equal(r.verdict, 'FAIL');
    assert.deepEqual(
      r.waivers?.entries.map((e) => e.status),
      ['expired'],
    );
  });

  void test('a waiver matching no failure is FIXED; one on a requirement not in the run is not-verified', () => {
    const r = applyWaivers(passing(), [waiver(), waiver({ requirement: 'GATEWAY-999' })], before);
    assert.deepEqual(
      r.waivers?.entries.map((e) => [e.requirement, e.status]),
      [
        ['TOKEN-REQ-001', 'fixed'],
        ['GATEWAY-999', 'not-verified'],
      ],
    );
    assert.deepEqual(r.waivers?.fixed, ['TOKEN-REQ-001']);
    assert.equal(r.verdict, 'PASS');
  });

  void test('a waiver limited to a check: covers the failing check whose title contains the text, else FIXED', () => {
    const covered = applyWaivers(planted(), [waiver({ check: 'HTTP method' })], before);
    assert.equal(covered.requirements.find((x) => x.id === 'TOKEN-REQ-001')!.verdict, 'WAIVED');
    const other = applyWaivers(planted(), [waiver({ check: 'some other check' })], before);
    assert.equal(other.requirements.find((x) => x.id === 'TOKEN-REQ-001')!.verdict, 'FAIL');
    assert.deepEqual(
      other.waivers?.entries.map((e) => e.status),
      ['fixed'],
    );
  });

  void test('a WARN can be waived too; the report without waivers is the original', () => {
    const warned = planted();
    warned.requirements[0]!.verdict = 'WARN';
    warned.requirements[0]!.checks[0]!.verdict = 'WARN';
    const r = applyWaivers(warned, [waiver()], before);
    assert.equal(r.requirements[0]!.waiver?.originalVerdict, 'WARN');
    const original = planted();
    const roundTrip = withoutWaivers(applyWaivers(original, [waiver()], before));
    assert.deepEqual(roundTrip, original);
  });

  void test('waivers recorded in a report are judged again later (run --waivers, then gate after expiry)', () => {
    const atRun = applyWaivers(planted(), [waiver()], before);
    assert.equal(atRun.verdict, 'PASS');
    const later = applyWaivers(atRun, waiversOf(atRun), after);
    assert.equal(later.verdict, 'FAIL');
    assert.equal(later.requirements[0]!.waiver?.status, 'expired');
  });

  void test('a report judged without waivers is unchanged (existing consumers)', () => {
    const r = planted();
    assert.equal(withoutWaivers(r), r);
    assert.equal('WAIVED' in r.summary, false);
  });
});

void describe('run --waivers', () => {
  void test('parsed, and a bad waivers file stops the run before anything runs (exit 2)', async () => {
    const parsed = parseRunArgs(['--target', 'p.json', '--waivers', 'w.json']);
    assert.ok(parsed !== 'help' && parsed.waivers === 'w.json');
    const dir = temporaryDirectory('tc-run-waivers-');
    writeFileSync(
      join(dir, 'w.json'),
      '{"waivers":[{"requirement":"TOKEN-REQ-001","owner":"x","justification":"y","expires":"soon"}]}',
    );
    const lines: string[] = [];
    const code = await runMain(
      [
        '--target',
        join(import.meta.dirname, '..', '..', 'profiles', 'reference.json'),
        '--waivers',
        join(dir, 'w.json'),
        '--reports',
        join(dir, 'reports'),
      ],
      { out: (l) => lines.push(l), err: (l) => lines.push(l) },
    );
    assert.equal(code, 2);
    assert.match(lines.join('\n'), /waivers\.0\.expires/);
  });

  void test("the run's conformance.json and traceability.html are rewritten with the waivers, and the verdict follows", () => {
    const dir = temporaryDirectory('tc-run-waivers-');
    const lines: string[] = [];
    const waived = applyWaiversToRun(
      dir,
      planted(),
      loadWaivers(join(fixtures, 'waivers.json')),
      (l) => lines.push(l),
      before,
    );
    assert.equal(waived.verdict, 'PASS');
    const written = readReport(join(dir, 'conformance.json'));
    assert.equal(written.requirements.find((r) => r.id === 'TOKEN-REQ-001')?.verdict, 'WAIVED');
    assert.equal(written.waivers?.file, join(fixtures, 'waivers.json'));
    assert.match(written.waivers?.sha256 ?? '', /^[0-9a-f]{64}$/);
    assert.match(readFileSync(join(dir, 'traceability.html'), 'utf8'), /WAIVED/);
    assert.match(
      lines.join('\n'),
      /WAIVED\s+TOKEN-REQ-001[\s\S]*CONFORMANCE PASS after waivers: 0 FAIL, 0 WARN, 1 WAIVED/,
    );
  });

  void test(
    'a full run with --waivers: a waiver on a passing requirement is reported FIXED',
    { timeout: 120_000 },
    async () => {
      const dir = temporaryDirectory('tc-run-waivers-');
      writeFileSync(
        join(dir, 'w.json'),
        JSON.stringify({
          waivers: [
            { requirement: 'GRANT-CC-001', owner: 'team-a', justification: 'was broken', expires: '2099-01-01' },
          ],
        }),
      );
      const lines: string[] = [];
      const code = await runMain(
        [
          '--target',
          join(import.meta.dirname, '..', '..', 'profiles', 'reference.json'),
          '--start-reference',
          '--grep',
          '@GRANT-CC-001',
          '--waivers',
          join(dir, 'w.json'),
          '--reports',
          join(dir, 'reports'),
        ],
        { out: (l) => lines.push(l), err: (l) => lines.push(l) },
      );
      assert.equal(code, 0, lines.slice(-20).join('\n'));
      assert.match(lines.join('\n'), /FIXED\s+GRANT-CC-001 — passes now \(PASS\): remove the waiver/);
      assert.deepEqual(readReport(join(dir, 'reports', 'conformance.json')).waivers?.fixed, ['GRANT-CC-001']);
    },
  );
});
