// The lines every output shares for a report's causes: findings that group requirements (what the
// target broke, said once per cause) and the assumed choices to declare (with the profile lines
// that settle them). The terminal, the page and the job summary each frame them their own way.
import { causesOf } from './verdict.ts';
import { groupedRequirements } from './findings.ts';
import type { Assumption, ConformanceReport, Finding } from './report.schema.ts';

export interface ReportCauses {
  findings: Finding[];
  assumptions: Assumption[];
  /** FAIL/WARN requirements whose every finding groups them with others: listed under their causes only. */
  grouped: Set<string>;
  /** FAIL/WARN requirements whose every failing check rests on an assumed choice: listed under "declare these" only. */
  assumedOnly: Set<string>;
  /** FAIL/WARN requirements, for the closing count. */
  broken: number;
}

/** The report's causes: its own `findings`/`assumptions`, else derived from its requirements (a report written before them). */
export function reportCauses(
  report: Pick<ConformanceReport, 'requirements' | 'findings' | 'assumptions'>,
): ReportCauses {
  const derived =
    report.findings === undefined && report.assumptions === undefined ? causesOf(report.requirements) : report;
  // A requirement a waiver covers (WAIVED) is no longer listed: the causes show what still fails.
  const failing = new Set(
    report.requirements.filter((r) => r.verdict === 'FAIL' || r.verdict === 'WARN').map((r) => r.id),
  );
  const stillFailing = <T extends { requirements: string[] }>(list: T[]): T[] =>
    list
      .map((x) => ({ ...x, requirements: x.requirements.filter((id) => failing.has(id)) }))
      .filter((x) => x.requirements.length > 0);
  const findings = stillFailing(derived.findings ?? []);
  const assumptions = stillFailing(derived.assumptions ?? []);
  const inFindings = new Set(findings.flatMap((f) => f.requirements));
  const assumedOnly = new Set(assumptions.flatMap((a) => a.requirements).filter((id) => !inFindings.has(id)));
  return {
    findings,
    assumptions,
    grouped: groupedRequirements(findings),
    assumedOnly,
    broken: failing.size,
  };
}

/** "N findings for M FAIL/WARN requirements; K choices to declare (J requirements WARN on an assumption)". */
export function causesCountLine(causes: ReportCauses): string {
  const assumed = causes.assumptions.flatMap((a) => a.requirements);
  const assumedCount = new Set(assumed).size;
  return `${causes.findings.length} finding${causes.findings.length === 1 ? '' : 's'} for ${causes.broken} FAIL/WARN requirement${causes.broken === 1 ? '' : 's'}${assumedCount > 0 ? `; ${causes.assumptions.length} choice${causes.assumptions.length === 1 ? '' : 's'} to declare (${assumedCount} requirement${assumedCount === 1 ? '' : 's'} WARN on an assumption)` : ''}`;
}
