// What a CI job shows of a conformance report: a Markdown summary (GitHub's job summary, a GitLab
// job's artifact), one annotation per failing requirement (GitHub workflow commands), and the
// verdict counts as step outputs (`key=value` lines: GitHub's $GITHUB_OUTPUT, a GitLab dotenv
// report). The action (action.yml) and the GitLab template call `token-conformance ci-summary`,
// so their steps stay one line each.
import type { ConformanceReport, RequirementResult } from '../reporter/report.schema.ts';
import { consoleText, markdownCell, markdownCode, visible } from '../../core/untrusted/neutralise.ts';
import { causesCountLine, reportCauses } from '../reporter/cause-lines.ts';

/** The verdicts a summary lists one by one, in this order, with what a reader needs to act. */
const listed = ['FAIL', 'UNCHECKED', 'WARN', 'BLOCKED'] as const;

/** How much of a reason a summary row quotes (the report has it whole). */
const reasonLength = 300;

/** Words of the catalogue or the profile (a clause, a statement, the target's name): one line, pipes escaped. */
const ownCell = (s: string): string => s.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|').trim();

/**
 * A row: the catalogue's words as table text, the reason — the target's words — as a code span
 * (markdownCell), so that nothing the target sent renders as a link, a mention or markup.
 */
function requirementRow(r: RequirementResult): string {
  const blocked = r.verdict === 'BLOCKED' && r.blockedBy?.length ? `blocked by ${r.blockedBy.join(', ')}: ` : '';
  const reason = (r.reason ?? '').trim();
  const quoted = reason.length > reasonLength ? `${reason.slice(0, reasonLength)}…` : reason;
  return `| ${r.id} | ${ownCell(r.source)} | ${r.level} | ${ownCell(r.statement)} | ${blocked}${markdownCell(quoted)} |`;
}

export interface SummaryOptions {
  /** Where the uploaded reports can be read (an artifact's address), linked from the summary. */
  reportsUrl?: string;
  /** The report file, as the reader's workspace names it. */
  reportPath?: string;
}

export function markdownSummary(report: ConformanceReport, options: SummaryOptions = {}): string {
  const s = report.summary;
  const counts: [string, number][] = [
    ['PASS', s.PASS],
    ['FAIL', s.FAIL],
    ['WARN', s.WARN],
    ['BLOCKED', s.BLOCKED ?? 0],
    ['PENDING', s.PENDING ?? 0],
    ['SKIP', s.SKIP],
    ['NOT_APPLICABLE', s.NOT_APPLICABLE],
    ['UNCHECKED', s.UNCHECKED],
    ...(s.WAIVED !== undefined ? [['WAIVED', s.WAIVED] as [string, number]] : []),
  ];
  const catalogue = report.catalogue ? `, catalogue ${report.catalogue.version}` : '';
  const lines = [
    `## token-conformance: ${report.verdict} — ${ownCell(report.target.name)}`,
    '',
    `Suite ${report.suiteVersion}${catalogue}: ${s.total} requirements scored, ${report.checks.total} checks run${report.selection.shard ? ` (shard ${report.selection.shard})` : ''}.`,
    '',
    `| ${counts.map(([v]) => v).join(' | ')} | total |`,
    `| ${counts.map(() => '---:').join(' | ')} | ---: |`,
    `| ${counts.map(([, n]) => String(n)).join(' | ')} | ${s.total} |`,
  ];
  lines.push(...causesMarkdown(report));
  for (const verdict of listed) {
    const rs = report.requirements.filter((r) => r.verdict === verdict);
    if (rs.length === 0) continue;
    lines.push(
      '',
      `### ${verdict} (${rs.length})`,
      '',
      '| requirement | clause | level | statement | reason |',
      '| --- | --- | --- | --- | --- |',
      ...rs.map(requirementRow),
    );
  }
  if (report.notScored?.length) {
    lines.push(
      '',
      `Not scored in catalogue ${report.catalogue?.version ?? ''} (added later; never counted): ${report.notScored.map((r) => `${r.id} ${r.verdict}`).join(', ')}.`,
    );
  }
  const where = [
    options.reportsUrl ? `[uploaded reports](${options.reportsUrl})` : undefined,
    options.reportPath ? markdownCode(options.reportPath) : undefined,
  ].filter((x) => x !== undefined);
  if (where.length > 0)
    lines.push(
      '',
      `Reports: ${where.join(' — ')} (conformance.json, ctrf.json, traceability.html, junit.xml, transcripts/).`,
    );
  return `${lines.join('\n')}\n`;
}

/** Findings that group requirements under one cause, and the choices to declare with their profile lines. */
function causesMarkdown(report: ConformanceReport): string[] {
  const causes = reportCauses(report);
  if (causes.broken === 0) return [];
  const grouped = causes.findings.filter((f) => f.requirements.length > 1);
  const lines = ['', `**Findings:** ${causesCountLine(causes)}.`];
  if (grouped.length > 0)
    lines.push(
      '',
      '### Findings by cause',
      '',
      '| verdict | cause | requirements |',
      '| --- | --- | --- |',
      ...grouped.map((f) => `| ${f.verdict} | ${markdownCell(f.sentence)} | ${f.requirements.join(' ')} |`),
    );
  if (causes.assumptions.length > 0)
    lines.push(
      '',
      `### Declare these (${causes.assumptions.length})`,
      '',
      'WARN only because the profile does not declare the choice the check relied on; add the line to the profile to have the target judged on its own choice.',
      '',
      ...causes.assumptions.flatMap((a) => [
        `- ${a.requirements.join(' ')}: assumed ${markdownCode(a.assumed)}${a.observed !== undefined ? `; the answers point at ${markdownCode(a.observed)}` : ''}`,
        '',
        '  ```json',
        `  ${a.profileLine}`,
        '  ```',
      ]),
    );
  return lines;
}

/** GitHub workflow-command escaping: the message, and a property value (also `:` and `,`). */
const escapeData = (s: string): string => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (s: string): string => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/** One `::error` per FAIL/UNCHECKED requirement, one `::warning` per WARN/BLOCKED, each with its clause. */
export function githubAnnotations(report: ConformanceReport): string[] {
  return report.requirements
    .filter((r) => (listed as readonly string[]).includes(r.verdict))
    .map((r) => {
      const command = r.verdict === 'FAIL' || r.verdict === 'UNCHECKED' ? 'error' : 'warning';
      const why =
        r.verdict === 'BLOCKED' && r.blockedBy?.length
          ? `blocked by ${r.blockedBy.join(', ')}: ${r.reason ?? ''}`
          : (r.reason ?? r.statement);
      return `::${command} title=${escapeProperty(`${r.verdict} ${r.id} (${r.source})`)}::${escapeData(visible(`${r.statement} — ${why}`))}`;
    });
}

/** One plain line per FAIL/UNCHECKED/WARN/BLOCKED requirement (a log without annotations): the target's words on one line, never first. */
export function plainLines(report: ConformanceReport): string[] {
  return report.requirements
    .filter((r) => (listed as readonly string[]).includes(r.verdict))
    .map((r) => `${r.verdict} ${r.id} (${r.source}): ${consoleText(r.reason ?? r.statement)}`);
}

/** The step outputs: the verdict, one count per verdict (kebab-case), the report's path. */
export function stepOutputs(report: ConformanceReport, reportPath: string): Record<string, string> {
  const s = report.summary;
  return {
    verdict: report.verdict,
    pass: String(s.PASS),
    fail: String(s.FAIL),
    warn: String(s.WARN),
    blocked: String(s.BLOCKED ?? 0),
    pending: String(s.PENDING ?? 0),
    skip: String(s.SKIP),
    'not-applicable': String(s.NOT_APPLICABLE),
    unchecked: String(s.UNCHECKED),
    waived: String(s.WAIVED ?? 0),
    total: String(s.total),
    'not-scored': String(report.notScored?.length ?? 0),
    catalogue: report.catalogue?.version ?? '',
    report: reportPath,
  };
}
