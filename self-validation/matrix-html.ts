// reports/self-validation/matrix.html: per requirement the faults that turn it and the checks that
// saw them; per fault the requirements it moved and the checks that caught it; the property checks
// and what each caught; and the fault × requirement grid.
import type { Matrix } from './matrix.ts';

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

export function renderMatrixHtml(m: Matrix, requirements: { id: string; level: string }[]): string {
  const touched = new Set(m.faults.flatMap((f) => [...f.breaks, ...f.collateral, ...f.falseAlarms.map((a) => a.id)]));
  const cols = requirements.filter((r) => touched.has(r.id) || r.level === 'MUST');
  const cell = (f: Matrix['faults'][number], id: string) => {
    const v = f.verdicts[id];
    if (f.breaks.includes(id))
      return v === 'FAIL' || v === 'WARN'
        ? `<td class="hit" title="expected, ${v}">✔</td>`
        : `<td class="miss" title="expected, got ${esc(v ?? 'not run')}">✘</td>`;
    if (f.collateral.includes(id) && (v === 'FAIL' || v === 'WARN'))
      return `<td class="coll" title="declared collateral, ${v}">c</td>`;
    if (f.falseAlarms.some((a) => a.id === id)) return `<td class="alarm" title="false alarm, ${esc(v ?? '')}">!</td>`;
    return `<td class="${v === 'PASS' ? 'pass' : ''}" title="${esc(v ?? 'not run')}"></td>`;
  };
  const s = m.summary;
  const shortTitle = (t: string) => t.replace(/^.* › /, '');
  const unreached = new Map([...m.coverage.unreachedWithReason.map((u) => [u.id, u.reason] as const)]);
  const perRequirement = requirements
    .map((r) => {
      const turning = m.faults.filter(
        (f) =>
          f.detected &&
          f.breaks.includes(r.id) &&
          (f.moved.includes(r.id) || f.caughtBy.some((c) => c.property && c.requirementIds.includes(r.id))),
      );
      const saw = [
        ...new Set(
          turning.flatMap((f) =>
            f.caughtBy
              .filter((c) => c.requirementIds.includes(r.id))
              .map((c) => `${c.property ? '[property] ' : ''}${shortTitle(c.title)}`),
          ),
        ),
      ];
      const cls = turning.length ? 'hit' : unreached.has(r.id) ? 'coll' : 'miss';
      return `<tr><td class="f ${cls}">${esc(r.id)}</td><td>${r.level}</td><td class="f">${turning.length ? turning.map((f) => esc(f.id)).join('<br>') : esc(unreached.get(r.id) ?? 'no fault, no reason')}</td><td class="f"><small>${saw.map(esc).join('<br>')}</small></td></tr>`;
    })
    .join('\n');
  const perFault = m.faults
    .map(
      (f) =>
        `<tr><td class="f ${f.detected && f.falseAlarms.length === 0 ? 'hit' : 'miss'}" title="${esc(f.title)}">${esc(f.id)}</td><td class="f">${f.breaks.map(esc).join(' ')}</td><td>${f.moved.length}</td><td class="f">${f.moved.map(esc).join(' ')}${f.falseAlarms.length ? `<br><b>false alarms:</b> ${f.falseAlarms.map((a) => esc(a.id)).join(' ')}` : ''}</td><td class="f"><small>${f.caughtBy.map((c) => `${c.property ? '<b>[property]</b> ' : ''}${esc(shortTitle(c.title))}`).join('<br>')}</small></td></tr>`,
    )
    .join('\n');
  const props = m.properties
    .map(
      (p) =>
        `<tr><td class="f ${p.caught.length ? 'hit' : 'miss'}">${esc(shortTitle(p.title))}</td><td>${p.ranUnder}</td><td class="f">${p.caught.length ? p.caught.map(esc).join(' ') : '<b>caught no fault</b>'}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><title>Self-validation matrix</title><style>
body{font:13px system-ui,sans-serif;margin:1em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 4px;text-align:center}
th.v{writing-mode:vertical-rl;transform:rotate(180deg);font-weight:normal;white-space:nowrap}td.f{text-align:left;white-space:nowrap}
.hit{background:#b7e1b0}.miss{background:#f4a3a3}.coll{background:#f6e6a8}.alarm{background:#e66;color:#fff}.pass{background:#f3faf3}
</style></head><body>
<h1>Self-validation: fault × requirement</h1>
<p>Mode: <b>${m.mode}</b> (${m.mode === 'full' ? 'every check under every fault' : 'each fault runs the checks of its own requirements, its collateral and the sentinels; property checks under the faults aimed at them'}).
${s.faults} faults, ${s.detected} detected, ${s.missed} missed, ${s.falseAlarms} false alarms; detection rate ${(s.detectionRate * 100).toFixed(1)} %.
Clean run: ${m.clean.clean ? 'clean' : 'NOT clean'} (${esc(m.clean.source)}). Coverage: ${m.coverage.reached.length} of ${m.coverage.requirements} requirements turned by a detected fault. Run time ${(m.durationMs / 1000).toFixed(1)} s.</p>
<p>✔ expected and FAIL/WARN · ✘ expected but not broken · c declared collateral · ! false alarm · pale green PASS · blank not run</p>
${m.coverage.unreachedWithReason.length || m.coverage.unreachedWithoutReason.length ? `<h2>Requirements no fault reaches</h2><ul>${m.coverage.unreachedWithReason.map((u) => `<li>${esc(u.id)}: ${esc(u.reason)}</li>`).join('')}${m.coverage.unreachedWithoutReason.map((id) => `<li>${esc(id)}: <b>no fault and no reason</b></li>`).join('')}</ul>` : ''}
<h2>Per requirement: the faults that turn it (MUST/INTERPRETATION to FAIL, SHOULD/ADVISORY to WARN) and the checks that saw them</h2>
<table><tr><th>requirement</th><th>level</th><th>faults</th><th>checks</th></tr>
${perRequirement}
</table>
<h2>Per fault: the requirements it moved to FAIL/WARN and the checks that caught it</h2>
<table><tr><th>fault</th><th>breaks</th><th>moved</th><th>requirements moved</th><th>caught by</th></tr>
${perFault}
</table>
<h2>Property checks</h2>
<table><tr><th>property check</th><th>run under</th><th>faults caught</th></tr>
${props}
</table>
<h2>Fault × requirement</h2>
<table><tr><th>fault</th>${cols.map((c) => `<th class="v">${esc(c.id)} <small>${c.level}</small></th>`).join('')}</tr>
${m.faults.map((f) => `<tr><td class="f" title="${esc(f.title)}">${esc(f.id)}</td>${cols.map((c) => cell(f, c.id)).join('')}</tr>`).join('\n')}
</table></body></html>
`;
}
