// reports/traceability.html: requirement → checks → verdict, one self-contained page (inline CSS,
// no script, no CDN), readable offline and safe to hand over.
import type { RegionParity } from '../parity/region-parity.schema.ts';
import type { ConformanceReport, RequirementVerdict, Settlement, Verdict } from './report.schema.ts';
import { earliestDue } from './verdict.ts';
import { cutAtWord } from '../../core/redaction/cut.ts';
import { reportVerification, verificationLine } from './verification.ts';
import { describeShaping } from '../../core/profile/token-parameters.ts';
import { htmlText } from '../../core/untrusted/neutralise.ts';
import { causesCountLine, reportCauses } from './cause-lines.ts';

// Every text of the page goes through htmlText: the target's words reach it in reasons, parity values and problems.
const escape = htmlText;

const colours: Record<Verdict, string> = {
  PASS: '#1a7f37',
  FAIL: '#cf222e',
  WARN: '#9a6700',
  BLOCKED: '#953800',
  PENDING: '#0969da',
  SKIP: '#57606a',
  NOT_APPLICABLE: '#8c959f',
  UNCHECKED: '#8250df',
  UNOBSERVED: '#6e7781',
};

const badge = (v: RequirementVerdict): string =>
  `<span class="v" style="background:${v === 'WAIVED' ? '#bc4c00' : colours[v]}">${v}</span>`;

/** "blocked by GRANT-CC-001, …: " before a BLOCKED reason, when the blocker is known. */
const blockedBy = (by: string[] | undefined): string =>
  by && by.length > 0 ? `blocked by ${by.map((id) => `<a href="#${escape(id)}">${escape(id)}</a>`).join(', ')}: ` : '';

/** A settlement in a few words: outcome, obligation, recorded in run R at T, settled at T′, and why. */
const settlementLine = (st: Settlement): string =>
  `<div class="reason">settled ${escape(st.outcome)}: obligation ${escape(st.obligation)} recorded in run ${escape(st.recordedRun)} at ${escape(st.recordedAt)}, settled at ${escape(st.settledAt)}${st.reason ? ` — ${escape(st.reason)}` : ''}</div>`;

/** "due T: " before a PENDING reason that does not say it already. */
const dueOf = (due: string | undefined, reason: string | undefined): string =>
  due && !(reason ?? '').includes(due) ? `due ${escape(due)}: ` : '';

const parityColours = { same: '#1a7f37', explained: '#57606a', unexplained: '#9a6700' } as const;

/** US vs EU client_credentials, aspect by aspect (informative: no verdict depends on it). */
function regionParitySection(p: RegionParity): string {
  if (!p.compared)
    return `<h2 id="region-parity">Region parity</h2>\n<p>Not compared: ${escape(p.reason ?? 'no reason')}</p>`;
  const rows = p.aspects
    .map(
      (a) =>
        `<tr><td>${escape(a.aspect)}</td><td>${escape(a.us)}</td><td>${escape(a.eu)}</td>` +
        `<td><span class="v" style="background:${parityColours[a.status]}">${a.status}</span></td><td>${escape(a.clause ?? a.note ?? '')}</td></tr>`,
    )
    .join('\n');
  return `<h2 id="region-parity">Region parity: US vs EU client_credentials</h2>
<p>${p.counts.same} same, ${p.counts.explained} explained by the spec or a declared interpretation, ${p.counts.unexplained} unexplained${p.usEndpoint ? ` · US ${escape(p.usEndpoint)}` : ''}${p.euEndpoint ? ` · EU ${escape(p.euEndpoint)}` : ''}. Informative: no verdict depends on it.</p>
<table><thead><tr><th>aspect</th><th>US</th><th>EU</th><th>difference</th><th>clause / note</th></tr></thead><tbody>
${rows}
</tbody></table>`;
}

type Requirement = ConformanceReport['requirements'][number];

/** The profile's declared request shaping, near the top: every verdict below was reached with it. */
function shapingParagraph(shaping: ConformanceReport['target']['requestShaping']): string {
  if (!shaping || shaping.length === 0) return '';
  const items = shaping.map((s) => `<li><code>${escape(describeShaping(s))}</code></li>`).join('');
  return `<h2 id="request-shaping">Declared request shaping</h2><p>The profile declares extra token-request parameters (tokenParameters). Every token request for these clients carried them, except the spec-shaped checks (GRANT-CC-001/002, GRANT-PW-001, GRANT-RT-001), which sent the spec's request as it is.</p><ul>${items}</ul>`;
}

export function renderTraceability(report: ConformanceReport): string {
  const t = report.target;
  const summary = [
    ...(Object.keys(colours) as Verdict[]).map((v) => `${badge(v)} ${report.summary[v] ?? 0}`),
    ...(report.summary.WAIVED !== undefined ? [`${badge('WAIVED')} ${report.summary.WAIVED}`] : []),
  ].join(' &nbsp; ');
  const areas = [...new Set(report.requirements.map((r) => r.area))];
  const sections = areas
    .map((area) =>
      areaSection(
        area,
        report.requirements.filter((r) => r.area === area),
      ),
    )
    .join('\n');
  const parity = report.regionParity ? regionParitySection(report.regionParity) : '';
  const defects = suiteDefects(report);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Traceability — ${escape(t.name)}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#1f2328}
table{border-collapse:collapse;width:100%;margin-bottom:2rem}
th,td{border:1px solid #d0d7de;padding:.4rem .6rem;vertical-align:top;text-align:left}
th{background:#f6f8fa}
.v{color:#fff;border-radius:3px;padding:0 .35rem;font-size:12px;font-weight:600;white-space:nowrap}
.reason{color:#57606a;font-size:12px;white-space:pre-wrap}
ul{margin:0;padding-left:1rem}
small{color:#57606a}
</style></head>
<body>
${profileBanner(report)}
<h1>Conformance traceability: ${escape(t.name)} — ${badge(report.verdict)}</h1>
<p>Suite ${escape(report.suiteVersion)}${report.catalogue ? ` · catalogue ${escape(report.catalogue.version)}` : ''} · started ${escape(report.startedAt)} · ${Math.round(report.durationMs / 1000)} s · level ${escape(report.selection.level)}${report.selection.grep ? ` · grep ${escape(report.selection.grep)}` : ''}</p>
<p>${[t.authUrlUs && `US ${escape(t.authUrlUs)}`, t.authUrlEu && `EU ${escape(t.authUrlEu)}`, t.baseUrl && `APIs ${escape(t.baseUrl)}`].filter(Boolean).join(' · ')}</p>
<p>${summary} &nbsp; (${report.summary.total} requirements; ${report.checks.total} checks: ${report.checks.passed} passed, ${report.checks.failed} failed, ${report.checks.skipped} skipped${report.checks.blocked ? `, ${report.checks.blocked} of them blocked` : ''})</p>
${verificationSection(report)}
${shapingParagraph(t.requestShaping)}
${defects.length > 0 ? `<h2>Defects of the suite</h2><ul>${defects.join('')}</ul>` : ''}
${causesSection(report)}
${attentionSection(report.requirements)}
${pendingSection(report)}
${notScoredSection(report)}
${parity}
<h2 id="matrix">All requirements</h2>
${filterForm(report.requirements, areas)}
${sections}
</body></html>
`;
}

/** One area's table: a row per requirement with its verdict, reason, settlements, waiver and checks. */
function areaSection(area: string, requirements: Requirement[]): string {
  const rows = requirements
    .map((r) => {
      const checks =
        r.checks.length === 0
          ? '<em>no check</em>'
          : `<ul>${r.checks.map((c) => `<li>${badge(c.verdict)} ${escape(c.title)} <small>(${c.project ? `${escape(c.project)}, ` : ''}${Math.round(c.durationMs)} ms)</small>${transcriptLinks(c.transcripts)}${c.reason ? `<div class="reason">${blockedBy(c.blockedBy)}${dueOf(c.due, c.reason)}${escape(c.reason)}</div>` : ''}</li>`).join('')}</ul>`;
      return (
        `<tr id="${escape(r.id)}" data-verdict="${escape(r.verdict)}" data-area="${escape(area)}"><td><a href="#${escape(r.id)}">${escape(r.id)}</a><br><small>${escape(r.level)}${r.interpretation ? ` · ${escape(r.interpretation)}` : ''}</small></td>` +
        `<td>${badge(r.verdict)}${r.reason && r.verdict !== 'PASS' ? `<div class="reason">${blockedBy(r.blockedBy)}${dueOf(r.due, r.reason)}${escape(r.reason)}</div>` : ''}${(r.settled ?? []).map(settlementLine).join('')}${r.waiver ? `<div class="reason">waiver ${escape(r.waiver.status)} (was ${r.waiver.originalVerdict}; owner ${escape(r.waiver.owner)}, expires ${escape(r.waiver.expires)}): ${escape(r.waiver.justification)}</div>` : ''}</td>` +
        `<td>${escape(r.statement)}<br><small>${escape(r.source)}</small></td><td>${checks}</td></tr>`
      );
    })
    .join('\n');
  return `<section data-area-section><h2>${escape(area)}</h2>\n<table><thead><tr><th>requirement</th><th>verdict</th><th>statement · source</th><th>checks</th></tr></thead><tbody>\n${rows}\n</tbody></table></section>`;
}

/**
 * Failures first: what needs attention (anything neither verified nor deliberately not judged),
 * each linked to its row, before the full matrix. PENDING is scheduled, not a problem: it has its own section.
 */
function attentionSection(requirements: Requirement[]): string {
  const calm = new Set(['PASS', 'SKIP', 'NOT_APPLICABLE', 'PENDING']);
  const attention = requirements.filter((r) => !calm.has(r.verdict));
  return attention.length === 0
    ? '<h2 id="attention">Needs attention</h2><p>Nothing: no requirement failed, warned or went unchecked.</p>'
    : `<h2 id="attention">Needs attention (${attention.length})</h2><ul>${attention.map((r) => `<li>${badge(r.verdict)} <a href="#${escape(r.id)}">${escape(r.id)}</a> <small>${escape(r.area)}</small> ${escape(cutAtWord((r.reason ?? r.statement).split('\n')[0]!, 200))}</li>`).join('')}</ul>`;
}

/** What the target broke, by cause, and apart from it the choices to declare with the profile lines that settle them. */
function causesSection(report: ConformanceReport): string {
  const causes = reportCauses(report);
  if (causes.broken === 0) return '';
  const ids = (list: string[]) => list.map((id) => `<a href="#${escape(id)}">${escape(id)}</a>`).join(' ');
  const findings = causes.findings
    .map(
      (f) =>
        `<li>${badge(f.verdict)} ${f.requirements.length > 1 ? `<strong>${f.requirements.length} requirements</strong>: ` : ''}${escape(cutAtWord(f.sentence.split('\n')[0]!, 200))} — ${ids(f.requirements)}</li>`,
    )
    .join('');
  const declare = causes.assumptions
    .map(
      (a) =>
        `<li>${badge('WARN')} ${ids(a.requirements)} — assumed <code>${escape(a.assumed)}</code>${a.observed !== undefined ? `; the answers point at <code>${escape(a.observed)}</code>` : ''}<pre>${escape(a.profileLine)}</pre></li>`,
    )
    .join('');
  return (
    `<h2 id="findings">Findings by cause</h2><p>${escape(causesCountLine(causes))}.</p>${findings ? `<ul>${findings}</ul>` : ''}` +
    (declare
      ? `<h2 id="declare">Declare these</h2><p>WARN only because the profile does not declare the choice the check relied on (the suite assumed the reference one): add the line to the profile to have the target judged on its own choice.</p><ul>${declare}</ul>`
      : '')
  );
}

function pendingSection(report: ConformanceReport): string {
  const pending = report.requirements
    .filter((r) => r.verdict === 'PENDING')
    .sort((a, b) => Date.parse(a.due ?? '') - Date.parse(b.due ?? ''));
  if (pending.length === 0) return '';
  const soonest = earliestDue(report);
  return `<h2 id="pending">Pending (${pending.length}${soonest ? `, earliest due ${escape(soonest)}` : ''})</h2><p>Obligations recorded in the state file: a later run with the same state file settles them to PASS or FAIL.</p><ul>${pending.map((r) => `<li>${badge('PENDING')} <a href="#${escape(r.id)}">${escape(r.id)}</a> <small>${escape(r.area)}</small> ${dueOf(r.due, r.reason)}${escape(cutAtWord((r.reason ?? r.statement).split('\n')[0]!, 200))}</li>`).join('')}</ul>`;
}

/** Requirements that ran outside the scored catalogue release (run --catalogue): shown, never counted. */
function notScoredSection(report: ConformanceReport): string {
  const notScored = report.notScored ?? [];
  if (notScored.length === 0) return '';
  const version = escape(report.catalogue?.version ?? '');
  return `<h2 id="not-scored">Not scored in catalogue ${version} (${notScored.length})</h2><p>Requirements added after release ${version}: their checks ran, their verdicts are not counted above.</p><ul>${notScored.map((r) => `<li>${badge(r.verdict)} ${escape(r.id)} <small>${escape(r.area)} · ${escape(r.source)}</small> ${escape(r.statement)}</li>`).join('')}</ul>`;
}

/** The matrix's filter (verdict, area, text) and the few lines of script that apply it. */
function filterForm(requirements: Requirement[], areas: string[]): string {
  const option = (v: string) => `<option value="${escape(v)}">${escape(v)}</option>`;
  return `<form id="filter" onsubmit="return false"><label>verdict <select name="verdict"><option value="">all</option>${[...new Set(requirements.map((r) => r.verdict))].map(option).join('')}</select></label>
<label>area <select name="area"><option value="">all</option>${areas.map(option).join('')}</select></label>
<label>text <input name="text" type="search" placeholder="ID, statement, check, reason"></label> <output name="shown">${requirements.length} shown</output></form>
<script>
// Hides the rows that do not match; an area whose rows are all hidden hides its table.
(() => {
  const form = document.getElementById('filter');
  const apply = () => {
    const verdict = form.verdict.value, area = form.area.value, text = form.text.value.trim().toLowerCase();
    let shown = 0;
    for (const row of document.querySelectorAll('tr[data-verdict]')) {
      const ok = (!verdict || row.dataset.verdict === verdict) && (!area || row.dataset.area === area) && (!text || row.textContent.toLowerCase().includes(text));
      row.hidden = !ok;
      if (ok) shown += 1;
    }
    for (const section of document.querySelectorAll('section[data-area-section]')) section.hidden = !section.querySelector('tr[data-verdict]:not([hidden])');
    form.shown.value = shown + ' shown';
  };
  form.addEventListener('input', apply);
  // The rows come after this script: count them once the page is parsed.
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', apply); else apply();
})();
</script>`;
}

/** Links to a check's transcripts (relative to the report's directory, where the reporter writes them). */
function transcriptLinks(files: string[] | undefined): string {
  return (files ?? [])
    .map((f, i) => ` <a class="transcript" href="${escape(f)}">transcript${files!.length > 1 ? ` ${i + 1}` : ''}</a>`)
    .join('');
}

/** The report opens with the profile's errors: what they blocked is not the target's doing. */
function profileBanner(report: ConformanceReport): string {
  const problems = report.profileProblems ?? [];
  if (problems.length === 0) return '';
  return `<div id="profile-error" role="alert" style="border:2px solid ${colours.BLOCKED};padding:.6rem 1rem;margin-bottom:1rem"><strong>Profile error</strong> — the target refused ${problems.length} credential(s) of the profile in the preflight; the checks needing them are BLOCKED by the profile, not FAILs of the target:<ul>${problems.map((p) => `<li>${escape(p)}</li>`).join('')}</ul></div>`;
}

/** How many requirements were verified, and what would make the others verifiable. */
function verificationSection(report: ConformanceReport): string {
  const v = report.verification ?? reportVerification(report);
  const remedies = v.notVerifiable.remedies
    .map(
      (r) =>
        `<li>${escape(r.remedy)}: ${r.requirements.length} (${r.requirements.map((id) => `<a href="#${escape(id)}">${escape(id)}</a>`).join(' ')})</li>`,
    )
    .join('');
  return `<h2 id="verified">Verified: ${v.verified} of ${v.total}</h2><p>${escape(verificationLine(v, 0))}.</p>${remedies ? `<p>Not verifiable with this profile, and what would make them so:</p><ul>${remedies}</ul>` : ''}`;
}

function suiteDefects(report: ConformanceReport): string[] {
  return [
    ...report.unknownRequirementIds.map(
      (id) => `<li>a check cites <code>${escape(id)}</code>, which is not in the catalogue</li>`,
    ),
    ...report.checksWithoutRequirement.map(
      (title) => `<li>the check <code>${escape(title)}</code> cites no requirement</li>`,
    ),
    ...(report.malformedAnnotations ?? []).map(
      (m) =>
        `<li>reporter error: the check <code>${escape(m.check)}</code> has an unreadable <code>${escape(m.type)}</code> annotation (${escape(m.problem)}); it is not taken as verified</li>`,
    ),
  ];
}
