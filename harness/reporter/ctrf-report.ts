// reports/ctrf.json: the report in the Common Test Report Format (CTRF), which PR-summary and
// flaky-detection tools read. One CTRF test per requirement verdict (the conformance result is
// per requirement; checks.json and JUnit keep the checks). CTRF has five statuses; the mapping
// below says why each verdict lands where it does, and every test keeps the verdict itself as
// `rawStatus`, so no verdict is lost in translation. Requirements outside the scored catalogue
// release read `other`: they ran, and never count as passed or failed.
import type { ConformanceReport, RequirementResult } from './report.schema.ts';
import { visible } from '../../core/untrusted/neutralise.ts';

export type CtrfStatus = 'passed' | 'failed' | 'skipped' | 'pending' | 'other';
type RequirementVerdict = RequirementResult['verdict'];

/** How each verdict reads in CTRF, and why (carried in the document's `extra.statusMapping`). */
export const ctrfStatusOf: Record<RequirementVerdict, { status: CtrfStatus; why: string }> = {
  PASS: { status: 'passed', why: 'verified' },
  FAIL: { status: 'failed', why: 'a MUST (or a declared interpretation) broken: fails the run' },
  UNCHECKED: { status: 'failed', why: 'catalogued but no check ran it: a hole in the suite, fails the run' },
  WARN: { status: 'other', why: 'a SHOULD or ADVISORY broken: reported, does not fail the run (unless --strict)' },
  WAIVED: { status: 'other', why: 'a FAIL or WARN covered by an unexpired waiver: an accepted deviation' },
  BLOCKED: {
    status: 'other',
    why: "not verified: the check could not reach the behaviour (labels.blockedBy names the requirement that broke it); neither a pass nor this requirement's failure",
  },
  PENDING: {
    status: 'pending',
    why: 'recorded an obligation a later run settles (labels.due): not verified yet, does not fail the run',
  },
  SKIP: { status: 'skipped', why: 'not verified: a capability the profile lacks, or not selected' },
  NOT_APPLICABLE: { status: 'skipped', why: 'does not apply to this target' },
  UNOBSERVED: {
    status: 'skipped',
    why: 'an audit of recorded traffic: no exchange exercised it, so nothing was verified',
  },
};

export const notScoredStatus: CtrfStatus = 'other';

export interface CtrfTest {
  name: string;
  status: CtrfStatus;
  duration: number;
  rawStatus: string;
  message?: string;
  suite: string[];
  tags: string[];
  labels: Record<string, string | number | boolean | string[]>;
  filePath?: string;
  extra: { checks: { title: string; verdict: string; reason?: string }[] };
}

export interface CtrfDocument {
  reportFormat: 'CTRF';
  specVersion: string;
  timestamp: string;
  generatedBy: string;
  results: {
    tool: { name: string; version: string };
    summary: {
      tests: number;
      passed: number;
      failed: number;
      skipped: number;
      pending: number;
      other: number;
      suites: number;
      start: number;
      stop: number;
      duration: number;
    };
    tests: CtrfTest[];
    extra: Record<string, unknown>;
  };
  extra: Record<string, unknown>;
}

/** The CTRF specification version the document follows (schema/ctrf.schema.json of ctrf-io/ctrf). */
export const ctrfSpecVersion = '0.0.0';

function ctrfTest(r: RequirementResult, scoredIn: string | undefined): CtrfTest {
  const mapped = ctrfStatusOf[r.verdict];
  const status = scoredIn === undefined ? mapped.status : notScoredStatus;
  // The clause comes first: it is what a reader of a PR summary looks up. A reason carries the
  // target's words, which PR-summary tools render: its unseen characters are made visible.
  const message =
    r.verdict === 'PASS' ? undefined : `${r.verdict} (${r.source})${r.reason ? `: ${visible(r.reason)}` : ''}`;
  const files = [...new Set(r.checks.map((c) => c.file).filter((f) => f !== undefined))];
  return {
    name: `${r.id}: ${r.statement}`,
    status,
    duration: Math.round(r.checks.reduce((n, c) => n + c.durationMs, 0)),
    rawStatus: r.verdict,
    ...(message ? { message } : {}),
    suite: [r.area],
    tags: [r.id, r.level],
    labels: {
      requirement: r.id,
      level: r.level,
      area: r.area,
      clause: r.source,
      verdict: r.verdict,
      scored: scoredIn === undefined,
      ...(scoredIn !== undefined ? { notScoredIn: scoredIn } : {}),
      ...(r.interpretation ? { interpretation: r.interpretation } : {}),
      ...(r.blockedBy && r.blockedBy.length > 0 ? { blockedBy: r.blockedBy } : {}),
      ...(r.due ? { due: r.due } : {}),
    },
    ...(files.length === 1 ? { filePath: files[0]! } : {}),
    extra: {
      checks: r.checks.map((c) => ({
        title: c.title,
        verdict: c.verdict,
        ...(c.reason ? { reason: visible(c.reason) } : {}),
      })),
    },
  };
}

export function ctrfReport(report: ConformanceReport, now: Date = new Date()): CtrfDocument {
  const notScoredIn = report.catalogue?.version;
  const tests = [
    ...report.requirements.map((r) => ctrfTest(r, undefined)),
    ...(report.notScored ?? []).map((r) => ctrfTest(r, notScoredIn)),
  ];
  const count = (s: CtrfStatus) => tests.filter((t) => t.status === s).length;
  const start = Date.parse(report.startedAt);
  const duration = Math.round(report.durationMs);
  return {
    reportFormat: 'CTRF',
    specVersion: ctrfSpecVersion,
    timestamp: now.toISOString(),
    generatedBy: `token-conformance ${report.suiteVersion}`,
    results: {
      tool: { name: 'token-conformance', version: report.suiteVersion },
      summary: {
        tests: tests.length,
        passed: count('passed'),
        failed: count('failed'),
        skipped: count('skipped'),
        pending: count('pending'),
        other: count('other'),
        suites: new Set(tests.map((t) => t.suite[0])).size,
        start,
        stop: start + duration,
        duration,
      },
      tests,
      extra: {
        verdict: report.verdict,
        target: report.target.name,
        ...(report.catalogue ? { catalogue: report.catalogue } : {}),
      },
    },
    extra: {
      unit: 'one test per requirement; its checks in extra.checks',
      statusMapping: Object.fromEntries(Object.entries(ctrfStatusOf).map(([v, m]) => [v, `${m.status}: ${m.why}`])),
      notScored: `${notScoredStatus}: a requirement that ran but is not in the scored catalogue release (labels.notScoredIn); never counted`,
    },
  };
}
