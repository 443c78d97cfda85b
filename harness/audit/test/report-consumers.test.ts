// An audit's conformance.json is a report like a run's: gate decides on it (UNOBSERVED is not
// verified under --require-verified), diff compares two audits, bundle signs and verify checks
// it; merge refuses it with the reason. The CLI: usage errors are one clear line (exit 2).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { auditMain } from '../../commands/audit.command.ts';
import { bundleMain, keygenMain, verifyMain } from '../../commands/bundle.command.ts';
import { diffMain } from '../../commands/diff.command.ts';
import { gateMain } from '../../commands/gate.command.ts';
import { mergeMain } from '../../commands/merge.command.ts';
import { recordMain } from '../../commands/record.command.ts';
import { readReport } from '../../reporter/read-report.ts';

const dir = mkdtempSync(join(tmpdir(), 'token-conformance-audit-report-'));
void after(() => rmSync(dir, { recursive: true, force: true }));
const io = () => {
  const lines: string[] = [];
  return { lines, io: { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) } };
};
const t0 = Date.UTC(2026, 0, 1);
const line = (i: number, status: number, body: unknown, extra: [string, string][] = []) =>
  JSON.stringify({
    index: i,
    startedAt: new Date(t0 + i * 1000).toISOString(),
    request: {
      method: 'POST',
      url: 'https://svc.example/api/v1/auth/oauth2/token',
      headers: [['content-type', 'application/x-www-form-urlencoded']],
      body: { text: 'grant_type=client_credentials&client_id=a&client_secret=the-secret-value', size: 1 },
    },
    response: {
      status,
      headers: [
        ['content-type', 'application/json'],
        ['pragma', 'no-cache'],
        ['strict-transport-security', 'x'],
        ...extra,
      ],
      body: { text: JSON.stringify(body), size: 1 },
    },
  });
function recording(name: string, cacheControl: boolean): string {
  const f = join(dir, name);
  writeFileSync(
    f,
    `{"format":"token-conformance-recording/1","startedAt":"2026-01-01T00:00:00.000Z","key":"test"}\n${line(0, 200, { access_token: 'at-0123456789abcdefghijklmnop', token_type: 'Bearer', expires_in: 3600 }, cacheControl ? [['cache-control', 'no-store']] : [])}\n`,
  );
  return f;
}

let clean: string;
let broken: string;
void before(async () => {
  for (const [name, cc] of [
    ['clean', true],
    ['broken', false],
  ] as const) {
    const o = io();
    const code = await auditMain([recording(`${name}.jsonl`, cc), '--out', join(dir, name)], o.io, {});
    assert.equal(code, cc ? 0 : 1, o.lines.join('\n'));
  }
  clean = join(dir, 'clean', 'conformance.json');
  broken = join(dir, 'broken', 'conformance.json');
});

void describe('an audit report in the report commands', () => {
  void test('it reads as a report (the schema), FAIL names the exchange, PASS says observed, the rest UNOBSERVED', () => {
    const r = readReport(broken);
    const fail = r.requirements.find((x) => x.id === 'TOKEN-RESP-005')!;
    assert.equal(fail.verdict, 'FAIL');
    assert.match(fail.reason ?? '', /broken\.jsonl #0 at 2026-01-01T00:00:00\.000Z/);
    assert.equal(r.requirements.find((x) => x.id === 'TOKEN-RESP-006')!.reason, 'observed conformant in 1 exchange');
    assert.equal(r.requirements.find((x) => x.id === 'LIMIT-PWD-001')!.verdict, 'UNOBSERVED');
    assert.ok(!readFileSync(broken, 'utf8').includes('the-secret-value'));
  });
  void test('gate: FAIL blocks; UNOBSERVED blocks only under --require-verified', async () => {
    assert.equal(await gateMain([broken, '--out', join(dir, 'g1.json')], io().io), 1);
    assert.equal(await gateMain([clean, '--out', join(dir, 'g2.json')], io().io), 0);
    const o = io();
    assert.equal(await gateMain([clean, '--require-verified', 'must', '--out', join(dir, 'g3.json')], o.io), 1);
    assert.match(o.lines.join('\n'), /not verified: .*UNOBSERVED|not verified/);
  });
  void test('diff: two audits compare like two runs', async () => {
    const o = io();
    assert.equal(await diffMain([clean, broken], o.io), 0);
    assert.match(o.lines.join('\n'), /TOKEN-RESP-005/);
  });
  void test('bundle and verify: an audit is signed and verified like a run', async () => {
    assert.equal(await keygenMain(['--private', join(dir, 'k.pem'), '--public', join(dir, 'k.pub')], io().io), 0);
    const o = io();
    assert.equal(
      await bundleMain(
        ['--key', join(dir, 'k.pem'), '--out', join(dir, 'b.json'), '--reports', join(dir, 'broken')],
        o.io,
        {},
      ),
      0,
      o.lines.join('\n'),
    );
    assert.equal(await verifyMain([join(dir, 'b.json'), '--key', join(dir, 'k.pub')], io().io), 0);
  });
  void test('merge refuses an audit with the reason', async () => {
    const o = io();
    assert.equal(await mergeMain([join(dir, 'clean'), '--out', join(dir, 'm')], o.io), 2);
    assert.match(o.lines.join('\n'), /an audit report .* is not a shard/);
  });
});

void describe('usage', () => {
  void test('audit and record refuse bad arguments with one clear line', async () => {
    const cases: [Promise<number>, RegExp][] = [];
    const run = (p: (o: ReturnType<typeof io>['io']) => Promise<number>, re: RegExp) => {
      const o = io();
      cases.push([
        p(o.io).then((c) => {
          assert.match(o.lines[0] ?? '', re);
          return c;
        }),
        re,
      ]);
    };
    run((o) => auditMain([], o, {}), /give at least one traffic file/);
    run((o) => auditMain([join(dir, 'missing.har')], o, {}), /missing\.har: no such file/);
    run((o) => auditMain([join(dir, 'clean.jsonl'), '--level', 'x'], o, {}), /--level must be/);
    run((o) => recordMain(['--target', 'p.json'], o, {}), /--out FILE are required/);
    run(
      (o) => recordMain(['--target', 'p.json', '--out', join(dir, 'r.jsonl')], o, {}),
      /CONFORMANCE_RECORD_KEY is not set/,
    );
    for (const [p] of cases) assert.equal(await p, 2);
  });
});
