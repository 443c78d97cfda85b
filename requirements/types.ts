// The shape of one catalogued requirement. The catalogue itself lives in requirements.json
// beside this file (validated by schemas/requirement-catalogue.schema.json).

export type RequirementLevel = 'MUST' | 'SHOULD' | 'ADVISORY' | 'INTERPRETATION';

export type RequirementArea = 'grants' | 'lifecycle' | 'token-errors' | 'gateway' | 'limits' | 'versioning' | 'transport' | 'client-auth' | 'token-responses' | 'token-requests' | 'bearer';

export interface Requirement {
  /** Stable ID; never renamed once published. */
  id: string;
  level: RequirementLevel;
  area: RequirementArea;
  /** Where it comes from: spec clause and/or RFC section. */
  source: string;
  /** One testable sentence. */
  statement: string;
  /** The open interpretation (OI-n) it depends on, if any. */
  interpretation?: string;
  /** Capabilities a target must have for the check to run (e.g. clock-control); otherwise SKIP with the reason. */
  needs?: string[];
}
