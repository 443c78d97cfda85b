// show-report: the reports directory served on loopback, its reports listed, nothing outside it.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { showReportMain } from '../commands/show-report.command.ts';

const dir = mkdtempSync(join(tmpdir(), 'tc-show-report-'));
after(() => rmSync(dir, { recursive: true, force: true }));

void describe('token-conformance show-report', () => {
  void test('serves the directory on 127.0.0.1, lists the reports it holds, refuses paths outside it', async () => {
    const reports = join(dir, 'reports');
    mkdirSync(join(reports, 'allure-report'), { recursive: true });
    writeFileSync(join(reports, 'traceability.html'), '<h1>matrix</h1>');
    writeFileSync(join(reports, 'allure-report', 'index.html'), '<h1>allure</h1>');
    writeFileSync(join(dir, 'secret.txt'), 'outside');
    const out: string[] = [];
    let stop!: () => void;
    const stopped = new Promise<void>((r) => (stop = r));
    let announced!: (url: string) => void;
    const url = new Promise<string>((r) => (announced = r));
    const code = showReportMain(
      [reports],
      {
        out: (l) => {
          out.push(l);
          const m = /^Serving .* at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(l);
          if (m) announced(m[1]!);
        },
        err: (l) => out.push(l),
      },
      stopped,
    );
    const base = await url;
    try {
      assert.ok(out.some((l) => l.includes(`traceability page`) && l.endsWith(`${base}traceability.html`)));
      assert.ok(out.some((l) => l.includes('Allure report') && l.endsWith(`${base}allure-report/index.html`)));
      assert.equal(await (await fetch(`${base}traceability.html`)).text(), '<h1>matrix</h1>');
      const allure = await fetch(`${base}allure-report/`);
      assert.equal(allure.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.equal(await allure.text(), '<h1>allure</h1>');
      assert.equal((await fetch(`${base}..%2fsecret.txt`)).status, 404);
      assert.equal((await fetch(`${base}missing.html`)).status, 404);
    } finally {
      stop(); // a failed assertion must not leave the server open (the test would hang)
    }
    assert.equal(await code, 0);
  });

  void test('a directory that does not exist is one line, exit 2', async () => {
    const err: string[] = [];
    assert.equal(await showReportMain([join(dir, 'nope')], { out: () => {}, err: (l) => err.push(l) }), 2);
    assert.match(err[0]!, /is not a directory; give the --reports directory of a run/);
  });
});
