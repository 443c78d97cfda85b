// What the target broke, by cause: the FAIL/WARN requirements whose failed checks show the same
// defect (harness/reporter/failure-cause.ts) form one finding, so one defect that many checks meet
// reads once with the requirements it breaks. Verdicts stay the requirements' own; a WARN that
// rests on an assumed choice is no finding about the target (declare-these.ts lists it).
import { classifyFailure, unrecognisedPrefix } from './failure-cause.ts';
import type { Finding, RequirementResult } from './report.schema.ts';

type Judged = Pick<RequirementResult, 'id' | 'verdict' | 'reason' | 'checks'>;

/** The checks of a FAIL/WARN requirement that found the target broken (not on an assumed choice). */
function brokenChecks(r: Judged): Judged['checks'] {
  return r.checks.filter(
    (c) => (c.verdict === 'FAIL' || c.verdict === 'WARN') && !(c.assumed !== undefined && c.assumed.length > 0),
  );
}

/**
 * The findings of a report's requirements, in the order their first requirement appears: one per
 * cause key, listing each requirement once. A requirement whose checks show two causes is listed
 * under both; one that failed without a failing check of its own (its verdict's reason only) is
 * classified by that reason.
 */
export function findingsOf(requirements: readonly Judged[]): Finding[] {
  const byKey = new Map<string, Finding>();
  for (const r of requirements) {
    if (r.verdict !== 'FAIL' && r.verdict !== 'WARN') continue;
    const checks = brokenChecks(r);
    const assumedOnly = checks.length === 0 && r.checks.some((c) => c.assumed !== undefined && c.assumed.length > 0);
    if (assumedOnly) continue;
    const causes = (checks.length > 0 ? checks.map((c) => c.reason ?? '') : [r.reason ?? '']).map((reason) =>
      classifyFailure(reason, r.id),
    );
    // Each recognised cause, and the requirement's unrecognised reasons as one finding of its own (not one per wording).
    const recognised = causes.filter((c) => !c.key.startsWith(unrecognisedPrefix));
    const unrecognised = causes.find((c) => c.key.startsWith(unrecognisedPrefix));
    for (const cause of unrecognised ? [...recognised, unrecognised] : recognised) {
      const finding = byKey.get(cause.key) ?? {
        cause: cause.key,
        sentence: cause.sentence,
        verdict: 'WARN',
        requirements: [],
      };
      if (!finding.requirements.includes(r.id)) finding.requirements.push(r.id);
      if (r.verdict === 'FAIL') finding.verdict = 'FAIL';
      byKey.set(cause.key, finding);
    }
  }
  return [...byKey.values()];
}

/** The requirements every finding listing them groups with others: the outputs show those once, under their causes. */
export function groupedRequirements(findings: readonly Finding[]): Set<string> {
  const alone = new Set(findings.filter((f) => f.requirements.length === 1).flatMap((f) => f.requirements));
  return new Set(
    findings.flatMap((f) => (f.requirements.length > 1 ? f.requirements : [])).filter((id) => !alone.has(id)),
  );
}
