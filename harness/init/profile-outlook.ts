// What a profile will let a run verify, before any run: each check's declared needs (its static
// `needs` annotations, as `run --list` reads them) against the profile, with the same gap rule the
// checks' capability gate applies (core/profile/capability-gap.ts). A requirement is verifiable
// when one of its checks has nothing missing. A check that needs a clock and records an obligation
// instead runs with a state file (or a real-time wait), as the capability gate allows: its
// requirements are verified over later runs. What a check only finds out at run time (the target's
// answers, a credential it refuses) is not foreseen here: this is what the profile allows, at most.
import { capabilityGap, type Capability } from '../../core/profile/capability-gap.ts';
import type { TargetProfile } from '../../core/profile/profile.schema.ts';
import type { ListedCheck } from '../commands/run-selection.ts';
import { unverifiedOf } from '../reporter/verification.ts';

export interface ProfileOutlook {
  /** Requirements a run can verify now. */
  verifiable: string[];
  /** Requirements verified over later runs through the state file's obligations. */
  overRuns: string[];
  notApplicable: string[];
  /** Requirements none of whose checks can run, grouped by the reason, with what would make them verifiable. */
  skipped: { reason: string; remedy?: string; requirements: string[] }[];
  total: number;
}

/** The first gap of a check against the profile; undefined when it can run. 'over-runs' when only a state file lets it. */
function checkGap(
  profile: TargetProfile,
  check: ListedCheck,
): { verdict: 'SKIP' | 'NOT_APPLICABLE'; reason: string } | 'over-runs' | undefined {
  let overRuns = false;
  for (const a of check.annotations.filter((x) => x.type === 'needs' && x.description)) {
    const gap = capabilityGap(profile, a.description as Capability);
    if (!gap) continue;
    const records = check.annotations.some((x) => x.type === 'obligation' && x.description === 'records');
    if (
      a.description === 'clock-control' &&
      records &&
      (profile.state?.file !== undefined || (profile.capabilities.realTimeWaitSeconds ?? 0) > 0)
    ) {
      overRuns = true;
      continue;
    }
    return gap;
  }
  return overRuns ? 'over-runs' : undefined;
}

export function profileOutlook(
  profile: TargetProfile,
  checks: ListedCheck[],
  requirementIds: string[],
): ProfileOutlook {
  const byRequirement = new Map<string, ReturnType<typeof checkGap>[]>();
  for (const c of checks) {
    const gap = checkGap(profile, c);
    for (const id of c.requirementIds) byRequirement.set(id, [...(byRequirement.get(id) ?? []), gap]);
  }
  const outlook: ProfileOutlook = {
    verifiable: [],
    overRuns: [],
    notApplicable: [],
    skipped: [],
    total: requirementIds.length,
  };
  const skipped = new Map<string, string[]>();
  for (const id of requirementIds) {
    const gaps = byRequirement.get(id) ?? [];
    if (gaps.some((g) => g === undefined)) outlook.verifiable.push(id);
    else if (gaps.some((g) => g === 'over-runs')) outlook.overRuns.push(id);
    else if (gaps.length > 0 && gaps.every((g) => typeof g === 'object' && g.verdict === 'NOT_APPLICABLE'))
      outlook.notApplicable.push(id);
    else {
      const first = gaps.find((g) => typeof g === 'object' && g.verdict === 'SKIP');
      const reason = typeof first === 'object' ? first.reason : 'no check';
      skipped.set(reason, [...(skipped.get(reason) ?? []), id]);
    }
  }
  outlook.skipped = [...skipped]
    .map(([reason, ids]) => {
      const remedy = unverifiedOf({ verdict: 'SKIP', reason })?.remedy;
      return { reason, ...(remedy !== undefined ? { remedy } : {}), requirements: ids };
    })
    .sort((a, b) => b.requirements.length - a.requirements.length);
  return outlook;
}

/** The lines `init` ends with: what the profile will verify, and what it will SKIP and why. */
export function outlookLines(o: ProfileOutlook): string[] {
  const skippedCount = o.skipped.reduce((n, s) => n + s.requirements.length, 0);
  const ids = (list: string[]) =>
    list.length <= 6 ? list.join(' ') : `${list.slice(0, 6).join(' ')} … +${list.length - 6} more`;
  return [
    `This profile lets a run verify up to ${o.verifiable.length} of ${o.total} requirements${o.overRuns.length > 0 ? `, and ${o.overRuns.length} more over later runs (the state file's obligations)` : ''}${o.notApplicable.length > 0 ? `; ${o.notApplicable.length} do not apply to this target` : ''}.`,
    ...(skippedCount > 0
      ? [
          `It will SKIP ${skippedCount}, because:`,
          ...o.skipped.map(
            (s) =>
              `  ${String(s.requirements.length).padStart(3)} × ${s.reason}${s.remedy && !s.reason.includes(s.remedy.replace(/^declare /, '')) ? ` — ${s.remedy}` : ''}: ${ids(s.requirements)}`,
          ),
        ]
      : ['It will SKIP none.']),
  ];
}
