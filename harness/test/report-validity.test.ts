// Reports that are always valid: checks that fail with quotes, backslashes, control characters,
// unicode and secrets (embedded in longer strings, inside a JSON string of a property
// counterexample, also part of a check title, and one too short to redact) go through the real
// writers (the suite's playwright.config.ts: JUnit, allure-playwright, the conformance reporter)
// and the end-of-run step of `run`; then every report file is parsed, no secret may remain, and
// nothing the suite wrote itself (titles, file paths, hostile non-secret text) may be garbled.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { repoRoot } from '../catalogue/catalogue.ts';
import { loadProfile } from '../profile/load-profile.ts';
import { profileEnvVar, toWorkerProfile, writeWorkerProfile } from '../profile/worker-profile.ts';
import { listFiles } from '../redaction/report-files.ts';
import { endOfRunRedaction } from '../redaction/end-of-run.ts';
import { reporterEnv } from '../reporter/conformance.reporter.ts';

const secrets = {
  long: 'Zx81-long.secret~value',
  quoted: 'q"uo\\te-s3cret é',
  titled: 'TitleWord-2024',
  short: 'spec',
};
const seenToken = 'RTk9xQ2vLm8Pq4Rt7Wy1Ab3Cd6Ef9Gh2Jk5Np8';
const specFile = 'harness/test/fixtures/report-validity/hostile-output.spec.ts';
const describeTitle = 'protected call: Authorization: Bearer';
const titles = [
  `${specFile} › ${describeTitle} › REPORT-VALIDITY-1 a property counterexample carries a refresh token inside a JSON string`,
  `${specFile} › ${describeTitle} › REPORT-VALIDITY-2 the title names ${secrets.titled} and stays whole`,
  `${specFile} › ${describeTitle} › REPORT-VALIDITY-3 a failed assertion shows the received secret`,
];
/** Non-secret text of the failures that must come through unchanged. */
const hostileKept = 'backslash \\ tab \t bell \u0007';

/** The ways a value can appear in a file: raw, JSON-escaped, XML/HTML-escaped, form- and URI-encoded. */
function forms(value: string): string[] {
  const xml = value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
  return [...new Set([value, JSON.stringify(value).slice(1, -1), xml, xml.replace(/&quot;/g, '&#34;'), encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2)])];
}

/** Every string of a parsed JSON value. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => [k, ...strings(v)]);
  return [];
}

/** `text` with every occurrence of the suite's own titles (in any encoding) removed. */
function withoutTitles(text: string): string {
  let out = text;
  for (const t of [...titles, ...titles.map((t) => t.split(' › ').at(-1)!)]) for (const f of forms(t)) out = out.split(f).join('');
  return out;
}

function assertNoSecret(file: string, text: string): void {
  const rest = withoutTitles(text);
  for (const s of [secrets.long, secrets.quoted, secrets.titled, seenToken]) {
    for (const f of forms(s)) assert.ok(!rest.includes(f), `${file}: a secret survived (${JSON.stringify(f)})`);
  }
}

function runPlaywright(env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const cli = join(repoRoot, 'node_modules', '@playwright', 'test', 'cli.js');
    const config = join(import.meta.dirname, 'fixtures', 'report-validity', 'playwright.config.ts');
    const child = spawn(process.execPath, [cli, 'test', '--config', config], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

void describe('every report file parses, keeps its own text and holds no secret (hostile failures through the real writers)', () => {
  const temp = mkdtempSync(join(tmpdir(), 'tc-report-validity-'));
  const reports = join(temp, 'reports');
  let files: string[] = [];
  let endOfRun: { code: number; lines: string[] } = { code: -1, lines: [] };

  before(async () => {
    const loaded = loadProfile(join(repoRoot, 'profiles', 'reference.json'));
    const handoff = toWorkerProfile(loaded);
    const seen = join(temp, 'seen-tokens.txt');
    writeFileSync(seen, `${seenToken}\n`);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...handoff.env,
      [profileEnvVar]: writeWorkerProfile(handoff.profile, temp),
      TOKEN_CONFORMANCE_REPORTS_DIR: reports,
      [reporterEnv.seenTokens]: seen,
      [reporterEnv.quiet]: '1',
      [reporterEnv.verifiedByRun]: '1',
      TOKEN_CONFORMANCE_SECRET_LONG: secrets.long,
      TOKEN_CONFORMANCE_SECRET_QUOTED: secrets.quoted,
      TOKEN_CONFORMANCE_SECRET_TITLED: secrets.titled,
      TOKEN_CONFORMANCE_SECRET_SHORT: secrets.short,
      REPORT_VALIDITY_SEEN_TOKEN: seenToken,
    };
    delete env.CI;
    const { code, output } = await runPlaywright(env);
    assert.ok(code === 1 && /3 failed/.test(output), `the three hostile checks fail (exit 1), got ${code}:\n${output.slice(-3000)}`);
    // What `run` does once Playwright has ended.
    endOfRun = endOfRunRedaction(reports, env);
    files = listFiles(reports);
  });
  after(() => rmSync(temp, { recursive: true, force: true }));

  void test('the end-of-run step finds nothing to report (only that the short secret is not searched for by value)', () => {
    assert.deepEqual(endOfRun.lines, ['token-conformance run: note: 1 secret value(s) of the profile are shorter than 8 characters: they are redacted where they travel by name (client_secret=…, "password": …, Authorization: …) but not searched for by value, which would shred ordinary words']);
    assert.equal(endOfRun.code, 0);
  });

  void test('every JSON file parses and holds no secret in any string', () => {
    const json = files.filter((f) => extname(f) === '.json');
    assert.ok(json.some((f) => f.endsWith('conformance.json')) && json.some((f) => f.endsWith('checks.json')) && json.some((f) => f.includes('allure-results')), json.join('\n'));
    for (const file of json) {
      let parsed: unknown;
      assert.doesNotThrow(() => (parsed = JSON.parse(readFileSync(file, 'utf8'))), `${relative(reports, file)} is not valid JSON`);
      for (const s of strings(parsed)) assertNoSecret(relative(reports, file), s);
    }
  });

  void test('the JUnit XML is well-formed, holds no secret and keeps every title', () => {
    const xml = readFileSync(join(reports, 'junit.xml'), 'utf8');
    assert.equal(XMLValidator.validate(xml), true, 'junit.xml is well-formed');
    assertNoSecret('junit.xml', xml);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml) as { testsuites: { testsuite: { testcase: { name: string }[] | { name: string } } } };
    const cases = [parsed.testsuites.testsuite.testcase].flat().map((c) => c.name);
    for (const t of titles) assert.ok(cases.some((c) => c.endsWith(t.split(' › ').slice(1).join(' › '))), `junit keeps the title "${t}"; has ${JSON.stringify(cases)}`);
  });

  void test('every other text file holds no secret', () => {
    for (const file of files.filter((f) => !['.json', '.xml'].includes(extname(f)))) assertNoSecret(relative(reports, file), readFileSync(file, 'utf8'));
  });

  void test('conformance.json and checks.json keep titles, paths and non-secret text; secrets read [REDACTED]', () => {
    const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as { requirements: { checks: { title: string; file: string }[] }[] };
    const reportTitles = report.requirements.flatMap((r) => r.checks.map((c) => c.title));
    for (const t of titles) assert.ok(reportTitles.includes(t), `conformance.json keeps "${t}"; has ${JSON.stringify(reportTitles)}`);
    const { checks } = JSON.parse(readFileSync(join(reports, 'checks.json'), 'utf8')) as { checks: { title: string; file: string; error?: string; property?: { counterexample?: string; replay: string } }[] };
    assert.deepEqual(checks.map((c) => c.title).sort(), [...titles].sort());
    for (const c of checks) assert.equal(c.file, specFile, 'the file path is kept whole (it contains the short secret)');
    const property = checks.find((c) => c.title === titles[0])!.property;
    assert.ok(property?.counterexample, `the property run is reported: ${JSON.stringify(checks[0])}`);
    const counterexample = JSON.parse(property.counterexample) as { body: string; secret: string }[];
    assert.equal(counterexample[0]!.body, `refresh_token=[REDACTED]"\\"; faults quote " backslash \\ tab \t bell \u0007 nul \u0000 unicode é 😀 \u2028`);
    assert.equal(counterexample[0]!.secret, 'xx[REDACTED]yy');
    assert.equal(property.replay, 'TOKEN_CONFORMANCE_SEED=7 npx token-conformance run --grep "@property:hostile( |$)"');
    const error = checks.find((c) => c.title === titles[1])!.error!;
    assert.ok(error.startsWith('Error: expected "[REDACTED]" not to be echoed; got "[REDACTED]" and [REDACTED], quote " '), error);
    assert.ok(error.includes(hostileKept) && error.includes('unicode é 😀'), error);
  });

  void test('the HTML report keeps the titles', () => {
    const html = readFileSync(join(reports, 'traceability.html'), 'utf8');
    assertNoSecret('traceability.html', html);
    for (const t of titles) assert.ok(forms(t.split(' › ').at(-1)!).some((f) => html.includes(f)), `traceability.html keeps "${t}"`);
    assert.ok(forms(describeTitle).some((f) => html.includes(f)), 'the describe title is kept');
  });
});
