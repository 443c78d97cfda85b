// `gate` and `diff` end to end on fixture reports: red on a planted deviation, green with a
// waiver, red again once the waiver expires; --strict, --json, --break-glass; diff lists.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { diffMain } from '../commands/diff.command.ts';
import { gateMain } from '../commands/gate.command.ts';
import { readReport } from '../gate/gate.ts';
import type { GateDecision } from '../gate/gate.ts';
import type { ReportDiff } from '../gate/diff.ts';
import { main } from '../cli.ts';

const fixtures = join(import.meta.dirname, 'fixtures', 'gate');
const planted = join(fixtures, 'report-planted-fail.json');
const passing = join(fixtures, 'report-pass.json');
const waivers = join(fixtures, 'waivers.json');
const today = new Date('2026-11-22T10:00:00Z');

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}

async function gate(args: string[], env: NodeJS.ProcessEnv = {}, now = today) {
  const dir = mkdtempSync(join(tmpdir(), 'tc-gate-'));
  const file = join(dir, 'gate.json');
  const c = capture();
  const code = await gateMain([...args, '--out', file], c.io, now, env);
  let decision: GateDecision | undefined;
  try {
    decision = JSON.parse(readFileSync(file, 'utf8')) as GateDecision;
  } catch {
    decision = undefined;
  }
  return { code, ...c, decision };
}

void describe('gate', () => {
  void test('red on a planted FAIL, green with a waiver, red again when the waiver expires', async () => {
    const red = await gate([planted]);
    assert.equal(red.code, 1);
    assert.match(red.out.at(-1)!, /^GATE FAIL: 1 FAIL, 0 UNCHECKED, 0 WARN, 0 WAIVED — blocking: TOKEN-REQ-001/);
    assert.equal(red.decision?.decision, 'fail');

    const green = await gate([planted, '--waivers', waivers]);
    assert.equal(green.code, 0);
    assert.match(green.out.at(-1)!, /^GATE PASS: 0 FAIL, 0 UNCHECKED, 0 WARN, 1 WAIVED \(TOKEN-REQ-001\)/);
    assert.deepEqual(green.decision?.waived.map((w) => w.id), ['TOKEN-REQ-001']);

    const expired = await gate([planted, '--waivers', waivers, '--as-of', '2027-01-01']);
    assert.equal(expired.code, 1);
    assert.match(expired.out.at(-1)!, /^GATE FAIL: .* blocking: TOKEN-REQ-001; expired waivers: TOKEN-REQ-001/);
    assert.ok(expired.out.some((l) => /EXPIRED\s+TOKEN-REQ-001/.test(l)));

    const expiredByClock = await gate([planted, '--waivers', waivers], {}, new Date('2027-01-01T00:00:00Z'));
    assert.equal(expiredByClock.code, 1);
  });

  void test('a waiver on a passing requirement is reported as fixed, and the gate passes', async () => {
    const r = await gate([passing, '--waivers', waivers]);
    assert.equal(r.code, 0);
    assert.deepEqual(r.decision?.fixedWaivers, ['TOKEN-REQ-001']);
    assert.match(r.out.at(-1)!, /fixed \(remove waiver\): TOKEN-REQ-001/);
  });

  void test('WARN passes unless --strict', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-gate-warn-'));
    const report = JSON.parse(readFileSync(planted, 'utf8')) as Record<string, unknown> & { requirements: { verdict: string }[]; summary: Record<string, number>; verdict: string };
    report.requirements[0]!.verdict = 'WARN';
    report.summary.FAIL = 0;
    report.summary.WARN = 1;
    report.verdict = 'WARN';
    const file = join(dir, 'warn.json');
    writeFileSync(file, JSON.stringify(report));
    assert.equal((await gate([file])).code, 0);
    const strict = await gate([file, '--strict']);
    assert.equal(strict.code, 1);
    assert.match(strict.out.at(-1)!, /1 WARN \(strict\)/);
  });

  void test('--json prints the decision on stdout, the verdict line on stderr', async () => {
    const r = await gate([planted, '--json']);
    assert.equal(r.code, 1);
    const printed = JSON.parse(r.out.join('\n')) as GateDecision;
    assert.equal(printed.decision, 'fail');
    assert.equal(printed.exitCode, 1);
    assert.deepEqual(printed.blocking.map((b) => b.id), ['TOKEN-REQ-001']);
    assert.match(r.err.at(-1)!, /^GATE FAIL/);
  });

  void test('--break-glass exits 0 and records the overridden failures, the reason, who and when', async () => {
    const r = await gate([planted, '--break-glass', 'hotfix INC-42, approved by on-call'], { GITHUB_ACTOR: 'release-bot', USER: 'alice' });
    assert.equal(r.code, 0);
    assert.equal(r.decision?.decision, 'break-glass');
    assert.equal(r.decision?.breakGlass?.actor, 'release-bot');
    assert.equal(r.decision?.breakGlass?.reason, 'hotfix INC-42, approved by on-call');
    assert.equal(r.decision?.breakGlass?.at, today.toISOString());
    assert.deepEqual(r.decision?.breakGlass?.overridden.map((b) => b.id), ['TOKEN-REQ-001']);
    assert.match(r.out.at(-1)!, /^GATE BREAK-GLASS: 1 blocking requirement\(s\) overridden by release-bot/);
    assert.equal((await gate([planted, '--break-glass', 'x'], { USER: 'alice' })).decision?.breakGlass?.actor, 'alice');
    assert.equal((await gate([planted, '--break-glass', '  '])).code, 2, 'a reason is required');
  });

  void test('bad input: exit 2 with one clear line', async () => {
    assert.equal((await gate([])).code, 2);
    const missing = await gate([join(fixtures, 'nope.json')]);
    assert.equal(missing.code, 2);
    assert.match(missing.err.join('\n'), /no such file/);
    const dir = mkdtempSync(join(tmpdir(), 'tc-gate-bad-'));
    writeFileSync(join(dir, 'w.json'), '{"waivers":[{"requirement":"TOKEN-REQ-001"}]}');
    const badWaivers = await gate([planted, '--waivers', join(dir, 'w.json')]);
    assert.equal(badWaivers.code, 2);
    assert.match(badWaivers.err.join('\n'), /waivers\.0\.owner: required/);
    writeFileSync(join(dir, 'r.json'), '{"reportVersion":1}');
    assert.equal((await gate([join(dir, 'r.json')])).code, 2);
  });

  void test('registered in the CLI', async () => {
    const lines: string[] = [];
    const log = console.log;
    console.log = (l: string) => lines.push(l);
    try {
      await main(['--help']);
    } finally {
      console.log = log;
    }
    for (const c of ['gate', 'diff', 'bundle', 'verify', 'keygen']) assert.match(lines.join('\n'), new RegExp(`\\n  ${c} `));
  });
});

void describe('diff', () => {
  async function diff(a: string, b: string, json = false) {
    const c = capture();
    const code = await diffMain([a, b, ...(json ? ['--json'] : [])], c.io);
    return { code, ...c };
  }

  void test('newly failing, fixed, changed, added and removed; exit 0 either way', async () => {
    const worse = await diff(passing, planted, true);
    assert.equal(worse.code, 0);
    const d = JSON.parse(worse.out.join('\n')) as ReportDiff;
    assert.deepEqual(d.newlyFailing.map((c) => [c.id, c.from, c.to]), [['TOKEN-REQ-001', 'PASS', 'FAIL']]);
    assert.deepEqual(d.fixed, []);
    assert.equal(d.changed.length, 1);

    const better = JSON.parse((await diff(planted, passing, true)).out.join('\n')) as ReportDiff;
    assert.deepEqual(better.fixed.map((c) => c.id), ['TOKEN-REQ-001']);
    assert.deepEqual(better.newlyFailing, []);

    const dir = mkdtempSync(join(tmpdir(), 'tc-diff-'));
    const r = readReport(passing);
    const changed = { ...r, requirements: [...r.requirements.slice(1).map((x, i) => (i === 0 ? { ...x, verdict: 'SKIP' as const, reason: 'target has no clock control' } : x)), { ...r.requirements[0]!, id: 'TOKEN-NEW-001' }] };
    writeFileSync(join(dir, 'new.json'), JSON.stringify(changed));
    const text = await diff(passing, join(dir, 'new.json'));
    assert.equal(text.code, 0);
    const all = text.out.join('\n');
    assert.match(all, /Other verdict changes \(1\):\n {2}\S+\s+PASS → SKIP {2}target has no clock control/);
    assert.match(all, /Added requirements \(1\):\n {2}TOKEN-NEW-001/);
    assert.match(all, /Removed requirements \(1\):\n {2}TOKEN-REQ-001\s+\(was PASS\)/);
    assert.match(all, /^DIFF: 0 newly failing, 0 newly warning, 0 newly blocked, 0 fixed, 1 changed, 1 added, 1 removed, 2 unchanged \(informative: `token-conformance gate` decides the build\)$/m);
  });

  void test('bad input: exit 2', async () => {
    assert.equal((await diffMain([passing], capture().io)), 2);
    assert.equal((await diff(passing, join(fixtures, 'nope.json'))).code, 2);
  });
});
