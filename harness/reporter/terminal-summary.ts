// The terminal summary: one line per area, the requirements that need attention, and one final
// verdict line (what a CI log shows).
import { renderParity } from '../parity/region-parity.ts';
import type { ConformanceReport, Verdict } from './report.schema.ts';
import { describeUnjudgedBlocks, unjudgedBlocks } from './unjudged-blocks.ts';
import { earliestDue } from './verdict.ts';
import { cutAtWord } from '../../core/redaction/cut.ts';
import { reportVerification, verificationLine } from './verification.ts';
import { describeShaping } from '../../core/profile/token-parameters.ts';
import { consoleText, terminalOutput } from '../../core/untrusted/neutralise.ts';
import { causesCountLine, reportCauses, type ReportCauses } from './cause-lines.ts';

const order: Verdict[] = [
  'PASS',
  'FAIL',
  'WARN',
  'BLOCKED',
  'PENDING',
  'SKIP',
  'NOT_APPLICABLE',
  'UNCHECKED',
  'UNOBSERVED',
];

type Requirement = ConformanceReport['requirements'][number];
type Paint = (verdict: string, text: string) => string;

export function renderSummary(report: ConformanceReport, colour = false, where = 'reports'): string {
  const paint: Paint = (v, text) => {
    if (!colour) return text;
    const code =
      v === 'PASS'
        ? 32
        : v === 'FAIL'
          ? 31
          : v === 'WARN' || v === 'BLOCKED'
            ? 33
            : v === 'UNCHECKED'
              ? 35
              : v === 'PENDING'
                ? 36
                : 90;
    return `\u001b[${code}m${text}\u001b[0m`;
  };
  const areas = [...new Set(report.requirements.map((r) => r.area))];
  const width = Math.max(8, ...areas.map((a) => a.length));
  const having = (verdict: Verdict) => report.requirements.filter((r) => r.verdict === verdict);
  const causes = reportCauses(report);
  return [
    ...profileBanner(report, paint),
    '',
    `Conformance of ${consoleText(report.target.name)} (suite ${report.suiteVersion}, level ${report.selection.level})`,
    ...shapingLines(report.target.requestShaping),
    ...areas.map((area) =>
      areaLine(
        report.requirements.filter((r) => r.area === area),
        area.padEnd(width),
        paint,
      ),
    ),
    ...findingLines(causes, paint),
    ...brokenLines(
      report.requirements.filter((r) => r.verdict === 'FAIL' || r.verdict === 'WARN'),
      paint,
      new Set([...causes.grouped, ...causes.assumedOnly]),
    ),
    ...declareLines(causes, paint),
    ...uncheckedLines(having('UNCHECKED'), areas, width, paint),
    ...blockedLines(having('BLOCKED'), paint),
    ...settledLines(
      report.requirements.filter((r) => r.settled && r.settled.length > 0),
      paint,
    ),
    ...pendingLines(having('PENDING'), paint),
    ...skippedLines(having('SKIP')),
    ...suiteDefectLines(report, paint),
    ...parityLines(report, paint),
    ...closingLines(report, where, paint, causes),
  ].join('\n');
}

/** The profile errors the preflight found, first: what they blocked is the profile's doing, not the target's. */
function profileBanner(report: ConformanceReport, paint: Paint): string[] {
  const problems = report.profileProblems ?? [];
  if (problems.length === 0) return [];
  return [
    '',
    paint(
      'BLOCKED',
      `PROFILE ERROR — ${problems.length} credential(s) of the profile were refused; the checks needing them are BLOCKED by the profile, not FAILs of the target:`,
    ),
    ...problems.map((p) => terminalOutput(`  ${p}`)),
  ];
}

/** The declared request shaping, right under the title: every verdict below was reached with it. */
function shapingLines(shaping: ConformanceReport['target']['requestShaping']): string[] {
  if (!shaping || shaping.length === 0) return [];
  return [
    'Declared request shaping (tokenParameters; not sent by the spec-shaped checks GRANT-CC-001/002, GRANT-PW-001, GRANT-RT-001):',
    ...shaping.map((s) => `  ${consoleText(describeShaping(s))}`),
  ];
}

function areaLine(requirements: Requirement[], paddedArea: string, paint: Paint): string {
  const parts = order
    .map((v) => [v, requirements.filter((r) => r.verdict === v).length] as const)
    .filter(([, n]) => n > 0)
    .map(([v, n]) => paint(v, `${n} ${v}`));
  return `  ${paddedArea}  ${parts.join(', ')}`;
}

/** The FAIL/WARN requirements one by one, but those `listedElsewhere` (under their cause, or to declare); every property's replay. */
function brokenLines(broken: Requirement[], paint: Paint, listedElsewhere: ReadonlySet<string>): string[] {
  if (broken.length === 0) return [];
  const shown = broken.filter((r) => !listedElsewhere.has(r.id));
  const lines = shown.length > 0 ? ['', 'Broken:'] : [];
  const replays = new Set<string>();
  for (const r of broken) {
    if (!listedElsewhere.has(r.id))
      lines.push(`  ${paint(r.verdict, r.verdict.padEnd(4))} ${r.id}  ${firstLine(r.reason ?? '')}`);
    for (const c of r.checks)
      if (c.property?.path !== undefined && (c.verdict === 'FAIL' || c.verdict === 'WARN'))
        replays.add(
          consoleText(
            `${c.property.name}: seed ${c.property.seed}, path ${c.property.path} — replay: ${c.property.replay}`,
          ),
        );
  }
  if (replays.size > 0)
    lines.push('', 'Property counterexamples (shrunk):', ...[...replays].map((line) => `  ${line}`));
  return lines;
}

/** One defect the target showed across requirements, said once with every requirement it breaks. */
function findingLines(causes: ReportCauses, paint: Paint): string[] {
  const grouped = causes.findings.filter((f) => f.requirements.length > 1);
  if (grouped.length === 0) return [];
  return [
    '',
    'Findings by cause (one defect of the target, every requirement it breaks):',
    ...grouped.map(
      (f) =>
        `  ${paint(f.verdict, f.verdict.padEnd(4))} ${String(f.requirements.length).padStart(3)} × ${consoleText(f.sentence)}: ${f.requirements.join(' ')}`,
    ),
  ];
}

/** WARNs on a choice the profile did not declare: not the target's fault until declared, with the lines that declare it. */
function declareLines(causes: ReportCauses, paint: Paint): string[] {
  if (causes.assumptions.length === 0) return [];
  return [
    '',
    'Declare these (WARN only because the profile does not declare the choice; add the line to the profile to have it judged):',
    ...causes.assumptions.flatMap((a) => [
      `  ${paint('WARN', 'WARN')} ${a.requirements.join(' ')} — assumed ${consoleText(a.assumed)}${a.observed !== undefined ? `; the answers point at ${consoleText(a.observed)}` : ''}`,
      `         ${consoleText(a.profileLine)}`,
    ]),
  ];
}

const noCheck = 'no check cites this requirement';

/** UNCHECKED by cause: no check cites them (a defect of the suite), a suite error, the run's deadline. */
function uncheckedLines(unchecked: Requirement[], areas: string[], width: number, paint: Paint): string[] {
  if (unchecked.length === 0) return [];
  const byReason = new Map<string, Requirement[]>();
  for (const r of unchecked) byReason.set(r.reason ?? noCheck, [...(byReason.get(r.reason ?? noCheck) ?? []), r]);
  const lines: string[] = [];
  for (const [reason, group] of byReason) {
    // A suite error's reason quotes the exception, which may quote the target: made inert like every reason.
    const what = reason === noCheck ? 'catalogued but no check cites them (a defect of the suite)' : firstLine(reason);
    lines.push('', paint('UNCHECKED', `UNCHECKED — ${what}: ${group.length}`));
    for (const area of areas) {
      const ids = group.filter((r) => r.area === area).map((r) => r.id);
      if (ids.length > 0) lines.push(`  ${area.padEnd(width)}  ${ids.join(' ')}`);
    }
  }
  return lines;
}

/**
 * One line per blocker and reason: the requirement that blocked them (when known) comes first. Blocks
 * the profile caused (a refused credential, a declaration the check cannot use) stand apart: the
 * field to fix is the profile's, and nothing of the target is to blame.
 */
function blockedLines(blocked: Requirement[], paint: Paint): string[] {
  if (blocked.length === 0) return [];
  const line = ([key, ids]: [string, string[]]) =>
    `  ${paint('BLOCKED', String(ids.length).padStart(3))} × ${key}: ${heldBackIds(ids)}`;
  const byTarget = groupIds(
    blocked.filter((r) => r.blockedByProfile === undefined),
    (r) =>
      `${r.blockedBy && r.blockedBy.length > 0 ? `by ${r.blockedBy.join(', ')}: ` : ''}${firstLine(r.reason ?? 'no reason')}`,
  );
  const byProfile = groupIds(
    blocked.filter((r) => r.blockedByProfile !== undefined),
    (r) => {
      const reason = firstLine(r.reason ?? 'no reason');
      return reason.includes(r.blockedByProfile!) ? reason : `fix ${consoleText(r.blockedByProfile!)}: ${reason}`;
    },
  );
  return [
    ...(byTarget.size > 0
      ? ['', 'Blocked (not verified: the check could not reach what it verifies):', ...[...byTarget].map(line)]
      : []),
    ...(byProfile.size > 0
      ? ['', 'Blocked by the profile (not verified, and not a finding about the target):', ...[...byProfile].map(line)]
      : []),
  ];
}

/** Obligations of earlier runs settled now: the verdict, when they were recorded and settled. */
function settledLines(settledHere: Requirement[], paint: Paint): string[] {
  if (settledHere.length === 0) return [];
  const lines = ['', 'Settled (obligations recorded by an earlier run):'];
  for (const r of settledHere) {
    for (const st of r.settled!)
      lines.push(
        `  ${paint(st.outcome === 'VOID' ? 'SKIP' : st.outcome, (st.outcome === 'VOID' ? 'VOID' : st.outcome).padEnd(4))} ${r.id}  recorded in run ${st.recordedRun} at ${st.recordedAt}, settled at ${st.settledAt}${st.reason ? ` — ${firstLine(st.reason)}` : ''}`,
      );
  }
  return lines;
}

/** One line per due time: a later run (the scheduled job, with the same state file) settles them. */
function pendingLines(pending: Requirement[], paint: Paint): string[] {
  if (pending.length === 0) return [];
  const byDue = groupIds(
    [...pending].sort((a, b) => Date.parse(a.due ?? '') - Date.parse(b.due ?? '')),
    (r) => r.due ?? 'unknown',
  );
  return [
    '',
    'Pending (obligations recorded in the state file; a later run with it settles them):',
    ...[...byDue].map(
      ([due, ids]) => `  ${paint('PENDING', String(ids.length).padStart(3))} × due ${due}: ${heldBackIds(ids)}`,
    ),
  ];
}

/** One line per reason: how many, why, and which requirements (the first few ids). */
function skippedLines(skipped: Requirement[]): string[] {
  if (skipped.length === 0) return [];
  const reasons = groupIds(skipped, (r) => firstLine(r.reason ?? 'no reason'));
  return [
    '',
    'Held back (SKIP):',
    ...[...reasons].map(([reason, ids]) => `  ${String(ids.length).padStart(3)} × ${reason}: ${heldBackIds(ids)}`),
  ];
}

function suiteDefectLines(report: ConformanceReport, paint: Paint): string[] {
  return [
    ...report.unknownRequirementIds.map((id) =>
      paint('FAIL', `  suite defect: a check cites unknown requirement ${id}`),
    ),
    ...report.checksWithoutRequirement.map((t) => paint('WARN', `  suite defect: check cites no requirement: ${t}`)),
    ...(report.malformedAnnotations ?? []).map((m) =>
      paint(
        'FAIL',
        `  reporter error: unreadable '${consoleText(m.type)}' annotation (${consoleText(m.problem)}) on ${consoleText(m.check)}: not taken as verified`,
      ),
    ),
    ...describeUnjudgedBlocks(unjudgedBlocks(report)).map((l) =>
      paint('FAIL', `  suite defect: ${l}, a blocker that neither FAILs nor WARNs in this run`),
    ),
  ];
}

function parityLines(report: ConformanceReport, paint: Paint): string[] {
  if (!report.regionParity) return [];
  const [head, ...rest] = renderParity(report.regionParity);
  return [
    '',
    report.regionParity.counts.unexplained > 0 ? paint('WARN', head!) : head!,
    ...rest.map((l) => (l.trimStart().startsWith('UNEXPLAINED') ? paint('WARN', l) : l)),
  ];
}

function closingLines(report: ConformanceReport, where: string, paint: Paint, causes: ReportCauses): string[] {
  const s = report.summary;
  const lines: string[] = [];
  // A run that ran no check verified nothing: said first, in place of a green verdict (`run` exits 2 on it, shards aside).
  if (report.checks.total === 0)
    lines.push(
      '',
      paint(
        'WARN',
        `NO CHECK RAN${report.selection.grep !== undefined ? ` (--grep ${report.selection.grep})` : ''}${report.selection.shard !== undefined ? ` in shard ${report.selection.shard}` : ''}: nothing was verified`,
      ),
    );
  const soonest = earliestDue(report);
  // UNOBSERVED exists in audit reports only: a run's summary has no such count, so its line does not name it.
  const counts = order
    .filter((v) => v !== 'UNOBSERVED' || s.UNOBSERVED !== undefined)
    .map((v) => `${s[v] ?? 0} ${v}${v === 'PENDING' && soonest !== undefined ? ` (earliest due ${soonest})` : ''}`)
    .join(', ');
  const sentAgain = report.checks.sentAgain ?? 0;
  if (sentAgain > 0)
    lines.push(
      '',
      paint(
        'WARN',
        `SENT AGAIN: ${sentAgain} request${sentAgain === 1 ? '' : 's'} had no answer within the deadline, or lost a reused keep-alive connection before any answer, and ${sentAgain === 1 ? 'was' : 'were'} sent again (a slow or hanging target, a loaded machine, or an idle connection closed as it was reused; the checks' sent-again annotations in junit.xml say which)`,
      ),
    );
  lines.push('', `Verified: ${verificationLine(report.verification ?? reportVerification(report))}`);
  if (causes.broken > 0) lines.push(`Findings: ${causesCountLine(causes)}`);
  lines.push(
    paint(
      report.verdict,
      `CONFORMANCE ${report.verdict}: ${counts}${s.WAIVED !== undefined ? `, ${s.WAIVED} WAIVED` : ''} of ${s.total} requirements (${report.checks.total} checks${report.checks.requests !== undefined ? `, ${report.checks.requests} requests${report.checks.sentAgain !== undefined ? `, ${report.checks.sentAgain} sent again` : ''}` : ''}) — ${where}/conformance.json, ${where}/traceability.html`,
    ),
  );
  return lines;
}

/** The first line of a reason, short, with the target's words in it made inert for a terminal or CI log. */
const firstLine = (text: string): string => consoleText(cutAtWord(text.split('\n')[0]!, 160));

/** Groups requirement IDs by a key, in first-seen order. */
function groupIds(requirements: Requirement[], keyOf: (r: Requirement) => string): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const r of requirements) groups.set(keyOf(r), [...(groups.get(keyOf(r)) ?? []), r.id]);
  return groups;
}

/** At most `shown` ids, then how many more. */
export function heldBackIds(ids: readonly string[], shown = 6): string {
  return ids.length <= shown ? ids.join(' ') : `${ids.slice(0, shown).join(' ')} … +${ids.length - shown} more`;
}
