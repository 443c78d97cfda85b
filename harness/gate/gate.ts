// The gate's decision, as a pure function of a (waived) report: what fails the build, and a
// break-glass override that passes it anyway while recording what was overridden, why, by whom.
import { readFileSync } from 'node:fs';
import { formatIssues } from '../profile/load-profile.ts';
import { conformanceReportSchema, type ConformanceReport } from '../reporter/report.schema.ts';

export class ReportError extends Error {
  override readonly name = 'ReportError';
}

/** Reads and validates a conformance report (schemas/conformance-report.schema.json). */
export function readReport(file: string): ConformanceReport {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ReportError(`report ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not readable JSON (${(error as Error).message})`}`);
  }
  const parsed = conformanceReportSchema.safeParse(raw);
  if (!parsed.success) throw new ReportError(formatIssues(parsed.error.issues, raw, 'see schemas/conformance-report.schema.json').slice(0, 10).map((p) => `report ${file}: ${p}`).join('\n'));
  return parsed.data;
}

export interface Blocker {
  id: string;
  verdict: string;
  reason?: string;
}

export interface BreakGlass {
  reason: string;
  actor: string;
  at: string;
  overridden: Blocker[];
}

export interface GateDecision {
  gateVersion: 1;
  decision: 'pass' | 'fail' | 'break-glass';
  exitCode: 0 | 1;
  /** The run's verdict after waivers. */
  verdict: ConformanceReport['verdict'];
  strict: boolean;
  report: string;
  decidedAt: string;
  target: string;
  suiteVersion: string;
  /** Requirements that fail the build (FAIL, UNCHECKED; WARN under --strict). */
  blocking: Blocker[];
  /** WARNs that do not block (without --strict). */
  warnings: Blocker[];
  waived: { id: string; originalVerdict: string; owner: string; expires: string }[];
  expiredWaivers: string[];
  fixedWaivers: string[];
  /** Suite defects that fail the run's verdict on their own. */
  suiteDefects: string[];
  breakGlass?: BreakGlass;
  summary: ConformanceReport['summary'];
  waivers?: ConformanceReport['waivers'];
}

/** Who is breaking the glass: the CI's actor, else the login. */
export function actorFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.GITHUB_ACTOR ?? env.GITLAB_USER_LOGIN ?? env.BUILD_REQUESTEDFOR ?? env.USER ?? env.USERNAME ?? 'unknown';
}

export interface DecideOptions {
  strict: boolean;
  reportFile: string;
  now?: Date;
  breakGlass?: { reason: string; actor: string };
}

export function decide(report: ConformanceReport, options: DecideOptions): GateDecision {
  const now = options.now ?? new Date();
  const pick = (v: string) => report.requirements.filter((r) => r.verdict === v).map((r) => ({ id: r.id, verdict: r.verdict, ...(r.reason ? { reason: r.reason.split('\n')[0]!.slice(0, 300) } : {}) }));
  const warns = pick('WARN');
  const blocking = [...pick('FAIL'), ...pick('UNCHECKED'), ...(options.strict ? warns : [])];
  const suiteDefects = [
    ...report.unknownRequirementIds.map((id) => `a check cites unknown requirement ${id}`),
  ];
  const failed = blocking.length > 0 || report.verdict === 'FAIL' || (options.strict && report.verdict === 'WARN');
  const breakGlass = failed && options.breakGlass ? { ...options.breakGlass, at: now.toISOString(), overridden: blocking } : undefined;
  const entries = report.waivers?.entries ?? [];
  return {
    gateVersion: 1,
    decision: !failed ? 'pass' : breakGlass ? 'break-glass' : 'fail',
    exitCode: failed && !breakGlass ? 1 : 0,
    verdict: report.verdict,
    strict: options.strict,
    report: options.reportFile,
    decidedAt: now.toISOString(),
    target: report.target.name,
    suiteVersion: report.suiteVersion,
    blocking,
    warnings: options.strict ? [] : warns,
    waived: report.requirements.filter((r) => r.verdict === 'WAIVED' && r.waiver).map((r) => ({ id: r.id, originalVerdict: r.waiver!.originalVerdict, owner: r.waiver!.owner, expires: r.waiver!.expires })),
    expiredWaivers: entries.filter((e) => e.status === 'expired').map((e) => e.requirement),
    fixedWaivers: report.waivers?.fixed ?? [],
    suiteDefects,
    ...(breakGlass ? { breakGlass } : {}),
    summary: report.summary,
    ...(report.waivers ? { waivers: report.waivers } : {}),
  };
}

const ids = (list: { id: string }[], max = 5) => (list.length <= max ? list.map((b) => b.id).join(' ') : `${list.slice(0, max).map((b) => b.id).join(' ')} … +${list.length - max}`);

/** The one line a CI log shows. */
export function gateLine(d: GateDecision, where: string): string {
  const counts = [
    `${d.blocking.filter((b) => b.verdict === 'FAIL').length} FAIL`,
    `${d.blocking.filter((b) => b.verdict === 'UNCHECKED').length} UNCHECKED`,
    `${d.blocking.filter((b) => b.verdict === 'WARN').length + d.warnings.length} WARN${d.strict ? ' (strict)' : ''}`,
    `${d.waived.length} WAIVED`,
  ];
  const extra = [
    d.expiredWaivers.length > 0 ? `expired waivers: ${d.expiredWaivers.join(' ')}` : '',
    d.fixedWaivers.length > 0 ? `fixed (remove waiver): ${d.fixedWaivers.join(' ')}` : '',
  ].filter(Boolean);
  const tail = `${extra.length > 0 ? `; ${extra.join('; ')}` : ''} — ${where}`;
  if (d.decision === 'pass') return `GATE PASS: ${counts.join(', ')}${d.waived.length > 0 ? ` (${ids(d.waived)})` : ''}${tail}`;
  if (d.decision === 'fail') return `GATE FAIL: ${counts.join(', ')} — blocking: ${ids(d.blocking)}${tail}`;
  return `GATE BREAK-GLASS: ${d.blocking.length} blocking requirement(s) overridden by ${d.breakGlass!.actor} ("${d.breakGlass!.reason}"): ${ids(d.blocking)}${tail}`;
}
