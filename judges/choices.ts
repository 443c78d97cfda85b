// What a judge knows beyond the exchanges: the interpretations in force (the profile's declared
// ones, else the reference choices, as in `run`) and whether each was declared, the declared clock
// skew and rate limits, and which clients the profile says may use client_credentials only.
import { loadInterpretations } from '../core/catalogue/catalogue.ts';
import type { RateLimit, TargetProfile } from '../core/profile/profile.schema.ts';
import type { InterpretationKey, InterpretationValues } from '../requirements/index.ts';

export type { InterpretationKey };

export interface JudgeChoices {
  interpretation<K extends InterpretationKey>(key: K): InterpretationValues[K];
  /** Whether the profile declares the interpretation (else the reference choice is assumed). */
  declared(key: InterpretationKey): boolean;
  skewMs: number;
  /** Each number as declared: a judgement needs the ones it reads (the spike, or the quota with its window). */
  rateLimit?: RateLimit;
  /** client_ids the profile declares as allowed client_credentials only. */
  ccOnlyClients: ReadonlySet<string>;
}

export function choicesOf(profile: TargetProfile | undefined): JudgeChoices {
  const defaults = new Map(loadInterpretations().map((o) => [o.key, o.default]));
  const declared = (profile?.interpretations ?? {}) as Record<string, unknown>;
  const ccOnly = profile?.credentials.clients.usCcOnlyClient?.clientId;
  return {
    interpretation: (key) => (declared[key] ?? defaults.get(key)) as never,
    declared: (key) => declared[key] !== undefined,
    skewMs: (profile?.expectations.clockSkewSeconds ?? 60) * 1000,
    ...(profile?.capabilities.rateLimit ? { rateLimit: profile.capabilities.rateLimit } : {}),
    ccOnlyClients: new Set(ccOnly ? [ccOnly] : []),
  };
}
