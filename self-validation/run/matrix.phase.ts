// The detection matrix: the faults' results, the clean run, the coverage of the catalogue, and the
// exit code they make.
import { existsSync, readFileSync } from 'node:fs';
import type { ConformanceReport } from '../../harness/reporter/report.schema.ts';
import { brokenVerdict } from '../../requirements/levels.ts';
import type { Requirement } from '../../requirements/types.ts';
import { unreachable } from '../faults/index.ts';
import type { Coverage, FaultResult, Matrix, Mode } from '../matrix.ts';

/**
 * The coverage rule: every requirement is turned to its broken verdict (FAIL, or WARN for
 * SHOULD/ADVISORY) by a detected fault in that fault's run, or is listed in `unreachable` with the reason.
 */
export function coverageOf(
  requirements: { id: string; level: string }[],
  results: Pick<FaultResult, 'detected' | 'breaks' | 'verdicts' | 'caughtBy'>[],
  unreachableIds: Record<string, string>,
): Coverage {
  // A failed property check turns the breaks it cites (it is judged as a check: see judge()).
  const turned = (r: { id: string; level: string }) =>
    results.some(
      (f) =>
        f.detected &&
        f.breaks.includes(r.id) &&
        (f.verdicts[r.id] === brokenVerdict(r.level) ||
          f.caughtBy.some((c) => c.property && c.requirementIds.includes(r.id))),
    );
  const reached = requirements.filter(turned).map((r) => r.id);
  const reachedSet = new Set(reached);
  const byLevel: Coverage['byLevel'] = {};
  for (const r of requirements) {
    const c = (byLevel[r.level] ??= { total: 0, reached: 0 });
    c.total++;
    if (reachedSet.has(r.id)) c.reached++;
  }
  const unreached = requirements.filter((r) => !reachedSet.has(r.id));
  return {
    requirements: requirements.length,
    byLevel,
    reached,
    unreachedWithReason: unreached
      .filter((r) => unreachableIds[r.id])
      .map((r) => ({ id: r.id, reason: unreachableIds[r.id]! })),
    unreachedWithoutReason: unreached.filter((r) => !unreachableIds[r.id]).map((r) => r.id),
  };
}

/** The clean run: the conformance stage's own report of the whole suite against the reference server. */
export function readCleanRun(cleanFile: string): Matrix['clean'] {
  if (!existsSync(cleanFile))
    return {
      source: cleanFile,
      verdict: 'absent',
      fail: 0,
      warn: 0,
      clean: false,
      problem: 'no clean-run report: run the conformance stage first (npm test runs it before this stage)',
    };
  const r = JSON.parse(readFileSync(cleanFile, 'utf8')) as ConformanceReport;
  const whole = r.selection.grep === undefined && r.selection.shard === undefined && r.selection.level === 'all';
  const isClean = whole && r.summary.FAIL === 0 && r.summary.WARN === 0 && r.summary.UNCHECKED === 0;
  return {
    source: cleanFile,
    verdict: r.verdict,
    fail: r.summary.FAIL,
    warn: r.summary.WARN,
    clean: isClean,
    ...(whole ? {} : { problem: 'the report is of a filtered run, not the whole suite' }),
  };
}

export function buildMatrix(
  ordered: FaultResult[],
  clean: Matrix['clean'],
  requirements: Requirement[],
  mode: Mode,
  startedAt: number,
): Matrix {
  const coverage = coverageOf(requirements, ordered, unreachable);
  const detected = ordered.filter((r) => r.detected).length;
  const propertyTitles = [...new Set(ordered.flatMap((r) => r.propertiesRun))].sort();
  const properties = propertyTitles.map((title) => ({
    title,
    ranUnder: ordered.filter((r) => r.propertiesRun.includes(title)).length,
    caught: ordered.filter((r) => r.caughtBy.some((c) => c.property && c.title === title)).map((r) => r.id),
  }));
  return {
    generatedAt: new Date().toISOString(),
    mode,
    durationMs: Date.now() - startedAt,
    clean,
    faults: ordered,
    summary: {
      faults: ordered.length,
      detected,
      missed: ordered.length - detected,
      falseAlarms: ordered.reduce((n, r) => n + r.falseAlarms.length, 0),
      detectionRate: ordered.length ? detected / ordered.length : 0,
    },
    properties,
    coverage,
  };
}

/**
 * Exit 0 only when every fault was detected without a false alarm, the clean run is clean and,
 * with the whole catalogue, every property check run caught a fault and every requirement is
 * turned by a fault or listed with a reason.
 */
export function exitCodeOf(matrix: Matrix, wholeCatalogue: boolean): 0 | 1 {
  const s = matrix.summary;
  const idleProperties = wholeCatalogue ? matrix.properties.filter((p) => p.caught.length === 0).length : 0;
  const ok =
    s.missed === 0 &&
    s.falseAlarms === 0 &&
    matrix.clean.clean &&
    idleProperties === 0 &&
    (!wholeCatalogue || matrix.coverage.unreachedWithoutReason.length === 0);
  return ok ? 0 : 1;
}
