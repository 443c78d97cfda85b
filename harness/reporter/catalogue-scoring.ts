// Which requirements a report scores. A run without --catalogue scores the whole catalogue of its
// suite version (named after the newest frozen release when it holds exactly that release's IDs,
// else `unreleased`). `run --catalogue VERSION` (and `gate`, `diff`, `merge` after it) scores only
// the IDs frozen in that release: every other requirement still ran and keeps its verdict in
// `notScored`, outside `summary` and `verdict` — a check added after a release never moves a
// result certified against it.
import { loadCatalogue } from '../../core/catalogue/catalogue.ts';
import { latestCatalogueVersion, type CatalogueVersion } from '../../requirements/catalogue-versions.ts';
import type { CatalogueScoring, ConformanceReport } from './report.schema.ts';
import { countVerdicts, overallVerdict } from './verdict.ts';
import { writeReportFiles } from './write-report-files.ts';

export const unreleasedCatalogue = 'unreleased';

/** The catalogue a run without --catalogue scores: the newest release when the catalogue is exactly it. */
export function currentCatalogueName(
  catalogueIds: readonly string[] = loadCatalogue().map((r) => r.id),
): Pick<CatalogueScoring, 'version' | 'frozen'> {
  const latest = latestCatalogueVersion();
  const same =
    latest.requirements.length === catalogueIds.length && catalogueIds.every((id) => latest.requirements.includes(id));
  return same ? { version: latest.version, frozen: true } : { version: unreleasedCatalogue, frozen: false };
}

/** The report as a run without --catalogue writes it: every requirement scored, the catalogue named. */
export function withCurrentCatalogue(report: ConformanceReport): ConformanceReport {
  return { ...report, catalogue: { ...currentCatalogueName(), scored: report.requirements.length } };
}

/**
 * The report scored against a frozen release: its requirements outside the release move to
 * `notScored` (and back, for a report scored against another release), the summary and the verdict
 * are counted again over the release's requirements.
 */
export function scoreInCatalogue(report: ConformanceReport, release: CatalogueVersion): ConformanceReport {
  const inRelease = new Set(release.requirements);
  const order = new Map(loadCatalogue().map((r, i) => [r.id, i]));
  const all = [...report.requirements, ...(report.notScored ?? [])].sort(
    (a, b) => (order.get(a.id) ?? Number.MAX_SAFE_INTEGER) - (order.get(b.id) ?? Number.MAX_SAFE_INTEGER),
  );
  const scored = all.filter((r) => inRelease.has(r.id)).map(withoutNotScoredReason);
  const notScored = all
    .filter((r) => !inRelease.has(r.id))
    .map((r) => ({ ...r, reason: notScoredReason(r.verdict, r.reason, release.version) }));
  const counts = countVerdicts(scored);
  const rest = { ...report };
  delete rest.notScored;
  return {
    ...rest,
    verdict: overallVerdict(counts),
    summary: { ...counts, total: scored.length },
    requirements: scored,
    catalogue: { version: release.version, frozen: true, scored: scored.length },
    ...(notScored.length > 0 ? { notScored } : {}),
  };
}

const notScoredPattern = /^not scored in catalogue [^:]+: [A-Z_]+(?: — )?/;

function notScoredReason(verdict: string, reason: string | undefined, version: string): string {
  const own = reason?.replace(notScoredPattern, '');
  return `not scored in catalogue ${version}: ${verdict}${own ? ` — ${own}` : ''}`;
}

/** A requirement scored again (the report was scored against another release before): its own reason only. */
function withoutNotScoredReason<T extends { reason?: string }>(r: T): T {
  if (r.reason === undefined || !notScoredPattern.test(r.reason)) return r;
  const own = r.reason.replace(notScoredPattern, '');
  const rest = { ...r };
  delete rest.reason;
  return own ? { ...rest, reason: own } : rest;
}

/** One line for the terminal: what the release scored and what ran outside it. */
export function catalogueLine(report: ConformanceReport): string | undefined {
  const c = report.catalogue;
  if (!c?.frozen || !report.notScored?.length) return undefined;
  const byVerdict = new Map<string, number>();
  for (const r of report.notScored) byVerdict.set(r.verdict, (byVerdict.get(r.verdict) ?? 0) + 1);
  const s = report.summary;
  return `CONFORMANCE ${report.verdict} in catalogue ${c.version}: ${s.FAIL} FAIL, ${s.WARN} WARN, ${s.UNCHECKED} UNCHECKED of ${c.scored} requirements; ${report.notScored.length} not scored in ${c.version} (${[...byVerdict].map(([v, n]) => `${n} ${v}`).join(', ')}): ${report.notScored.map((r) => r.id).join(', ')}`;
}

/**
 * `run --catalogue VERSION`: the finished run's report scored in the release and written again
 * (conformance.json, traceability.html, ctrf.json), with one line saying what was scored. Nothing
 * is handed to the reporter or the workers: every check runs as always, only the scoring differs.
 */
export function scoreRunInCatalogue(
  reportsDir: string,
  report: ConformanceReport,
  release: CatalogueVersion,
  out: (line: string) => void,
): ConformanceReport {
  const scored = scoreInCatalogue(report, release);
  writeReportFiles(reportsDir, scored);
  const s = scored.summary;
  out(
    catalogueLine(scored) ??
      `CONFORMANCE ${scored.verdict} in catalogue ${release.version}: ${s.FAIL} FAIL, ${s.WARN} WARN, ${s.UNCHECKED} UNCHECKED of ${s.total} requirements; every requirement that ran is in ${release.version}`,
  );
  return scored;
}
