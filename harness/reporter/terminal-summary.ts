// The terminal summary: one line per area, the requirements that need attention, and one final
// verdict line (what a CI log shows).
import { renderParity } from '../parity/region-parity.ts';
import type { ConformanceReport, Verdict } from './report.schema.ts';
import { earliestDue } from './verdict.ts';

const order: Verdict[] = ['PASS', 'FAIL', 'WARN', 'BLOCKED', 'PENDING', 'SKIP', 'NOT_APPLICABLE', 'UNCHECKED'];

export function renderSummary(report: ConformanceReport, colour = false, where = 'reports'): string {
  const paint = (v: string, text: string): string => {
    if (!colour) return text;
    const code = v === 'PASS' ? 32 : v === 'FAIL' ? 31 : v === 'WARN' || v === 'BLOCKED' ? 33 : v === 'UNCHECKED' ? 35 : v === 'PENDING' ? 36 : 90;
    return `\u001b[${code}m${text}\u001b[0m`;
  };
  const lines: string[] = ['', `Conformance of ${report.target.name} (suite ${report.suiteVersion}, level ${report.selection.level})`];
  const areas = [...new Set(report.requirements.map((r) => r.area))];
  const width = Math.max(8, ...areas.map((a) => a.length));
  for (const area of areas) {
    const rs = report.requirements.filter((r) => r.area === area);
    const parts = order.map((v) => [v, rs.filter((r) => r.verdict === v).length] as const).filter(([, n]) => n > 0).map(([v, n]) => paint(v, `${n} ${v}`));
    lines.push(`  ${area.padEnd(width)}  ${parts.join(', ')}`);
  }
  const broken = report.requirements.filter((r) => r.verdict === 'FAIL' || r.verdict === 'WARN');
  if (broken.length > 0) {
    lines.push('', 'Broken:');
    const replays = new Set<string>();
    for (const r of broken) {
      lines.push(`  ${paint(r.verdict, r.verdict.padEnd(4))} ${r.id}  ${(r.reason ?? '').split('\n')[0]!.slice(0, 160)}`);
      for (const c of r.checks) if (c.property?.path !== undefined && (c.verdict === 'FAIL' || c.verdict === 'WARN')) replays.add(`${c.property.name}: seed ${c.property.seed}, path ${c.property.path} — replay: ${c.property.replay}`);
    }
    if (replays.size > 0) {
      lines.push('', 'Property counterexamples (shrunk):');
      for (const line of replays) lines.push(`  ${line}`);
    }
  }
  const unchecked = report.requirements.filter((r) => r.verdict === 'UNCHECKED');
  if (unchecked.length > 0) {
    lines.push('', paint('UNCHECKED', `UNCHECKED — catalogued but no check cites them (a defect of the suite): ${unchecked.length}`));
    for (const area of areas) {
      const ids = unchecked.filter((r) => r.area === area).map((r) => r.id);
      if (ids.length > 0) lines.push(`  ${area.padEnd(width)}  ${ids.join(' ')}`);
    }
  }
  const blocked = report.requirements.filter((r) => r.verdict === 'BLOCKED');
  if (blocked.length > 0) {
    // One line per blocker and reason: the requirement that blocked them (when known) comes first.
    const groups = new Map<string, string[]>();
    for (const r of blocked) {
      const key = `${r.blockedBy && r.blockedBy.length > 0 ? `by ${r.blockedBy.join(', ')}: ` : ''}${(r.reason ?? 'no reason').split('\n')[0]!.slice(0, 160)}`;
      groups.set(key, [...(groups.get(key) ?? []), r.id]);
    }
    lines.push('', 'Blocked (not verified: the check could not reach what it verifies):');
    for (const [key, ids] of groups) lines.push(`  ${paint('BLOCKED', String(ids.length).padStart(3))} × ${key}: ${heldBackIds(ids)}`);
  }
  const settledHere = report.requirements.filter((r) => r.settled && r.settled.length > 0);
  if (settledHere.length > 0) {
    // Obligations of earlier runs settled now: the verdict, when they were recorded and settled.
    lines.push('', 'Settled (obligations recorded by an earlier run):');
    for (const r of settledHere) {
      for (const st of r.settled!) lines.push(`  ${paint(st.outcome === 'VOID' ? 'SKIP' : st.outcome, (st.outcome === 'VOID' ? 'VOID' : st.outcome).padEnd(4))} ${r.id}  recorded in run ${st.recordedRun} at ${st.recordedAt}, settled at ${st.settledAt}${st.reason ? ` — ${st.reason.split('\n')[0]!.slice(0, 160)}` : ''}`);
    }
  }
  const pending = report.requirements.filter((r) => r.verdict === 'PENDING');
  if (pending.length > 0) {
    // One line per due time: a later run (the scheduled job, with the same state file) settles them.
    const byDue = new Map<string, string[]>();
    for (const r of [...pending].sort((a, b) => Date.parse(a.due ?? '') - Date.parse(b.due ?? ''))) byDue.set(r.due ?? 'unknown', [...(byDue.get(r.due ?? 'unknown') ?? []), r.id]);
    lines.push('', 'Pending (obligations recorded in the state file; a later run with it settles them):');
    for (const [due, ids] of byDue) lines.push(`  ${paint('PENDING', String(ids.length).padStart(3))} × due ${due}: ${heldBackIds(ids)}`);
  }
  const skipped = report.requirements.filter((r) => r.verdict === 'SKIP');
  if (skipped.length > 0) {
    // One line per reason: how many, why, and which requirements (the first few ids).
    const reasons = new Map<string, string[]>();
    for (const r of skipped) {
      const reason = (r.reason ?? 'no reason').split('\n')[0]!;
      reasons.set(reason, [...(reasons.get(reason) ?? []), r.id]);
    }
    lines.push('', 'Held back (SKIP):');
    for (const [reason, ids] of reasons) lines.push(`  ${String(ids.length).padStart(3)} × ${reason}: ${heldBackIds(ids)}`);
  }
  for (const id of report.unknownRequirementIds) lines.push(paint('FAIL', `  suite defect: a check cites unknown requirement ${id}`));
  for (const t of report.checksWithoutRequirement) lines.push(paint('WARN', `  suite defect: check cites no requirement: ${t}`));
  for (const m of report.malformedAnnotations ?? []) lines.push(paint('FAIL', `  reporter error: unreadable '${m.type}' annotation (${m.problem}) on ${m.check}: not taken as verified`));
  if (report.regionParity) {
    const [head, ...rest] = renderParity(report.regionParity);
    lines.push('', report.regionParity.counts.unexplained > 0 ? paint('WARN', head!) : head!, ...rest.map((l) => (l.trimStart().startsWith('UNEXPLAINED') ? paint('WARN', l) : l)));
  }
  const s = report.summary;
  // A run that ran no check verified nothing: said first, in place of a green verdict (`run` exits 2 on it, shards aside).
  if (report.checks.total === 0) lines.push('', paint('WARN', `NO CHECK RAN${report.selection.grep !== undefined ? ` (--grep ${report.selection.grep})` : ''}${report.selection.shard !== undefined ? ` in shard ${report.selection.shard}` : ''}: nothing was verified`));
  const soonest = earliestDue(report);
  lines.push('', paint(report.verdict, `CONFORMANCE ${report.verdict}: ${order.map((v) => `${s[v] ?? 0} ${v}${v === 'PENDING' && soonest !== undefined ? ` (earliest due ${soonest})` : ''}`).join(', ')}${s.WAIVED !== undefined ? `, ${s.WAIVED} WAIVED` : ''} of ${s.total} requirements (${report.checks.total} checks${report.checks.requests !== undefined ? `, ${report.checks.requests} requests` : ''}) — ${where}/conformance.json, ${where}/traceability.html`));
  return lines.join('\n');
}

/** At most `shown` ids, then how many more. */
export function heldBackIds(ids: readonly string[], shown = 6): string {
  return ids.length <= shown ? ids.join(' ') : `${ids.slice(0, shown).join(' ')} … +${ids.length - shown} more`;
}
