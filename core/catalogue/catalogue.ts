// The requirement catalogue and the open interpretations, as the harness reads them: straight from
// the contract (requirements/index.ts, which validates both files at import). Nothing here
// re-declares a requirement or an interpretation, or looks one up by ID: requirementById,
// hasRequirement and interpretationById in requirements/index.ts are the one lookup.
import { join } from 'node:path';
import { interpretations, requirements } from '../../requirements/index.ts';
import type { Requirement } from '../../requirements/types.ts';

export const repoRoot = join(import.meta.dirname, '..', '..');

/** The catalogued requirements, in catalogue order. */
export function loadCatalogue(): Requirement[] {
  return [...requirements];
}

export type InterpretationValue = string | number | boolean;

/** One open interpretation a target profile may declare under `interpretations.<key>`. */
export interface InterpretationOption {
  key: string;
  id: string;
  title?: string;
  /** The allowed values, when the choice is one of a list. */
  values?: InterpretationValue[];
  /** A JSON Schema fragment, when the declared value is structured. */
  schema?: Record<string, unknown>;
  /** The reference server's choice, assumed when a profile declares nothing. */
  default: unknown;
}

export function loadInterpretations(): InterpretationOption[] {
  return interpretations.map((i) => ({
    key: i.key,
    id: i.id,
    title: i.title,
    ...(i.values ? { values: [...i.values] as InterpretationValue[] } : {}),
    ...(i.schema ? { schema: i.schema } : {}),
    default: i.default,
  }));
}
