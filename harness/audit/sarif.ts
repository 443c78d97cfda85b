// SARIF 2.1.0 of an audit, for code-scanning tools and pull-request annotations: one result per
// finding, the requirement as its rule, the HAR entry (or the recording's line) as its location.
import type { ConformanceReport } from '../reporter/report.schema.ts';
import { visible } from '../../core/untrusted/neutralise.ts';

export function auditSarif(
  report: ConformanceReport,
  informationUri = 'https://www.npmjs.com/package/token-conformance',
): Record<string, unknown> {
  const findings = report.audit?.findings ?? [];
  const formats = new Map((report.audit?.traffic ?? []).map((t) => [t.file, t.format]));
  const ruleIds = [...new Set(findings.map((f) => f.requirement))].sort();
  const byId = new Map(report.requirements.map((r) => [r.id, r]));
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'token-conformance audit',
            version: report.suiteVersion,
            informationUri,
            rules: ruleIds.map((id) => {
              const r = byId.get(id);
              return {
                id,
                name: id.replace(/-/g, ''),
                shortDescription: { text: r?.statement ?? id },
                fullDescription: { text: `${r?.statement ?? id} (${r?.level ?? ''}, ${r?.source ?? ''})` },
                defaultConfiguration: {
                  level: r?.level === 'MUST' || r?.level === 'INTERPRETATION' ? 'error' : 'warning',
                },
                properties: {
                  level: r?.level,
                  area: r?.area,
                  ...(r?.interpretation ? { interpretation: r.interpretation } : {}),
                },
              };
            }),
          },
        },
        results: findings.map((f) => ({
          ruleId: f.requirement,
          ruleIndex: ruleIds.indexOf(f.requirement),
          level: f.verdict === 'FAIL' ? 'error' : 'warning',
          // A finding quotes the recorded traffic: code-scanning views show it as text.
          message: { text: visible(f.message) },
          locations: f.exchanges.map((e) => ({
            physicalLocation: {
              artifactLocation: { uri: e.file.split('\\').join('/') },
              // A recording has one exchange per line after its header line.
              ...(formats.get(e.file) === 'recording' ? { region: { startLine: e.index + 2 } } : {}),
            },
            logicalLocations: [
              {
                fullyQualifiedName:
                  formats.get(e.file) === 'recording' ? `exchange[${e.index}]` : `log.entries[${e.index}]`,
                kind: 'element',
              },
            ],
            message: { text: `exchange ${e.index} at ${e.time}` },
          })),
        })),
      },
    ],
  };
}
