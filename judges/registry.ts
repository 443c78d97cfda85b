// The registry: every judge, under its requirement ID. It IS the list of what traffic can judge —
// `audit` runs every judge in it, a live check asks it for one (fixtures' `toSatisfy`), and the
// audit report says of any other requirement that only an active check verifies it. Adding a rule
// that traffic can show is adding a judge to one of the lists below (docs/add-a-check.md).
import { hasRequirement } from '../requirements/index.ts';
import type { Judge, JudgeNeeds } from './judge.ts';
import { protectedJudges } from './protected-judges.ts';
import {
  accessTokenJudges,
  bearerJudges,
  clientSecretJudges,
  issuedTokenRefusalJudges,
  refreshJudges,
} from './sequence-judges.ts';
import { tokenErrorJudges, tokenRequestJudges, tokenSuccessJudges } from './token-judges.ts';
import { transportJudges } from './transport-judges.ts';

const all: Judge[] = [
  ...transportJudges,
  ...tokenRequestJudges,
  ...tokenSuccessJudges,
  ...tokenErrorJudges,
  ...protectedJudges,
  ...refreshJudges,
  ...clientSecretJudges,
  ...accessTokenJudges,
  ...bearerJudges,
  ...issuedTokenRefusalJudges,
];

function byRequirement(list: readonly Judge[]): ReadonlyMap<string, Judge> {
  const map = new Map<string, Judge>();
  for (const judge of list) {
    if (map.has(judge.requirement)) throw new Error(`two judges for ${judge.requirement}: one place decides each`);
    if (!hasRequirement(judge.requirement)) throw new Error(`a judge for ${judge.requirement}, not in the catalogue`);
    map.set(judge.requirement, judge);
  }
  return map;
}

export const judges: ReadonlyMap<string, Judge> = byRequirement(all);

/** The judge of a requirement, if traffic can show it. */
export const judgeOf = (requirement: string): Judge | undefined => judges.get(requirement);

/**
 * What traffic alone can say of a requirement, derived from the registry: `undefined` when only an
 * active check verifies it, else what its judge needs (one exchange, a sequence, a sequence on the
 * target's clock).
 */
export const trafficNeeds = (requirement: string): JudgeNeeds | undefined => judges.get(requirement)?.needs;

export const needsWording: Record<JudgeNeeds, string> = {
  exchange: 'one exchange shows it',
  sequence: 'it takes the exchanges before it (what was issued, used, presented)',
  clock: "it takes the exchanges before it on the target's clock (a lifetime, a window)",
};
