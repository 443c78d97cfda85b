// Two conformance reports compared, requirement by requirement: what a release reviewer reads.
// Informative only — `gate` decides the build.
import type { ConformanceReport, Settlement } from '../reporter/report.schema.ts';

/** Verdicts that fail a run (WARN is listed apart). */
const failing = new Set(['FAIL', 'UNCHECKED']);
const broken = new Set(['FAIL', 'UNCHECKED', 'WARN']);

export interface VerdictChange {
  id: string;
  from: string;
  to: string;
  reason?: string;
}

/** A requirement PENDING in the old report whose obligation the new run settled. */
export interface SettlementChange extends VerdictChange {
  /** The settlements of the new report (recorded in run R at T, settled at T′, outcome). */
  settled: Settlement[];
  /** The old report's due time. */
  due?: string;
}

export interface ReportDiff {
  old: { file: string; target: string; suiteVersion: string; startedAt: string; verdict: string };
  new: { file: string; target: string; suiteVersion: string; startedAt: string; verdict: string };
  /** Now FAIL/UNCHECKED, before not. */
  newlyFailing: VerdictChange[];
  /** Now WARN, before PASS/SKIP/NOT_APPLICABLE/WAIVED. */
  newlyWarning: VerdictChange[];
  /** Now BLOCKED, before anything else: no longer verified, because something the check needs broke. */
  newlyBlocked: VerdictChange[];
  /** Before FAIL/UNCHECKED/WARN, now PASS. */
  fixed: VerdictChange[];
  /** Before PENDING, now settled (PASS, FAIL/WARN, or SKIP for a void obligation): the later run's verdict on it. */
  settled: SettlementChange[];
  /** Now PENDING, before anything else: an obligation recorded, to be settled by a later run. */
  newlyPending: (VerdictChange & { due?: string })[];
  /** Every verdict change (the three lists above included). */
  changed: VerdictChange[];
  added: { id: string; verdict: string }[];
  removed: { id: string; verdict: string }[];
  unchanged: number;
}

export function diffReports(
  oldReport: ConformanceReport,
  newReport: ConformanceReport,
  files: { old: string; new: string } = { old: 'old', new: 'new' },
): ReportDiff {
  const before = new Map(oldReport.requirements.map((r) => [r.id, r]));
  const after = new Map(newReport.requirements.map((r) => [r.id, r]));
  const changed: VerdictChange[] = [];
  const settled: SettlementChange[] = [];
  const added: ReportDiff['added'] = [];
  let unchanged = 0;
  for (const [id, r] of after) {
    const o = before.get(id);
    if (!o) {
      added.push({ id, verdict: r.verdict });
      continue;
    }
    if (o.verdict === r.verdict) unchanged += 1;
    else
      changed.push({
        id,
        from: o.verdict,
        to: r.verdict,
        ...(r.reason && r.verdict !== 'PASS'
          ? {
              reason: `${r.blockedBy && r.verdict === 'BLOCKED' ? `by ${r.blockedBy.join(', ')}: ` : ''}${r.reason.split('\n')[0]!.slice(0, 200)}`,
            }
          : {}),
      });
    // PENDING → a verdict: the obligation settled. Also PENDING → PENDING when the new run settled one of them.
    if (o.verdict === 'PENDING' && r.settled && r.settled.length > 0) {
      settled.push({
        id,
        from: o.verdict,
        to: r.verdict,
        settled: r.settled,
        ...(o.due ? { due: o.due } : {}),
        ...(r.reason ? { reason: r.reason.split('\n')[0]!.slice(0, 200) } : {}),
      });
    }
  }
  const removed = [...before.values()].filter((r) => !after.has(r.id)).map((r) => ({ id: r.id, verdict: r.verdict }));
  const meta = (r: ConformanceReport, file: string) => ({
    file,
    target: r.target.name,
    suiteVersion: r.suiteVersion,
    startedAt: r.startedAt,
    verdict: r.verdict,
  });
  return {
    old: meta(oldReport, files.old),
    new: meta(newReport, files.new),
    newlyFailing: changed.filter((c) => failing.has(c.to) && !failing.has(c.from)),
    newlyWarning: changed.filter((c) => c.to === 'WARN' && !broken.has(c.from)),
    newlyBlocked: changed.filter((c) => c.to === 'BLOCKED'),
    fixed: changed.filter((c) => broken.has(c.from) && c.to === 'PASS'),
    settled,
    newlyPending: changed
      .filter((c) => c.to === 'PENDING')
      .map((c) => ({ ...c, ...(after.get(c.id)?.due ? { due: after.get(c.id)!.due } : {}) })),
    changed,
    added,
    removed,
    unchanged,
  };
}

export function renderDiff(d: ReportDiff): string {
  const lines = [
    `Conformance diff: ${d.old.file} (${d.old.target}, suite ${d.old.suiteVersion}, ${d.old.verdict}) → ${d.new.file} (${d.new.target}, suite ${d.new.suiteVersion}, ${d.new.verdict})`,
  ];
  const section = (title: string, items: string[]) => {
    if (items.length === 0) return;
    lines.push('', `${title} (${items.length}):`, ...items.map((i) => `  ${i}`));
  };
  const change = (c: VerdictChange) => `${c.id.padEnd(16)} ${c.from} → ${c.to}${c.reason ? `  ${c.reason}` : ''}`;
  section('Newly failing', d.newlyFailing.map(change));
  section('Newly warning', d.newlyWarning.map(change));
  section('Newly blocked (not verified)', d.newlyBlocked.map(change));
  section('Fixed', d.fixed.map(change));
  // Each settlement: the verdict it gave, and when its obligation was recorded and settled.
  section(
    'Settled (PENDING before, an obligation settled by the new run)',
    d.settled.map((c) =>
      [
        `${c.id.padEnd(16)} PENDING → ${c.to}${c.due ? ` (was due ${c.due})` : ''}`,
        ...c.settled.map(
          (st) =>
            `${' '.repeat(18)}${st.outcome}: obligation ${st.obligation} recorded in run ${st.recordedRun} at ${st.recordedAt}, settled at ${st.settledAt}${st.reason ? ` — ${st.reason.split('\n')[0]!.slice(0, 160)}` : ''}`,
        ),
      ].join('\n'),
    ),
  );
  section(
    'Newly pending (an obligation recorded; a later run settles it)',
    d.newlyPending.map((c) => `${c.id.padEnd(16)} ${c.from} → PENDING${c.due ? `, due ${c.due}` : ''}`),
  );
  const listed = new Set(
    [...d.newlyFailing, ...d.newlyWarning, ...d.newlyBlocked, ...d.fixed, ...d.newlyPending, ...d.settled].map(
      (c) => c.id,
    ),
  );
  section('Other verdict changes', d.changed.filter((c) => !listed.has(c.id)).map(change));
  section(
    'Added requirements',
    d.added.map((a) => `${a.id.padEnd(16)} ${a.verdict}`),
  );
  section(
    'Removed requirements',
    d.removed.map((a) => `${a.id.padEnd(16)} (was ${a.verdict})`),
  );
  lines.push(
    '',
    `DIFF: ${d.newlyFailing.length} newly failing, ${d.newlyWarning.length} newly warning, ${d.newlyBlocked.length} newly blocked, ${d.fixed.length} fixed, ${d.settled.length} settled, ${d.newlyPending.length} newly pending, ${d.changed.length} changed, ${d.added.length} added, ${d.removed.length} removed, ${d.unchanged} unchanged (informative: \`token-conformance gate\` decides the build)`,
  );
  return lines.join('\n');
}
