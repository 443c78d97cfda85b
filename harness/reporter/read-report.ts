// Reading a conformance report back from disk (gate, diff, merge, bundle and waivers all start here).
import { readFileSync } from 'node:fs';
import { formatIssues } from '../../core/profile/load-profile.ts';
import { conformanceReportSchema, type ConformanceReport } from './report.schema.ts';

export class ReportError extends Error {
  override readonly name = 'ReportError';
}

/** Reads and validates a conformance report (schemas/conformance-report.schema.json). */
export function readReport(file: string): ConformanceReport {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ReportError(
      `report ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not readable JSON (${(error as Error).message})`}`,
    );
  }
  const parsed = conformanceReportSchema.safeParse(raw);
  if (!parsed.success)
    throw new ReportError(
      formatIssues(parsed.error.issues, raw, 'see schemas/conformance-report.schema.json')
        .slice(0, 10)
        .map((p) => `report ${file}: ${p}`)
        .join('\n'),
    );
  return parsed.data;
}
