// The files that say a run's verdict, written together wherever a report is (re)judged — by the
// reporter, after waivers or a catalogue release were applied, by a merge of shards — so that
// conformance.json, traceability.html and ctrf.json never disagree.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ctrfReport } from './ctrf-report.ts';
import type { ConformanceReport } from './report.schema.ts';
import { renderTraceability } from './traceability-html.ts';

export const reportFileNames = ['conformance.json', 'traceability.html', 'ctrf.json'] as const;

export function writeReportFiles(dir: string, report: ConformanceReport): void {
  writeFileSync(
    join(dir, 'conformance.json'),
    `${JSON.stringify({ $schema: '../schemas/conformance-report.schema.json', ...report }, null, 2)}\n`,
  );
  writeFileSync(join(dir, 'traceability.html'), renderTraceability(report));
  writeFileSync(join(dir, 'ctrf.json'), `${JSON.stringify(ctrfReport(report), null, 2)}\n`);
}
