// reports/self-validation/matrix.html: fault × requirement, one row per fault.
import type { Matrix } from './run-self-validation.ts';

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

export function renderMatrixHtml(m: Matrix, requirements: { id: string; level: string }[]): string {
  const touched = new Set(m.faults.flatMap((f) => [...f.breaks, ...f.collateral, ...f.falseAlarms.map((a) => a.id)]));
  const cols = requirements.filter((r) => touched.has(r.id) || r.level === 'MUST');
  const cell = (f: Matrix['faults'][number], id: string) => {
    const v = f.verdicts[id];
    if (f.breaks.includes(id)) return v === 'FAIL' || v === 'WARN' ? `<td class="hit" title="expected, ${v}">✔</td>` : `<td class="miss" title="expected, got ${esc(v ?? 'not run')}">✘</td>`;
    if (f.collateral.includes(id) && (v === 'FAIL' || v === 'WARN')) return `<td class="coll" title="declared collateral, ${v}">c</td>`;
    if (f.falseAlarms.some((a) => a.id === id)) return `<td class="alarm" title="false alarm, ${esc(v ?? '')}">!</td>`;
    return `<td class="${v === 'PASS' ? 'pass' : ''}" title="${esc(v ?? 'not run')}"></td>`;
  };
  const s = m.summary;
  return `<!doctype html><html><head><meta charset="utf-8"><title>Self-validation matrix</title><style>
body{font:13px system-ui,sans-serif;margin:1em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 4px;text-align:center}
th.v{writing-mode:vertical-rl;transform:rotate(180deg);font-weight:normal;white-space:nowrap}td.f{text-align:left;white-space:nowrap}
.hit{background:#b7e1b0}.miss{background:#f4a3a3}.coll{background:#f6e6a8}.alarm{background:#e66;color:#fff}.pass{background:#f3faf3}
</style></head><body>
<h1>Self-validation: fault × requirement</h1>
<p>${s.faults} faults, ${s.detected} detected, ${s.missed} missed, ${s.falseAlarms} false alarms; detection rate ${(s.detectionRate * 100).toFixed(1)} %.
Clean run: ${m.clean.clean ? 'clean' : 'NOT clean'} (${esc(m.clean.source)}). Coverage: ${m.coverage.reached.length} of ${m.coverage.requirements} requirements turned by a detected fault. Run time ${(m.durationMs / 1000).toFixed(1)} s.</p>
<p>✔ expected and FAIL/WARN · ✘ expected but not broken · c declared collateral · ! false alarm · pale green PASS · blank not run</p>
${m.coverage.unreachedWithReason.length || m.coverage.unreachedWithoutReason.length ? `<h2>Requirements no fault reaches</h2><ul>${m.coverage.unreachedWithReason.map((u) => `<li>${esc(u.id)}: ${esc(u.reason)}</li>`).join('')}${m.coverage.unreachedWithoutReason.map((id) => `<li>${esc(id)}: <b>no fault and no reason</b></li>`).join('')}</ul>` : ''}
<table><tr><th>fault</th>${cols.map((c) => `<th class="v">${esc(c.id)} <small>${c.level}</small></th>`).join('')}</tr>
${m.faults.map((f) => `<tr><td class="f" title="${esc(f.title)}">${esc(f.id)}</td>${cols.map((c) => cell(f, c.id)).join('')}</tr>`).join('\n')}
</table></body></html>
`;
}
