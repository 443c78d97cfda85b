// The requirement catalogue and the open interpretations, loaded once and validated against their
// schemas: a malformed catalogue fails at import, never halfway through a run.
import { readFileSync } from 'node:fs';
import { assertValid } from '../schemas/index.ts';
import type { Interpretation, Requirement } from './types.ts';

export { requirementAreas, requirementCapabilities, requirementLevels } from '../schemas/src/requirement-catalogue.ts';
export type { Interpretation, Requirement, RequirementArea, RequirementLevel, RequirementNeed } from './types.ts';
export type { InterpretationKey, InterpretationValues } from './interpretation-values.ts';

export const catalogueFile = new URL('./requirements.json', import.meta.url);
export const interpretationsFile = new URL('./interpretations.json', import.meta.url);

function load(file: URL): unknown {
  return JSON.parse(readFileSync(file, 'utf8')) as unknown;
}

const catalogue = load(catalogueFile);
assertValid('requirement-catalogue', catalogue, 'requirements/requirements.json');
const interpretationCatalogue = load(interpretationsFile);
assertValid('interpretation-catalogue', interpretationCatalogue, 'requirements/interpretations.json');

/** Every catalogued requirement, in catalogue order. */
export const requirements: readonly Requirement[] = Object.freeze(catalogue.requirements as Requirement[]);

/** Every open interpretation a target profile may declare. */
export const interpretations: readonly Interpretation[] = Object.freeze(interpretationCatalogue.interpretations);

const byId = new Map(requirements.map((requirement) => [requirement.id, requirement]));
const interpretationsById = new Map(interpretations.map((interpretation) => [interpretation.id, interpretation]));

/** The requirement with this ID; throws for an unknown ID, so a check citing a typo fails loudly. */
export function requirementById(id: string): Requirement {
  const requirement = byId.get(id);
  if (!requirement) throw new Error(`unknown requirement ID "${id}" (not in requirements/requirements.json)`);
  return requirement;
}

/** Whether the catalogue has this ID. */
export const hasRequirement = (id: string): boolean => byId.has(id);

/** The open interpretation OI-n; throws for an unknown one. */
export function interpretationById(id: string): Interpretation {
  const interpretation = interpretationsById.get(id);
  if (!interpretation) throw new Error(`unknown interpretation "${id}" (not in requirements/interpretations.json)`);
  return interpretation;
}
