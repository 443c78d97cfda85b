// The audit itself: every exchange of the traffic files, in time order per file and files in the
// order given, through every judge of the registry (judges/registry.ts). What it saw goes to a Ledger.
import type { TargetProfile } from '../../core/profile/profile.schema.ts';
import type { ExchangeKind } from '../../judges/classify.ts';
import { TrafficJudgement } from '../../judges/judge-traffic.ts';
import { Ledger } from './ledger.ts';
import { exchangesOf, trafficFormat, type TrafficFormat } from './read-traffic.ts';
import type { Digester } from './secret-digest.ts';

export interface AuditedFile {
  file: string;
  format: TrafficFormat;
  exchanges: number;
  skipped: number;
}

export interface AuditResult {
  ledger: Ledger;
  files: AuditedFile[];
  kinds: Record<ExchangeKind, number>;
  /** Entries that could not be read (skipped, with why): at most the first few. */
  skipped: { file: string; index: number; why: string }[];
  firstAt?: string;
  lastAt?: string;
}

export interface AuditOptions {
  profile?: TargetProfile;
  digester: Digester;
  known?: readonly string[];
}

export async function audit(files: readonly string[], options: AuditOptions): Promise<AuditResult> {
  const ledger = new Ledger();
  const judgement = new TrafficJudgement(options.profile);
  const kinds: Record<ExchangeKind, number> = {
    'token-us': 0,
    'token-eu': 0,
    'token-other-version': 0,
    protected: 0,
    clock: 0,
    other: 0,
  };
  const result: AuditResult = { ledger, files: [], kinds, skipped: [] };
  for (const file of files) {
    const audited: AuditedFile = { file, format: trafficFormat(file), exchanges: 0, skipped: 0 };
    result.files.push(audited);
    const onSkip = (f: string, index: number, why: string) => {
      audited.skipped += 1;
      if (result.skipped.length < 20) result.skipped.push({ file: f, index, why });
    };
    for await (const exchange of exchangesOf(file, {
      digester: options.digester,
      ...(options.known ? { known: options.known } : {}),
      onSkip,
    })) {
      audited.exchanges += 1;
      if (result.firstAt === undefined || exchange.startedAt < result.firstAt) result.firstAt = exchange.startedAt;
      if (result.lastAt === undefined || exchange.startedAt > result.lastAt) result.lastAt = exchange.startedAt;
      const { classified, verdicts } = judgement.observe(exchange);
      kinds[classified.kind] += 1;
      for (const v of verdicts)
        if (v.held) ledger.held(v.requirement, v.exchanges.at(-1));
        else ledger.broke(v.requirement, v.message ?? '', v.exchanges);
    }
  }
  return result;
}
