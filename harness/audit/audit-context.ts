// What the judges know beyond the traffic: the interpretations in force (the profile's declared
// ones, else the reference choices, as in `run`), the declared clock skew and rate limits, and
// which clients the profile says may use client_credentials only.
import { loadInterpretations } from '../../core/catalogue/catalogue.ts';
import type { TargetProfile } from '../../core/profile/profile.schema.ts';
import type { InterpretationValues } from '../../requirements/index.ts';
import type { Ledger } from './ledger.ts';

export interface AuditContext {
  ledger: Ledger;
  interpretation<K extends keyof InterpretationValues>(key: K): InterpretationValues[K];
  skewMs: number;
  rateLimit?: { spikePerSecond: number; quotaPerWindow: number; windowSeconds: number };
  /** client_ids the profile declares as allowed client_credentials only. */
  ccOnlyClients: ReadonlySet<string>;
}

export function auditContext(ledger: Ledger, profile: TargetProfile | undefined): AuditContext {
  const defaults = new Map(loadInterpretations().map((o) => [o.key, o.default]));
  const declared = (profile?.interpretations ?? {}) as Record<string, unknown>;
  const ccOnly = profile?.credentials.clients.usCcOnlyClient?.clientId;
  return {
    ledger,
    interpretation: (key) => (declared[key] ?? defaults.get(key)) as never,
    skewMs: (profile?.expectations.clockSkewSeconds ?? 60) * 1000,
    ...(profile?.capabilities.rateLimit ? { rateLimit: profile.capabilities.rateLimit } : {}),
    ccOnlyClients: new Set(ccOnly ? [ccOnly] : []),
  };
}
