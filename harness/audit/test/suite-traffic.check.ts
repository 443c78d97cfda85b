// The suite's own traffic judged by the audit: the reference server, the recorder in front of it,
// `token-conformance run` (the whole suite) against the recorder, then `audit` of the
// recording — and of the same traffic written as a HAR 1.2 file. The suite's checks and the audit
// share their oracle: against a conformant target, any FAIL of the audit is a bug in one of them.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { repoRoot } from '../../../core/catalogue/catalogue.ts';
import { startReference, type ReferenceServer } from '../../reference/start-reference.ts';
import { auditMain } from '../../commands/audit.command.ts';
import { writeHar } from '../har-writer.ts';
import { startRecorder, type RunningRecorder } from '../recorder.ts';
import { Digester } from '../secret-digest.ts';
import { writeReferenceProfileAt, type Addresses } from './support/reference-profile-at.ts';
import type { ConformanceReport } from '../../reporter/report.schema.ts';

// The whole suite by default (SUITE_TRAFFIC_GREP narrows it, e.g. '@grants|@lifecycle' while working on a judge).
const grep = process.env.SUITE_TRAFFIC_GREP;
const env = { ...process.env, CONFORMANCE_RECORD_KEY: 'suite-traffic-key-0123456789abcdef' };
let dir: string;
let server: ReferenceServer;
let recorder: RunningRecorder;

void before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'token-conformance-suite-traffic-'));
  server = await startReference({ logDir: dir });
});
void after(async () => {
  await recorder?.close();
  await server?.stop();
  if (!process.env.KEEP_AUDIT_DIR) rmSync(dir, { recursive: true, force: true });
  else console.error(`kept ${dir}`);
});

const profile = (name: string, urls: Addresses, caFile: string | undefined) =>
  writeReferenceProfileAt(dir, name, urls, caFile);

void test("the suite's traffic through record: the run's verdicts unchanged by it, the audit agrees with the run and FAILs nothing, recording and HAR alike", async () => {
  const l = server.listening;
  const recording = join(dir, 'suite.jsonl');
  const upstreams = { authUrlUs: l.authUrlUs, authUrlEu: l.authUrlEu, baseUrl: l.baseUrl };
  recorder = await startRecorder({
    upstreams,
    ca: readFileSync(l.caFile!, 'utf8'),
    out: recording,
    digester: Digester.fromEnv('CONFORMANCE_RECORD_KEY', env)!,
  });
  const suiteProfile = profile('through-recorder', recorder.urls, undefined);
  const code = await new Promise<number>((resolve) => {
    const child = spawn(
      process.execPath,
      [
        join(repoRoot, 'bin', 'token-conformance.js'),
        'run',
        '--target',
        suiteProfile,
        ...(grep ? ['--grep', grep] : []),
        '--reports',
        join(dir, 'run'),
        '--skip-preflight',
        '--workers',
        '1',
      ],
      { cwd: repoRoot, env, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    child.on('exit', (c) => resolve(c ?? 1));
  });
  assert.ok(code === 0 || code === 1, `run exited ${code}`);
  await recorder.close();
  // The recorder is transparent: the run through it FAILs and WARNs nothing the reference does not,
  // the plain-HTTP transport requirements aside (its listeners speak plain HTTP on loopback).
  const run = JSON.parse(readFileSync(join(dir, 'run', 'conformance.json'), 'utf8')) as ConformanceReport;
  assert.deepEqual(
    run.requirements
      .filter((r) => (r.verdict === 'FAIL' || r.verdict === 'WARN') && !r.id.startsWith('SEC-TLS-'))
      .map((r) => `${r.id} ${r.verdict}: ${r.reason ?? ''}`),
    [],
    'the run through record FAILs or WARNs nothing outside plain-HTTP transport',
  );
  const auditProfile = profile('reference-audited', upstreams, l.caFile);
  const audited = async (file: string, out: string) => {
    const lines: string[] = [];
    await auditMain(
      [file, '--target', auditProfile, '--out', join(dir, out)],
      { out: (x) => lines.push(x), err: (x) => lines.push(x) },
      env,
    );
    return {
      report: JSON.parse(readFileSync(join(dir, out, 'conformance.json'), 'utf8')) as ConformanceReport,
      text: lines.join('\n'),
    };
  };
  const fromRecording = await audited(recording, 'audit-recording');
  const har = join(dir, 'suite.har');
  await writeHar(recording, har);
  const fromHar = await audited(har, 'audit-har');
  console.error(fromRecording.text);
  const verdicts = (r: ConformanceReport) =>
    Object.fromEntries(r.requirements.map((x) => [x.id, `${x.verdict} ${x.reason ?? ''}`.replace(/ — .*$/, '')]));
  assert.deepEqual(
    verdicts(fromHar.report),
    verdicts(fromRecording.report),
    'the HAR and the recording of the same traffic are judged alike',
  );
  assert.deepEqual(
    fromRecording.report.requirements.filter((r) => r.verdict === 'FAIL').map((r) => `${r.id}: ${r.reason ?? ''}`),
    [],
  );
  // Where both judged a requirement, the audit of the traffic reaches the run's verdict.
  const judged = new Set(['PASS', 'FAIL', 'WARN']);
  const runVerdict = new Map(run.requirements.map((r) => [r.id, r.verdict]));
  assert.deepEqual(
    fromRecording.report.requirements
      .filter(
        (r) => judged.has(r.verdict) && judged.has(runVerdict.get(r.id) ?? '') && runVerdict.get(r.id) !== r.verdict,
      )
      .map((r) => `${r.id}: audit ${r.verdict}, run ${runVerdict.get(r.id)}`),
    [],
    'the audit and the run disagree',
  );
});
