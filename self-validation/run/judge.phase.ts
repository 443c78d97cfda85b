// Judging each fault's run: its own conformance report, detection of its breaks, false alarms.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Requirement } from '../../requirements/types.ts';
import { suiteVersion } from '../../harness/reporter/conformance.reporter.ts';
import type { ConformanceReport } from '../../harness/reporter/report.schema.ts';
import { describeUnjudgedBlocks, unjudgedBlocks } from '../../harness/reporter/unjudged-blocks.ts';
import { assumedInterpretation, buildReport, checkVerdict, type CheckOutcome } from '../../harness/reporter/verdict.ts';
import type { Fault } from '../fault.ts';
import type { CaughtBy, FaultResult } from '../matrix.ts';
import { isPropertyCheck } from './fault-selection.ts';
import { problemResult, runOf, type Planning } from './planning.phase.ts';
import type { Prepared } from './proxies.phase.ts';

const failedStatus = (status: string) => status === 'failed' || status === 'timedOut';

/**
 * Judges one fault run from its conformance report (built from its scripted checks) and its
 * property checks. Property checks stay out of the report and are judged as checks: a failed one
 * detects the fault's breaks among the requirements it found broken (its `broke` annotations, else
 * every requirement it cites), and one whose broken requirements are none of the fault's breaks and
 * collateral is a false alarm. A named requirement must read FAIL or WARN (BLOCKED is a miss: the
 * fault's own requirement was not verified); BLOCKED elsewhere is fine (counted).
 */
export function judge(
  fault: Fault,
  report: ConformanceReport,
  checks: CheckOutcome[] = [],
  properties: CheckOutcome[] = [],
): Pick<
  FaultResult,
  'detected' | 'missed' | 'falseAlarms' | 'collateralSeen' | 'blocked' | 'verdicts' | 'moved' | 'caughtBy'
> {
  const verdicts = Object.fromEntries(report.requirements.map((r) => [r.id, r.verdict]));
  const broken = (v: string | undefined) => v === 'FAIL' || v === 'WARN';
  const failedProperties = properties.filter((c) => failedStatus(c.status));
  const foundBroken = (c: CheckOutcome) =>
    c.broke && c.broke.length > 0 ? c.broke.map((b) => b.id) : c.requirementIds;
  const asRequired = (v: string | undefined) => (fault.breaksAs ? v === fault.breaksAs : broken(v));
  // A property check stays out of the report: its verdict of a requirement is judged here as the
  // report would (an assumed choice, or an undeclared interpretation, reads WARN). Under an
  // assumption fault it detects only what it reads as the fault requires; a FAIL there judges an
  // assumption as a declaration.
  const declared = new Set(Object.keys(report.target?.interpretations ?? {}));
  const propertyVerdict = (c: CheckOutcome, id: string): string => {
    const r = report.requirements.find((x) => x.id === id);
    if (!r) return 'FAIL';
    return assumedInterpretation(checkVerdict(c, r.level, id), r, declared).verdict;
  };
  const byProperty = new Set(
    failedProperties.flatMap((c) =>
      foundBroken(c).filter((id) => !fault.breaksAs || propertyVerdict(c, id) === fault.breaksAs),
    ),
  );
  const failedOnAssumption = fault.breaksAs
    ? failedProperties.flatMap((c) =>
        foundBroken(c)
          .filter((id) => fault.breaks.includes(id) && propertyVerdict(c, id) === 'FAIL')
          .map((id) => ({
            id: `property FAILs ${id} on an undeclared choice: ${c.title}`,
            verdict: 'FAIL',
            ...(c.error ? { reason: c.error.slice(0, 300) } : {}),
          })),
      )
    : [];
  const missed = fault.breaks
    .filter((id) => !asRequired(verdicts[id]) && !byProperty.has(id))
    .map((id) => ({ id, verdict: verdicts[id] ?? 'absent' }));
  const allowed = new Set([...fault.breaks, ...(fault.collateral?.ids ?? [])]);
  const falseAlarms = [
    ...failedOnAssumption,
    ...report.requirements
      .filter((r) => broken(r.verdict) && !allowed.has(r.id))
      .map((r) => ({ id: r.id, verdict: r.verdict, ...(r.reason ? { reason: r.reason.slice(0, 300) } : {}) })),
    ...failedProperties
      .filter((c) => !foundBroken(c).some((id) => allowed.has(id)))
      .map((c) => ({
        id: `property: ${c.title}`,
        verdict: 'FAIL',
        ...(c.error ? { reason: c.error.slice(0, 300) } : {}),
      })),
    // A BLOCKED whose blocker FAILs nowhere in this run (nor through a property check) hides the root cause: a suite defect.
    ...unjudgedBlocks(report)
      .filter((b) => !b.blockers.some((x) => byProperty.has(x.id)))
      .map((b) => ({
        id: `unjudged BLOCKED: ${b.requirement}`,
        verdict: 'BLOCKED',
        reason: describeUnjudgedBlocks([b])[0]!,
      })),
  ];
  const collateralSeen = (fault.collateral?.ids ?? []).filter((id) => broken(verdicts[id]));
  const blocked = report.requirements
    .filter((r) => r.verdict === 'BLOCKED' && !fault.breaks.includes(r.id))
    .map((r) => r.id);
  const moved = report.requirements.filter((r) => broken(r.verdict)).map((r) => r.id);
  const movedSet = new Set(moved);
  const caughtBy: CaughtBy[] = [
    ...checks
      .filter((c) => failedStatus(c.status) && c.requirementIds.some((id) => movedSet.has(id)))
      .map((c) => ({ title: c.title, requirementIds: c.requirementIds, property: false })),
    ...failedProperties.map((c) => ({ title: c.title, requirementIds: c.requirementIds, property: true })),
  ];
  return { detected: missed.length === 0, missed, falseAlarms, collateralSeen, blocked, verdicts, moved, caughtBy };
}

/** Each fault's own conformance report, from its checks, written to its runs dir and judged against its declaration. */
export function judgeFaults(
  prepared: Prepared[],
  ran: { outcomes: Map<string, CheckOutcome[]>; batchProblems: Map<string, string> },
  requirements: Requirement[],
  planning: Planning,
  runsDir: string,
  startedAt: number,
  results: Map<string, FaultResult>,
): void {
  for (const p of prepared) {
    const all = ran.outcomes.get(p.fault.id)!;
    const checks = all.filter((c) => !isPropertyCheck(c));
    const propertyChecks = all.filter((c) => isPropertyCheck(c));
    const batchProblem = ran.batchProblems.get(p.fault.id);
    if (batchProblem) {
      results.set(p.fault.id, problemResult(planning, p.fault, batchProblem));
      continue;
    }
    const report = buildReport(requirements, checks, {
      level: 'all',
      filtered: true,
      strict: false,
      grep: p.plan.grep,
      suiteVersion: suiteVersion(),
      startedAt: new Date(startedAt),
      durationMs: checks.reduce((n, c) => n + c.durationMs, 0),
      target: {
        name: `reference via ${p.fault.id}`,
        local: !p.fault.addressesOverPlainHttp,
        interpretations: p.interpretations,
      },
    });
    const dir = join(runsDir, p.fault.id);
    mkdirSync(dir, { recursive: true });
    // The outcomes were redacted field by field (checkOutcome in the batch reporter).
    writeFileSync(join(dir, 'conformance.json'), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(dir, 'checks.json'), `${JSON.stringify({ checks: all }, null, 2)}\n`);
    results.set(p.fault.id, {
      id: p.fault.id,
      title: p.fault.title,
      breaks: p.fault.breaks,
      collateral: p.fault.collateral?.ids ?? [],
      grep: p.plan.grep,
      run: { ...runOf(planning, p.fault), checks: all.length },
      ...judge(p.fault, report, checks, propertyChecks),
      propertiesRun: propertyChecks.map((c) => c.title),
      durationMs: report.durationMs,
    });
  }
}
