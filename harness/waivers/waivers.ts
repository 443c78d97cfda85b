// Waivers applied to a conformance report, as pure functions (plus one loader).
//
//   - a FAIL/WARN requirement named by an unexpired waiver → WAIVED (the original verdict stays in
//     `waiver.originalVerdict`, the original reason in `reason`); with `check`, only when every
//     failing check's title contains that text (else the requirement keeps its verdict: `partial`);
//   - past its `expires` day (UTC, inclusive) → the requirement keeps its FAIL/WARN (`expired`);
//   - a waiver whose requirement passes → `fixed` (listed in `waivers.fixed`: remove it);
//   - a waiver whose requirement was not verified (BLOCKED, PENDING, SKIP, NOT_APPLICABLE, not in the run) → `not-verified`.
//     A waiver never covers BLOCKED: it accepts a known deviation of its requirement, and a blocked
//     requirement was not verified at all (another requirement's violation, or a refused client,
//     stopped its check) — the blocker FAILs through its own check, where a waiver can name it.
//     Nor PENDING: not verified yet (`gate --allow-pending` accepts it instead).
// The summary counts and the run's verdict are recomputed; a report judged without waivers is unchanged.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { formatIssues } from '../../core/profile/load-profile.ts';
import { parseJsonc } from '../../core/profile/jsonc.ts';
import type { ConformanceReport, RequirementResult } from '../reporter/report.schema.ts';
import { writeReportFiles } from '../reporter/write-report-files.ts';
import { countVerdicts, overallVerdict } from '../reporter/verdict.ts';
import { waiversFileSchema, type Waiver } from './waivers.schema.ts';

/** Where the waivers file is documented (shipped with the package). */
const waiversDoc = 'see schemas/waivers.schema.json and docs/gating-waivers-bundles.md';

export class WaiversError extends Error {
  override readonly name = 'WaiversError';
}

export interface LoadedWaivers {
  file: string;
  sha256: string;
  waivers: Waiver[];
}

/** Reads and validates a waivers file (JSON, comments allowed); one line per problem. */
export function loadWaivers(file: string): LoadedWaivers {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new WaiversError(
      `waivers ${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  let raw: unknown;
  try {
    raw = parseJsonc(text);
  } catch (error) {
    throw new WaiversError(`waivers ${file}: not valid JSON (${(error as Error).message})`);
  }
  const parsed = waiversFileSchema.safeParse(raw);
  if (!parsed.success)
    throw new WaiversError(
      formatIssues(parsed.error.issues, raw, waiversDoc)
        .map((p) => `waivers ${file}: ${p}`)
        .join('\n'),
    );
  const seen = new Set<string>();
  for (const w of parsed.data.waivers) {
    const key = `${w.requirement}|${w.check ?? ''}`;
    if (seen.has(key))
      throw new WaiversError(
        `waivers ${file}: ${w.requirement}${w.check ? ` (check "${w.check}")` : ''} is waived twice`,
      );
    seen.add(key);
  }
  return { file, sha256: createHash('sha256').update(text).digest('hex'), waivers: parsed.data.waivers };
}

/** True once the waiver's last day (UTC) has passed. */
export function isExpired(waiver: Pick<Waiver, 'expires'>, now: Date): boolean {
  return now.toISOString().slice(0, 10) > waiver.expires;
}

const broken = (v: string): v is 'FAIL' | 'WARN' => v === 'FAIL' || v === 'WARN';

/** The report as judged without waivers: every WAIVED requirement back to its original verdict. */
export function withoutWaivers(report: ConformanceReport): ConformanceReport {
  if (!report.waivers && !report.requirements.some((r) => r.waiver)) return report;
  const requirements = report.requirements.map(({ waiver, ...r }) =>
    waiver ? { ...r, verdict: waiver.originalVerdict } : r,
  );
  const { waivers: _dropped, ...rest } = report;
  void _dropped;
  const { WAIVED: _w, ...summary } = report.summary;
  void _w;
  const counts = countVerdicts(requirements);
  return {
    ...rest,
    requirements,
    summary: { ...summary, ...counts, total: requirements.length },
    verdict: overallVerdict(counts),
  };
}

/** The waivers recorded in a report (to judge them again, e.g. at a later date). */
export function waiversOf(report: ConformanceReport): Waiver[] {
  return (report.waivers?.entries ?? []).map(({ status: _s, ...w }) => {
    void _s;
    return w;
  });
}

/** Applies waivers to a report (any waivers it already carries are replaced). */
export function applyWaivers(
  input: ConformanceReport,
  waivers: LoadedWaivers | Waiver[],
  now: Date = new Date(),
): ConformanceReport {
  const base = withoutWaivers(input);
  const list = Array.isArray(waivers) ? waivers : waivers.waivers;
  const byId = new Map<string, Waiver[]>();
  for (const w of list) byId.set(w.requirement, [...(byId.get(w.requirement) ?? []), w]);
  const entries: NonNullable<ConformanceReport['waivers']>['entries'] = [];
  const requirements = base.requirements.map((r): RequirementResult => {
    const ws = byId.get(r.id) ?? [];
    if (ws.length === 0) return r;
    if (!broken(r.verdict)) {
      for (const w of ws) entries.push({ ...strip(w), status: r.verdict === 'PASS' ? 'fixed' : 'not-verified' });
      return r;
    }
    const originalVerdict = r.verdict;
    const failing = r.checks.filter((c) => broken(c.verdict));
    // The waivers that cover at least one failing check (one without `check` covers all).
    const covers = (w: Waiver, title: string) => w.check === undefined || title.includes(w.check);
    const relevant = ws.filter((w) =>
      failing.length === 0 ? w.check === undefined : failing.some((c) => covers(w, c.title)),
    );
    for (const w of ws.filter((x) => !relevant.includes(x))) entries.push({ ...strip(w), status: 'fixed' });
    if (relevant.length === 0) return r;
    const live = relevant.filter((w) => !isExpired(w, now));
    for (const w of relevant.filter((x) => isExpired(x, now))) entries.push({ ...strip(w), status: 'expired' });
    const uncovered = failing.filter((c) => !live.some((w) => covers(w, c.title)));
    const allCovered =
      live.length > 0 && (failing.length === 0 ? live.some((w) => w.check === undefined) : uncovered.length === 0);
    for (const w of live) entries.push({ ...strip(w), status: allCovered ? 'applied' : 'partial' });
    const shown = live[0] ?? relevant[0]!;
    const status = allCovered ? 'applied' : live.length > 0 ? 'partial' : 'expired';
    return { ...r, verdict: allCovered ? 'WAIVED' : r.verdict, waiver: { ...strip(shown), status, originalVerdict } };
  });
  const present = new Set(base.requirements.map((r) => r.id));
  for (const w of list) if (!present.has(w.requirement)) entries.push({ ...strip(w), status: 'not-verified' });
  const counts = countVerdicts(requirements);
  return {
    ...base,
    requirements,
    summary: { ...counts, WAIVED: counts.WAIVED ?? 0, total: requirements.length },
    verdict: overallVerdict(counts),
    waivers: {
      ...(!Array.isArray(waivers)
        ? { file: waivers.file, sha256: waivers.sha256 }
        : input.waivers?.file
          ? { file: input.waivers.file, ...(input.waivers.sha256 ? { sha256: input.waivers.sha256 } : {}) }
          : {}),
      evaluatedAt: now.toISOString(),
      entries,
      fixed: [...new Set(entries.filter((e) => e.status === 'fixed').map((e) => e.requirement))].sort(),
    },
  };
}

function strip(w: Waiver): Omit<Waiver, 'ticket'> {
  const { ticket: _t, ...rest } = w;
  void _t;
  return rest;
}

/** Lines for the terminal: what each waiver did. */
export function waiverLines(report: ConformanceReport): string[] {
  const entries = report.waivers?.entries ?? [];
  if (entries.length === 0) return [];
  const label = (e: (typeof entries)[number]) => `${e.requirement}${e.check ? ` ("${e.check}")` : ''}`;
  const lines = ['Waivers:'];
  for (const e of entries) {
    const r = report.requirements.find((x) => x.id === e.requirement);
    switch (e.status) {
      case 'applied':
        lines.push(
          `  WAIVED   ${label(e)} — ${r?.waiver?.originalVerdict ?? 'FAIL'} waived until ${e.expires} (owner ${e.owner})`,
        );
        break;
      case 'expired':
        lines.push(
          `  EXPIRED  ${label(e)} — waiver expired after ${e.expires} (owner ${e.owner}); the ${r?.verdict ?? 'FAIL'} counts again`,
        );
        break;
      case 'partial':
        lines.push(`  PARTIAL  ${label(e)} — failing checks remain that the waiver does not cover`);
        break;
      case 'fixed':
        lines.push(`  FIXED    ${label(e)} — passes now (${r?.verdict ?? 'no failure'}): remove the waiver`);
        break;
      case 'not-verified':
        lines.push(
          `  NOT RUN  ${label(e)} — not verified in this run (${r ? r.verdict : 'not in the report'}); waiver kept`,
        );
        break;
    }
  }
  return lines;
}

/**
 * `run --waivers`: rewrites the run's conformance.json and traceability.html with the waivers
 * applied and prints what each did; returns the waived report (its verdict sets the exit code).
 */
export function applyWaiversToRun(
  reportsDir: string,
  report: ConformanceReport,
  waivers: LoadedWaivers,
  out: (line: string) => void,
  now: Date = new Date(),
): ConformanceReport {
  const waived = applyWaivers(report, waivers, now);
  writeReportFiles(reportsDir, waived);
  for (const line of waiverLines(waived)) out(line);
  const s = waived.summary;
  out(
    `CONFORMANCE ${waived.verdict} after waivers: ${s.FAIL} FAIL, ${s.WARN} WARN, ${s.WAIVED ?? 0} WAIVED, ${s.UNCHECKED} UNCHECKED${s.BLOCKED ? `, ${s.BLOCKED} BLOCKED` : ''}${s.PENDING ? `, ${s.PENDING} PENDING` : ''} of ${s.total} requirements`,
  );
  return waived;
}
