// JUnit of an audit: one testcase per requirement, FAIL and WARN as failures (as a failed check
// reads in a run's JUnit), UNOBSERVED, SKIP and NOT_APPLICABLE as skipped with their reason.
import type { ConformanceReport } from '../reporter/report.schema.ts';

const escapeXml = (s: string): string =>
  // eslint-disable-next-line no-control-regex
  s.replace(/[&"'<>]/g, (c) => ({ '&': '&amp;', '"': '&quot;', "'": '&apos;', '<': '&lt;', '>': '&gt;' })[c]!).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

export function auditJunit(report: ConformanceReport): string {
  const areas = [...new Set(report.requirements.map((r) => r.area))];
  let failures = 0;
  let skipped = 0;
  const suites = areas.map((area) => {
    const rs = report.requirements.filter((r) => r.area === area);
    let f = 0;
    let s = 0;
    const cases = rs.map((r) => {
      const open = `    <testcase classname="audit.${escapeXml(area)}" name="${escapeXml(r.id)} ${escapeXml(r.statement)}" time="0">`;
      if (r.verdict === 'FAIL' || r.verdict === 'WARN') {
        f += 1;
        return `${open}\n      <failure message="${escapeXml(`${r.verdict}: ${r.reason ?? ''}`)}" type="${r.verdict}"/>\n    </testcase>`;
      }
      if (r.verdict !== 'PASS' && r.verdict !== 'WAIVED') {
        s += 1;
        return `${open}\n      <skipped message="${escapeXml(`${r.verdict}: ${r.reason ?? ''}`)}"/>\n    </testcase>`;
      }
      return `${open}\n      <system-out>${escapeXml(r.reason ?? r.verdict)}</system-out>\n    </testcase>`;
    });
    failures += f;
    skipped += s;
    return `  <testsuite name="audit ${escapeXml(area)}" tests="${rs.length}" failures="${f}" errors="0" skipped="${s}" time="0">\n${cases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="token-conformance audit" tests="${report.requirements.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${(report.durationMs / 1000).toFixed(3)}">\n${suites.join('\n')}\n</testsuites>\n`;
}
