// JUnit of an audit, through the run's JUnit writer: one testcase per requirement (suite: its
// area), FAIL and WARN as failures (as a failed check reads in a run's JUnit), UNOBSERVED, SKIP and
// NOT_APPLICABLE as skipped with their reason, PASS with "observed conformant in N exchanges".
import { renderJunit, type JunitSuite } from '../reporter/junit-report.ts';
import type { ConformanceReport } from '../reporter/report.schema.ts';

export function auditJunit(report: ConformanceReport): string {
  const areas = [...new Set(report.requirements.map((r) => r.area))];
  const suites: JunitSuite[] = areas.map((area) => ({
    name: `audit/${area}`,
    project: 'audit',
    cases: report.requirements
      .filter((r) => r.area === area)
      .map((r) => ({
        name: `${r.id} ${r.statement}`,
        classname: `audit/${area}`,
        timeSeconds: 0,
        properties: [
          { name: 'requirement', value: r.id },
          { name: 'verdict', value: r.verdict },
        ],
        outcome:
          r.verdict === 'FAIL' || r.verdict === 'WARN'
            ? { kind: 'failure' as const, message: `${r.verdict}: ${r.id}`, text: r.reason ?? '' }
            : r.verdict === 'PASS' || r.verdict === 'WAIVED'
              ? { kind: 'passed' as const }
              : { kind: 'skipped' as const, message: `${r.verdict}: ${r.reason ?? ''}` },
        ...(r.verdict === 'PASS' && r.reason ? { stdout: r.reason } : {}),
      })),
  }));
  return renderJunit(suites, new Date(report.startedAt), report.durationMs);
}
