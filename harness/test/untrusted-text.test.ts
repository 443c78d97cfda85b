// The target's words are data wherever the tool shows them. The text payload corpus
// (support/hostile-target/text-payloads.ts) goes through the neutralising functions, through every
// writer (terminal summary, region parity, Markdown job summary, annotations and plain CI lines,
// the page, JUnit, CTRF, SARIF), and through a real `run` against a hostile target that answers
// every string it controls with the corpus: no workflow command, ESC, bidi or invisible character
// of the target's reaches stdout, stderr or the summary raw, no Markdown of the target's renders,
// and no token the target chose makes the run fail as if it leaked a secret.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromium } from '@playwright/test';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  consoleText,
  htmlText,
  markdownCell,
  markdownCode,
  oneLine,
  terminalOutput,
  visible,
  xmlAttribute,
  xmlCdata,
} from '../../core/untrusted/neutralise.ts';
import { githubAnnotations, markdownSummary, plainLines } from '../ci/ci-summary.ts';
import { renderParity } from '../parity/region-parity.ts';
import type { RegionParity } from '../parity/region-parity.schema.ts';
import { auditSarif } from '../audit/sarif.ts';
import { auditJunit } from '../audit/audit-junit.ts';
import { ctrfReport } from '../reporter/ctrf-report.ts';
import { renderJunit } from '../reporter/junit-report.ts';
import type { ConformanceReport } from '../reporter/report.schema.ts';
import { renderSummary } from '../reporter/terminal-summary.ts';
import { renderTraceability } from '../reporter/traceability-html.ts';
import { workflowCommands } from './composite-action-runner.ts';
import { runCli } from './support/run-cli.ts';
import { temporaryDirectory } from './support/temporary-directory.ts';
import {
  allTextPayloads,
  markdownRendered,
  rawCharacters,
  rawInLog,
  textPayloads,
} from './support/hostile-target/text-payloads.ts';
import { startTextTarget, type TextTarget } from './support/hostile-target/text-target.ts';

const fixture = join(import.meta.dirname, 'fixtures', 'gate', 'report-planted-fail.json');
const hostile = allTextPayloads;
/** Debian's Chromium, as the portal's browser tests use it (no browser download works here). */
const chromiumPath = '/usr/bin/chromium';
const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A report whose every field the target can reach carries the whole corpus. */
function hostileReport(): ConformanceReport {
  const report = JSON.parse(readFileSync(fixture, 'utf8')) as ConformanceReport;
  const parity: RegionParity = {
    compared: true,
    aspects: [
      {
        aspect: 'error.bad_client_secret',
        us: `400 ${hostile}`,
        eu: `401 ${hostile}`,
        status: 'unexplained',
        note: hostile,
      },
    ],
    counts: { same: 0, explained: 0, unexplained: 1 },
  };
  const verdicts = ['FAIL', 'WARN', 'BLOCKED', 'UNCHECKED', 'SKIP'] as const;
  return {
    ...report,
    profileProblems: [`credentials.clients.usClient.clientSecret refused: HTTP 401 ${hostile}`, hostile],
    regionParity: parity,
    requirements: report.requirements.map((r, i) => ({
      ...r,
      verdict: verdicts[i % verdicts.length]!,
      reason: hostile,
      ...(verdicts[i % verdicts.length] === 'BLOCKED' ? { blockedBy: ['GRANT-CC-001'] } : {}),
      checks: r.checks.map((c) => ({ ...c, reason: hostile })),
    })),
    audit: {
      findings: [
        {
          requirement: report.requirements[0]!.id,
          verdict: 'FAIL',
          message: hostile,
          exchanges: [{ file: 'traffic.har', index: 0, time: '2026-01-01T00:00:00Z' }],
        },
      ],
    } as unknown as ConformanceReport['audit'],
  };
}

/** The lines a runner would act on in `log`, other than the tool's own annotations. */
const foreignCommands = (log: string) =>
  workflowCommands(log).filter(
    (c) =>
      !(['error', 'warning'].includes(c.command) && /^title=(FAIL|UNCHECKED|WARN|BLOCKED) [A-Z]/.test(c.properties)),
  );

void describe('the neutralising functions, payload by payload', () => {
  for (const p of textPayloads)
    void test(p.name, () => {
      for (const [name, out] of [
        ['consoleText', consoleText(p.text)],
        ['terminalOutput', terminalOutput(p.text)],
        ['terminalOutput on a terminal', terminalOutput(p.text, true)],
      ] as const) {
        assert.deepEqual(rawInLog(out), [], `${name}: ${JSON.stringify(out)}`);
        assert.ok(!out.includes('\n'), `${name} stays on one line`);
      }
      assert.ok(!oneLine(p.text).includes('\n'));
      for (const [name, out] of [
        ['oneLine', oneLine(p.text)],
        ['visible', visible(p.text)],
        ['htmlText', htmlText(p.text)],
        ['xmlAttribute', xmlAttribute(p.text)],
        ['xmlCdata', xmlCdata(p.text)],
      ] as const)
        assert.deepEqual(rawCharacters(out), [], `${name}: ${JSON.stringify(out)}`);
      assert.doesNotMatch(htmlText(p.text), /[<>"']/);
      assert.equal(xmlCdata(p.text).match(/]]>/g)?.length, (p.text.match(/]]>/g)?.length ?? 0) + 1);
      for (const md of [markdownCode(p.text), `| x | ${markdownCell(p.text)} |`]) {
        assert.deepEqual(rawInLog(md), [], md);
        assert.deepEqual(markdownRendered(md), [], md);
      }
      assert.equal(
        `| ${markdownCell(p.text)} |`.replace(/\\\|/g, '').split('|').length,
        3,
        'a pipe never ends the cell',
      );
    });

  void test('an unseen character becomes its code point, never dropped; plain text is left alone', () => {
    assert.equal(visible('a\u202eb\u0000c\u200bd'), 'a\\u{202E}b\\u{0}c\\u{200B}d');
    assert.equal(oneLine('a\r\nb\tc'), 'a\\u{A}b\\u{9}c');
    assert.equal(visible('é 😀 日本 — naïve'), 'é 😀 日本 — naïve');
    assert.equal(markdownCode('a ``` b'), '````a ``` b````');
    assert.equal(markdownCode('`x`'), '`` `x` ``');
    assert.equal(terminalOutput('  ::error::x'), '|   ::error::x');
    assert.equal(terminalOutput('\u001b[31mFAIL\u001b[0m \u001b[2J', true), '\u001b[31mFAIL\u001b[0m \\u{1B}[2J');
    assert.equal(consoleText('see ##vso[task.complete]'), 'see #\\u{23}vso[task.complete]');
  });
});

void describe('every writer, fed the corpus', () => {
  const report = hostileReport();

  void test('the terminal summary and the region-parity block (plain and coloured)', () => {
    assert.deepEqual(rawInLog(renderSummary(report, false)), []);
    // The summary's own colours taken out: what is left must hold no ESC at all.
    // eslint-disable-next-line no-control-regex
    const coloured = renderSummary(report, true).replace(/\u001b\[\d+m/g, '');
    assert.deepEqual(rawInLog(coloured), []);
    assert.deepEqual(rawInLog(renderParity(report.regionParity!).join('\n')), []);
    assert.ok(renderSummary(report, false).includes('::add-mask::MASKED-BY-TARGET'), 'the text is shown, inert');
  });

  void test('the Markdown job summary, the annotations and the plain CI lines', () => {
    const md = markdownSummary(report, { reportPath: 'reports/conformance.json' });
    assert.deepEqual(rawInLog(md), []);
    assert.deepEqual(markdownRendered(md), []);
    assert.ok(md.includes('[Re-authenticate here](http://evil.example/login)'), 'the text is shown, in code');
    const annotations = githubAnnotations(report).join('\n');
    assert.deepEqual(foreignCommands(annotations), []);
    assert.equal(workflowCommands(annotations).length, githubAnnotations(report).length, 'one command a line');
    assert.deepEqual(rawCharacters(annotations), []);
    assert.deepEqual(rawInLog(plainLines(report).join('\n')), []);
  });

  void test('the page: no element, attribute or script of the target; every character visible', () => {
    const html = renderTraceability(report);
    assert.equal(html.match(/<script/gi)?.length, 1, "the page's own filter script only");
    assert.doesNotMatch(html, /<img|<details|onerror=alert\(1\)>|" autofocus/i);
    assert.deepEqual(rawCharacters(html), []);
    assert.ok(html.includes('&lt;script&gt;alert(&quot;page&quot;)&lt;/script&gt;'), 'the text is shown, escaped');
  });

  void test(
    'the page in Chromium: no script, handler or element of the target runs or renders',
    { skip: existsSync(chromiumPath) ? false : `Debian's chromium is not installed at ${chromiumPath}` },
    async () => {
      const dir = temporaryDirectory('tc-hostile-page-');
      const file = join(dir, 'traceability.html');
      writeFileSync(file, renderTraceability(report));
      const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
      try {
        const page = await browser.newPage();
        const dialogs: string[] = [];
        // Every script payload of the corpus calls alert(): a dialog is a script of the target running.
        page.on('dialog', (d) => {
          dialogs.push(d.message());
          void d.dismiss();
        });
        await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
        assert.deepEqual(dialogs, [], 'no script of the target ran');
        assert.equal(await page.locator('img, details, iframe, object, embed').count(), 0, 'no element of the target');
        assert.equal(await page.locator('script').count(), 1, "the page's own filter script only");
        assert.ok((await page.textContent('body'))!.includes('<script>alert("page")</script>'), 'shown as text');
      } finally {
        await browser.close();
      }
    },
  );

  void test('JUnit (the run and the audit), CTRF and SARIF', () => {
    const junit = renderJunit(
      [
        {
          name: hostile,
          project: 'conformance',
          cases: [
            {
              name: hostile,
              classname: 'x',
              timeSeconds: 0,
              properties: [{ name: 'reason', value: hostile }],
              outcome: { kind: 'failure', message: hostile, text: `${hostile} ]]> ${hostile}` },
              stdout: hostile,
            },
          ],
        },
      ],
      new Date(0),
      0,
    );
    for (const [name, text] of [
      ['junit', junit],
      ['audit junit', auditJunit(report)],
      ['ctrf', JSON.stringify(ctrfReport(report))],
      ['sarif', JSON.stringify(auditSarif(report))],
    ] as const) {
      assert.deepEqual(rawCharacters(text), [], name);
      assert.ok(text.includes('MASKED-BY-TARGET'), `${name} shows the text`);
    }
    // Markup of the target's only inside CDATA, where it is text.
    assert.doesNotMatch(junit.replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, ''), /<img|<script|onerror=alert\(1\)>/);
  });
});

void describe('a run against a hostile target (the real CLI)', () => {
  let target: TextTarget;
  let dir: string;
  let run: { code: number; out: string };
  before(async () => {
    // Its token is a word of the page: the end-of-run scan must not take it for a leaked secret.
    target = await startTextTarget({ accessToken: () => 'requirements' });
    dir = temporaryDirectory('tc-hostile-');
    writeFileSync(join(dir, 'profile.json'), JSON.stringify(target.profile));
    run = await runCli([
      'run',
      '--target',
      join(dir, 'profile.json'),
      '--reports',
      join(dir, 'reports'),
      '--skip-preflight',
      '--requirement',
      'GRANT-CC-001,ERR-TOK-001',
      '--passes',
      'conformance',
      '--reporter',
      'list',
    ]);
  });
  after(() => target.close());

  void test('stdout and stderr: the text is there, inert', { timeout: 180_000 }, () => {
    assert.equal(run.code, 1, run.out);
    assert.ok(run.out.includes('::add-mask::MASKED-BY-TARGET'), 'the region parity quotes the target');
    assert.deepEqual(rawInLog(run.out), [], run.out);
    assert.deepEqual(foreignCommands(run.out), []);
  });

  void test('the job summary, the page, JUnit, CTRF and the transcripts', async () => {
    const reports = join(dir, 'reports');
    const summaryFile = join(dir, 'summary.md');
    const summary = await runCli(['ci-summary', join(reports, 'conformance.json'), '--summary', summaryFile]);
    assert.equal(summary.code, 0, summary.out);
    const md = readFileSync(summaryFile, 'utf8');
    assert.deepEqual(rawInLog(md), []);
    assert.deepEqual(markdownRendered(md), [], md);
    assert.deepEqual(rawInLog(summary.out), [], summary.out);
    const transcripts = readdirSync(join(reports, 'transcripts')).map((f) => join('transcripts', f));
    assert.ok(transcripts.length > 0);
    // checks.json is data read back (merge, --last-failed): JSON escapes its controls, its text is kept exact.
    for (const file of ['traceability.html', 'junit.xml', 'ctrf.json', ...transcripts]) {
      const text = readFileSync(join(reports, file), 'utf8');
      assert.deepEqual(rawCharacters(text), [], file);
    }
    const html = readFileSync(join(reports, 'traceability.html'), 'utf8');
    assert.equal(html.match(/<script/gi)?.length, 1, "the page's own filter script only");
    assert.doesNotMatch(html, /<img|<details/i);
  });

  void test("a token the target issued that matches the page's own words is named, never a leak (no exit 2)", () => {
    assert.notEqual(run.code, 2);
    assert.doesNotMatch(run.out, /do not share these reports/);
    assert.match(
      run.out,
      /a token the target issued \(12 characters\) remains in this file .*not a secret of the profile/,
    );
  });
});
