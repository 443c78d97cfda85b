// The shape of one catalogued requirement. The catalogue itself lives in requirements.json
// beside this file (validated by schemas/requirement-catalogue.schema.json). The types are
// derived from that schema's source, so the schema and the types cannot drift apart.
import type {
  Interpretation as InterpretationEntry,
  Requirement as RequirementEntry,
} from '../schemas/src/requirement-catalogue.ts';
import type {
  requirementAreas,
  requirementCapabilities,
  requirementLevels,
} from '../schemas/src/requirement-catalogue.ts';

export type RequirementLevel = (typeof requirementLevels)[number];

export type RequirementArea = (typeof requirementAreas)[number];

/** A need named in `needs`: one of the fixed list, or a named profile entry (`client:usCcOnlyClient`, `resource:queryRoute` …). */
export type RequirementNeed =
  (typeof requirementCapabilities)[number] | `${'client' | 'user' | 'token' | 'resource' | 'person'}:${string}`;

/**
 * One requirement: `id` (stable, never renamed), `level`, `area`, `source` (spec clause and/or RFC
 * section), `statement` (one testable sentence), `interpretation` (the OI-n it depends on),
 * `needs` (capabilities, else SKIP with the reason), `note` (why it reads as it does).
 */
export type Requirement = Omit<RequirementEntry, 'needs'> & { needs?: RequirementNeed[] };

/** One open interpretation of requirements/interpretations.json. */
export type Interpretation = InterpretationEntry;
