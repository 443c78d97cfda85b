// An audit's verdicts in the report formats of `run`: one audit "check" per requirement, judged by
// the same buildReport (declared interpretations apply as in `run`: a FAIL of an undeclared one
// reads WARN), then worded for traffic: PASS only as "observed conformant in N exchanges", FAIL/WARN
// with the exchanges that show it, UNOBSERVED where no exchange exercised the requirement.
import { loadCatalogue } from '../../core/catalogue/catalogue.ts';
import type { TargetProfile } from '../../core/profile/profile.schema.ts';
import type { AuditSection, ConformanceReport } from '../reporter/report.schema.ts';
import { buildReport, reportedInterpretations, type CheckOutcome, type Level } from '../reporter/verdict.ts';
import { needsWording, trafficNeeds } from '../../judges/registry.ts';
import type { AuditResult } from './audit.ts';
import type { ExchangeRef } from './exchange.ts';

export const auditCheckTitle = (id: string): string => `audit › ${id}`;

const where = (r: ExchangeRef): string => `${r.file} #${r.index} at ${r.time}`;

export interface AuditReportOptions {
  level: Level;
  strict: boolean;
  profile?: TargetProfile;
  profileSha256?: string;
  suiteVersion: string;
  startedAt: Date;
  durationMs: number;
  digestKey: string;
}

export function auditReport(result: AuditResult, options: AuditReportOptions): ConformanceReport {
  const outcomes: CheckOutcome[] = loadCatalogue().map((r) => {
    const l = result.ledger.get(r.id);
    const base = {
      title: auditCheckTitle(r.id),
      file: 'audit',
      project: 'audit',
      requirementIds: [r.id],
      durationMs: 0,
    };
    if (l && l.failures > 0) {
      const first = l.findings[0]!;
      const message = `${l.failures} of ${l.observed} exchanges exercising it break it; first: ${first.message} — ${first.exchanges.map(where).join(', ')}`;
      return { ...base, status: 'failed', error: message, broke: [{ id: r.id, message }] };
    }
    if (l && l.observed > 0) return { ...base, status: 'passed' };
    const needs = trafficNeeds(r.id);
    return {
      ...base,
      status: 'skipped',
      unobservedReason: needs
        ? `no exchange of the audited traffic exercised it (${needsWording[needs]})`
        : 'recorded traffic cannot show it: only an active check (`token-conformance run`) verifies it',
    };
  });
  const profile = options.profile;
  const report = buildReport(loadCatalogue(), outcomes, {
    level: options.level,
    filtered: false,
    strict: options.strict,
    suiteVersion: options.suiteVersion,
    startedAt: options.startedAt,
    durationMs: options.durationMs,
    target: profile
      ? {
          name: profile.name,
          local: profile.local,
          ...(profile.environment ? { environment: profile.environment } : {}),
          authUrlUs: profile.authUrlUs,
          authUrlEu: profile.authUrlEu,
          baseUrl: profile.baseUrl,
          ...(options.profileSha256 ? { profileSha256: options.profileSha256 } : {}),
          interpretations: reportedInterpretations(profile.interpretations),
        }
      : { name: 'recorded traffic (no profile)', local: false, interpretations: {} },
  });
  // A PASS from traffic is an observation, never a verification: said in its reason.
  for (const r of report.requirements) {
    const observed = result.ledger.get(r.id)?.observed ?? 0;
    if (r.verdict === 'PASS') {
      r.reason = `observed conformant in ${observed} exchange${observed === 1 ? '' : 's'}`;
      for (const c of r.checks) c.reason = r.reason;
    }
  }
  const judgedVerdict = new Map(report.requirements.map((r) => [r.id, r.verdict]));
  const findings: AuditSection['findings'] = result.ledger
    .findings()
    .filter((f) => judgedVerdict.get(f.requirement) === 'FAIL' || judgedVerdict.get(f.requirement) === 'WARN')
    .map((f) => ({
      requirement: f.requirement,
      verdict: judgedVerdict.get(f.requirement) as 'FAIL' | 'WARN',
      message: f.message,
      exchanges: f.exchanges,
    }));
  return {
    ...report,
    audit: {
      traffic: result.files.map((f) => ({
        file: f.file,
        format: f.format,
        exchanges: f.exchanges,
        skipped: f.skipped,
      })),
      kinds: { ...result.kinds },
      ...(result.firstAt ? { firstExchangeAt: result.firstAt } : {}),
      ...(result.lastAt ? { lastExchangeAt: result.lastAt } : {}),
      digestKey: options.digestKey,
      findings,
    },
  };
}
