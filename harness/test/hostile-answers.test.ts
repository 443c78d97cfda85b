// What a hostile target's answers cost the suite, one reader at a time (the hostile target of
// support/hostile-target/): a 200 MB error body is read to the limit and no further, a gzip bomb is
// never expanded and reads as an intermediary's, a byte-a-second answer ends at the exchange's
// deadline; a CDN's block page and its kin are recognised by their signature and a target's own
// errors are not; a suite exception and a check the run's deadline stopped read UNCHECKED.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Agent, request } from 'undici';
import { keepAtMost, readBounded, responseByteLimit, transcriptByteLimit } from '../../core/http/bounded-read.ts';
import { intermediaryEvidence, intermediaryReason } from '../../core/http/intermediary.ts';
import { tokenPoster } from '../preflight/token-post.ts';
import { classifyPreflight } from '../preflight/preflight.ts';
import { buildReport, checkVerdict, requirementVerdict, type CheckOutcome } from '../reporter/verdict.ts';
import { renderSummary } from '../reporter/terminal-summary.ts';
import type { Requirement } from '../../requirements/types.ts';
import { deadlineReason, suiteErrorOf, unfinishedByDeadline } from '../reporter/conformance.reporter.ts';
import { parseRunArgs, UsageError, defaultDeadlineMinutes } from '../commands/run/options.ts';
import {
  bigErrorFields,
  cdnBlockPage,
  drip,
  hugeErrorBody,
  unrequestedGzipBomb,
  type AnswerBehaviour,
} from './support/hostile-target/answer-behaviours.ts';
import { startHostileServer, type HostileServer } from './support/hostile-target/hostile-server.ts';

const mb = 1024 * 1024;
const servers: HostileServer[] = [];
const agent = new Agent();
async function serve(behaviour: AnswerBehaviour): Promise<string> {
  const s = await startHostileServer({ behaviour });
  servers.push(s);
  return s.url;
}

void describe('a hostile target, read with bounds', () => {
  const urls: Record<string, string> = {};
  before(async () => {
    urls.huge = await serve(hugeErrorBody(200 * mb));
    urls.fields = await serve(bigErrorFields(mb));
    urls.drip = await serve(drip(1000));
    urls.bomb = await serve(unrequestedGzipBomb(200 * mb));
    urls.cdn = await serve(cdnBlockPage);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await agent.close();
  });

  void test('a 200 MB error body: the reader keeps the limit, notes the declared size, and stops reading', async () => {
    const res = await request(urls.huge!, { dispatcher: agent, signal: AbortSignal.timeout(10_000) });
    const body = await readBounded(res.body, responseByteLimit, res.headers);
    assert.equal(body.bytes.length, responseByteLimit);
    assert.equal(body.truncated, true);
    assert.ok(body.declaredBytes! > 200 * mb);
    const kept = keepAtMost(body.bytes.toString('utf8'), transcriptByteLimit, body.declaredBytes, body.truncated);
    assert.ok(Buffer.byteLength(kept) < transcriptByteLimit + 100, 'a transcript keeps at most its cap');
    assert.match(kept, /\[… 200\.0 MB not kept, of 200\.0 MB\]$/);
  });

  void test('the preflight poster reads 1 MB error fields and a 200 MB error body to the limit, no further', async () => {
    const poster = tokenPoster({}, 10_000);
    try {
      for (const url of [urls.fields!, urls.huge!]) {
        const answer = await poster.post(url, { grant_type: 'client_credentials' });
        assert.equal(answer.status, 400);
        assert.equal(Buffer.byteLength(answer.body), responseByteLimit);
      }
    } finally {
      await poster.close();
    }
  });

  void test('a byte a second cannot hold a request past its one deadline (headers and body together)', async () => {
    const poster = tokenPoster({}, 1500);
    const started = performance.now();
    try {
      await assert.rejects(poster.post(urls.drip!, { grant_type: 'client_credentials' }));
    } finally {
      await poster.close();
    }
    const took = performance.now() - started;
    assert.ok(took < 5000, `the drip ended at the deadline (${Math.round(took)} ms)`);
  });

  void test('a gzip bomb is never expanded: the compressed bytes, within the limit, and an unrequested encoding is an intermediary', async () => {
    const res = await request(urls.bomb!, { dispatcher: agent, signal: AbortSignal.timeout(10_000) });
    const body = await readBounded(res.body, responseByteLimit, res.headers);
    assert.ok(body.bytes.length < mb, `${body.bytes.length} compressed bytes kept`);
    assert.equal(body.bytes[0], 0x1f, 'still gzip: nothing decompressed it');
    const headers = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)]));
    const evidence = intermediaryEvidence({ status: res.statusCode, headers, bodyStart: '' });
    assert.ok(evidence);
    assert.match(intermediaryReason(evidence), /encoding the suite did not request.*content-encoding: gzip/);
    // Asked for, the same encoding is the target's own answer.
    assert.equal(
      intermediaryEvidence({ status: 200, headers, bodyStart: '', acceptEncoding: 'gzip, deflate' }),
      undefined,
    );
  });

  void test('the preflight tells a CDN block page from the target: a setup problem naming the evidence, not a refused client', async () => {
    const poster = tokenPoster({}, 10_000);
    try {
      const answer = await poster.post(urls.cdn!, { grant_type: 'client_credentials' });
      assert.equal(
        answer.intermediary,
        'Cloudflare: cf-mitigated: challenge; cf-ray: 8c1f2e3d4b5a6978-FRA; server: cloudflare',
      );
      const probe = { status: answer.status, intermediary: answer.intermediary };
      const result = classifyPreflight({
        clients: [
          { client: 'usClient', field: 'credentials.clients.usClient.clientSecret', region: 'us', answer: probe },
          { client: 'euClient', field: 'credentials.clients.euClient.clientSecret', region: 'eu', answer: probe },
        ],
      });
      assert.match(
        result.problem ?? '',
        /^every preflight call was answered by an intermediary, not the target \(Cloudflare: cf-mitigated: challenge;/,
      );
    } finally {
      await poster.close();
    }
  });

  void test('a CDN block page is recognised by its headers and named in the reason', async () => {
    const res = await request(urls.cdn!, { dispatcher: agent, signal: AbortSignal.timeout(10_000) });
    const body = await readBounded(res.body, responseByteLimit, res.headers);
    const headers = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)]));
    const evidence = intermediaryEvidence({ status: res.statusCode, headers, bodyStart: body.bytes.toString() });
    assert.ok(evidence);
    assert.equal(
      intermediaryReason(evidence),
      'not measured: blocked by an intermediary — Cloudflare: cf-mitigated: challenge; cf-ray: 8c1f2e3d4b5a6978-FRA; server: cloudflare',
    );
  });
});

void describe('intermediary signatures', () => {
  const html = { 'content-type': 'text/html' };
  const page = '<html><head><title>Access Denied</title></head><body>Access Denied</body></html>';
  const cases: [string, Parameters<typeof intermediaryEvidence>[0], string | undefined][] = [
    [
      'CloudFront error',
      {
        status: 403,
        headers: { ...html, 'x-cache': 'Error from cloudfront', 'x-amz-cf-id': 'abc==' },
        bodyStart: page,
      },
      'Amazon CloudFront',
    ],
    [
      'Akamai reference',
      { status: 403, headers: html, bodyStart: `${page} Reference #18.2d351ab8.1700000000.1a2b3c4d` },
      'Akamai',
    ],
    ['AkamaiGHost', { status: 503, headers: { ...html, server: 'AkamaiGHost' }, bodyStart: page }, 'Akamai'],
    [
      'Imperva',
      { status: 403, headers: { ...html, 'x-iinfo': '9-1234-0 NNNN CT(0 0 0)' }, bodyStart: page },
      'Imperva',
    ],
    [
      'a proxy HTML 502',
      {
        status: 502,
        headers: { ...html, server: 'nginx' },
        bodyStart: '<html><head><title>502 Bad Gateway</title></head></html>',
      },
      'a proxy (HTML 502)',
    ],
    // The target's own answers, whatever stands in front of it: judged, never excused.
    [
      'a JSON 403 of the target',
      { status: 403, headers: { 'content-type': 'application/json' }, bodyStart: '{}' },
      undefined,
    ],
    [
      'a JSON 503 through nginx',
      {
        status: 503,
        headers: { 'content-type': 'application/json', server: 'nginx' },
        bodyStart: '{"code":"000-5000"}',
      },
      undefined,
    ],
    [
      'a 200 in text/html (a wrong Content-Type of the target)',
      { status: 200, headers: html, bodyStart: '{}' },
      undefined,
    ],
    [
      'an HTML 401 with cf-ray (the target behind Cloudflare, answering itself)',
      { status: 401, headers: { ...html, 'cf-ray': 'x' }, bodyStart: page },
      undefined,
    ],
    ['an HTML 500 of the target', { status: 500, headers: html, bodyStart: '<html>oops</html>' }, undefined],
  ];
  for (const [name, answer, who] of cases)
    void test(`${name}: ${who ?? 'the target’s own'}`, () => {
      assert.equal(intermediaryEvidence(answer)?.who, who);
    });

  void test('evidence is escaped: control and bidi characters of the target never reach a reason raw', () => {
    const e = intermediaryEvidence({
      status: 403,
      headers: { 'cf-mitigated': 'challenge\u001b[2J\u202e', 'cf-ray': 'r' },
      bodyStart: '',
    });
    const reason = intermediaryReason(e!);
    assert.ok(!reason.includes('\u001b') && !reason.includes('\u202e'));
    // The one neutralising function's escapes (core/untrusted/neutralise.ts).
    assert.match(reason, /challenge\\u\{1B\}\[2J\\u\{202E\}/);
  });
});

void describe('the suite’s own failures and the run deadline read UNCHECKED, never the target’s FAIL', () => {
  const outcome = (o: Partial<CheckOutcome>): CheckOutcome => ({
    title: 't',
    requirementIds: ['TOKEN-REQ-001'],
    status: 'failed',
    durationMs: 1,
    ...o,
  });

  void test('suite exceptions are told from the target’s failures by the first line of the error', () => {
    assert.equal(
      suiteErrorOf('RangeError: Maximum call stack size exceeded\n    at x'),
      'RangeError: Maximum call stack size exceeded',
    );
    assert.ok(suiteErrorOf('InvalidArgumentError: invalid header value'));
    assert.ok(suiteErrorOf('Error: POST https://t/api failed: UND_ERR_INVALID_ARG: invalid content-length header'));
    assert.ok(suiteErrorOf('SyntaxError: Unexpected token < in JSON at position 0'));
    assert.equal(suiteErrorOf('Error: expect(received).toBe(expected)\n\nExpected: 200\nReceived: 403'), undefined);
    assert.equal(suiteErrorOf('Error: POST https://t/token failed: UND_ERR_SOCKET: other side closed'), undefined);
  });

  void test('a check failed on a suite error is UNCHECKED with the error; its requirement too, below FAIL and above BLOCKED', () => {
    const j = checkVerdict(
      outcome({ suiteError: 'RangeError: Maximum call stack size exceeded' }),
      'MUST',
      'TOKEN-REQ-001',
    );
    assert.deepEqual(j, {
      verdict: 'UNCHECKED',
      reason: "suite error, not the target's: RangeError: Maximum call stack size exceeded",
    });
    const unchecked = { verdict: 'UNCHECKED' as const, reason: j.reason };
    assert.equal(requirementVerdict([{ verdict: 'PASS' }, unchecked]).verdict, 'UNCHECKED');
    assert.equal(requirementVerdict([{ verdict: 'BLOCKED', reason: 'b' }, unchecked]).verdict, 'UNCHECKED');
    assert.equal(requirementVerdict([{ verdict: 'FAIL', reason: 'f' }, unchecked]).verdict, 'FAIL');
  });

  void test('a check the deadline stopped reads UNCHECKED with the deadline; one that ended before it keeps its verdict', () => {
    const reason = deadlineReason(10);
    assert.equal(reason, "not finished: the run's deadline of 10 minutes passed");
    for (const status of ['notRun', 'interrupted', 'skipped'] as const) {
      const o = outcome({ status });
      assert.ok(unfinishedByDeadline(o), status);
      assert.deepEqual(checkVerdict({ ...o, unfinished: reason }, 'MUST'), { verdict: 'UNCHECKED', reason });
    }
    assert.equal(
      unfinishedByDeadline(outcome({ status: 'skipped', skipReason: 'target has no clock control' })),
      false,
    );
    assert.equal(unfinishedByDeadline(outcome({ status: 'skipped', notApplicableReason: 'EU only' })), false);
    assert.equal(unfinishedByDeadline(outcome({ status: 'failed' })), false);
    assert.equal(unfinishedByDeadline(outcome({ status: 'passed' })), false);
  });

  void test('the terminal says why each UNCHECKED is unchecked: no check, or the run’s deadline', () => {
    const catalogue = ['TOKEN-REQ-001', 'TOKEN-REQ-002'].map((id): Requirement => ({
      id,
      level: 'MUST',
      area: 'token-requests',
      source: '§4',
      statement: 's',
    }));
    const report = buildReport(catalogue, [outcome({ status: 'notRun', unfinished: deadlineReason(0.25) })], {
      level: 'all',
      filtered: false,
      strict: false,
      suiteVersion: '1.0.0',
      startedAt: new Date('2026-01-01T00:00:00Z'),
      durationMs: 10,
      target: { name: 't', local: true, interpretations: {} },
    });
    const text = renderSummary(report);
    assert.match(
      text,
      /UNCHECKED — not finished: the run's deadline of 0\.25 minutes passed: 1\n {2}token-requests +TOKEN-REQ-001\n/,
    );
    assert.match(
      text,
      /UNCHECKED — catalogued but no check cites them \(a defect of the suite\): 1\n {2}token-requests +TOKEN-REQ-002/,
    );
  });

  void test('run --deadline: minutes (decimals allowed), a default that fits CI, anything else a usage error', () => {
    assert.equal(
      (parseRunArgs(['--target', 'p.json']) as { deadlineMinutes: number }).deadlineMinutes,
      defaultDeadlineMinutes,
    );
    assert.equal(
      (parseRunArgs(['--target', 'p.json', '--deadline', '0.5']) as { deadlineMinutes: number }).deadlineMinutes,
      0.5,
    );
    for (const bad of ['0', '-1', 'ten', '5m'])
      assert.throws(() => parseRunArgs(['--target', 'p.json', '--deadline', bad]), UsageError, bad);
  });
});
