// How one lifecycle variant reads a model/target disagreement: a finding of the requirement its
// prediction comes from when the variant cites it (FAIL that one only); otherwise that requirement
// stands in the way of what the variant verifies, and the variant is BLOCKED by it (the variant
// that cites it FAILs it). Anything that is no disagreement fails the check as a whole.
import { BlockedByRequirement, type Finding } from '../attributed-property.ts';
import { ModelDisagreement } from './lifecycle.model.ts';

export function attributeDisagreement(error: unknown, cited: readonly string[]): Finding[] {
  if (!(error instanceof ModelDisagreement)) throw error;
  if (cited.includes(error.requirement)) return [{ requirement: error.requirement, expected: error.predicted, actual: `${error.got} — at ${error.command}` }];
  throw new BlockedByRequirement(error.requirement, `at ${error.command} the model predicts ${error.predicted}, the target answered ${error.got}`);
}
