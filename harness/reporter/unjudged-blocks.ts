// A BLOCKED says "this check could not reach what it verifies, because <blocker> is broken". That is
// true only when the blocker reads FAIL or WARN in the same report: otherwise the report hides the
// root cause (nothing FAILs for it) behind requirements that were never judged. Such a BLOCKED is a
// defect of the suite, found here over a finished report. A BLOCKED naming no blocker cannot be
// checked this way and is listed apart (a `setup:` assertion without a requirement behind it). A
// BLOCKED by the profile names the profile's field instead (`blockedByProfile`): the profile, not the
// target, is to blame, so no requirement has to FAIL for it, and it is neither unjudged nor unnamed.
import type { ConformanceReport } from './report.schema.ts';

export interface UnjudgedBlock {
  /** The requirement that reads BLOCKED through this check. */
  requirement: string;
  check: string;
  /** The blockers the check named, each with its verdict in the report ('absent': not in the report). */
  blockers: { id: string; verdict: string }[];
}

const judged = new Set(['FAIL', 'WARN']);

/** A requirement's verdict as judged in the run: a waived one keeps its original FAIL/WARN. */
function judgedVerdict(r: ConformanceReport['requirements'][number]): string {
  return r.verdict === 'WAIVED' && r.waiver ? r.waiver.originalVerdict : r.verdict;
}

/** Every BLOCKED check result that names blockers none of which reads FAIL or WARN in the report. */
export function unjudgedBlocks(report: Pick<ConformanceReport, 'requirements'>): UnjudgedBlock[] {
  const verdictOf = new Map(report.requirements.map((r) => [r.id, judgedVerdict(r)]));
  return report.requirements.flatMap((r) =>
    r.checks
      .filter((c) => c.verdict === 'BLOCKED' && (c.blockedBy ?? []).length > 0)
      .map((c) => ({
        requirement: r.id,
        check: c.title,
        blockers: c.blockedBy!.map((id) => ({ id, verdict: verdictOf.get(id) ?? 'absent' })),
      }))
      .filter((b) => !b.blockers.some((x) => judged.has(x.verdict))),
  );
}

/** BLOCKED check results that name no blocker at all: neither a requirement nor a field of the profile. */
export function unnamedBlocks(
  report: Pick<ConformanceReport, 'requirements'>,
): { requirement: string; check: string; reason: string }[] {
  return report.requirements.flatMap((r) =>
    r.checks
      .filter((c) => c.verdict === 'BLOCKED' && (c.blockedBy ?? []).length === 0 && c.blockedByProfile === undefined)
      .map((c) => ({ requirement: r.id, check: c.title, reason: c.reason ?? '' })),
  );
}

/** One line per unjudged BLOCKED, for a test's or the terminal's message. */
export function describeUnjudgedBlocks(blocks: UnjudgedBlock[]): string[] {
  return blocks.map(
    (b) => `${b.requirement} BLOCKED by ${b.blockers.map((x) => `${x.id} (${x.verdict})`).join(', ')} in "${b.check}"`,
  );
}
