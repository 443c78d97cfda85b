// The level policy, in one place: a broken MUST — or the target's declared INTERPRETATION — blocks
// (FAIL); a broken SHOULD or ADVISORY warns (WARN). The `--level` selection, the tags a check
// carries, the self-validation's expected verdicts and the gate's `must` rule all read it here.
import type { RequirementLevel } from './types.ts';

/** The `--level` selection: which requirement levels a run verifies. */
export type LevelSelection = 'must' | 'should' | 'all';

/** The levels whose broken requirement blocks (FAIL); the others warn. */
export const blockingLevels: readonly RequirementLevel[] = ['MUST', 'INTERPRETATION'];

/** Whether a broken requirement of this level blocks (FAIL) rather than warns (WARN). */
export function blocks(level: string): boolean {
  return (blockingLevels as readonly string[]).includes(level);
}

/** The verdict a broken requirement of this level reads. */
export function brokenVerdict(level: string): 'FAIL' | 'WARN' {
  return blocks(level) ? 'FAIL' : 'WARN';
}

/** The tag a check of a requirement of this level carries (`--grep @must`). */
export const levelTags: Record<RequirementLevel, string> = {
  MUST: '@must',
  SHOULD: '@should',
  ADVISORY: '@advisory',
  INTERPRETATION: '@interpretation',
};

/** The requirement levels a `--level` selection covers: the blocking ones, then SHOULD, then ADVISORY. */
export function levelsFor(selection: LevelSelection): RequirementLevel[] {
  if (selection === 'must') return [...blockingLevels];
  if (selection === 'should') return [...blockingLevels, 'SHOULD'];
  return [...blockingLevels, 'SHOULD', 'ADVISORY'];
}

/** The Playwright --grep of a `--level` selection's tags; undefined for all levels. */
export function levelGrep(selection: LevelSelection): string | undefined {
  return selection === 'all'
    ? undefined
    : levelsFor(selection)
        .map((l) => levelTags[l])
        .join('|');
}
