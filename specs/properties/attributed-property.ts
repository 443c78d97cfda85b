// A property whose oracle names the requirement behind each expected answer. The check returns
// findings (requirement ID, expected answer, actual answer) instead of throwing, and the search:
//   1. scans the profile's budget of runs with the fixed seed, recording the first run that broke
//      each requirement, and stops judging once `maxRequirements` distinct requirements are broken
//      (the bound; the message says where it stopped);
//   2. shrinks, per broken requirement, from the run that first broke it, under a predicate that
//      fails only while that requirement is broken: one minimal counterexample per requirement,
//      each with its own seed, path and replay command;
//   3. pushes one `broke` annotation per requirement (`<ID> — expected …, got …; …`) and fails the
//      check. The cited requirements the property never saw broken are verified (PASS).
// A check that throws (rather than returning findings) names no requirement: the search stops
// there and the check fails as a whole, as before attribution (every cited requirement). A check
// that throws `BlockedByRequirement` found a requirement it does not cite broken, in the way of
// what it verifies: the search stops there (the input shrunk like any failure) and the check is
// BLOCKED by that requirement, unless it found cited requirements broken before (those FAIL).
import type { TestInfo } from '@playwright/test';
import fc from 'fast-check';
import { markBlocked } from '../../fixtures/clients/blocking.ts';
import { pathEnvVar, propertyAnnotation, propertySeed, replayCommand, type PropertyRecord } from './property-runner.ts';

/** The annotation type of a requirement a check found broken (the reporter FAILs exactly those). */
export const brokeAnnotation = 'broke';

/** One requirement a response breaks: what its rule expects and what came back. */
export interface Finding {
  requirement: string;
  expected: string;
  actual: string;
}

/** The check of one generated input: every requirement the answer breaks (none: the input passed). */
export type FindingCheck<T> = (input: T) => Promise<Finding[]>;

/** The first run that broke one requirement, shrunk where the target answered the same again. */
export interface BrokenRequirement {
  requirement: string;
  finding: Finding;
  counterexample: string;
  /** fast-check path (with the seed) of the shrunk counterexample: TOKEN_CONFORMANCE_PATH replays it. */
  path: string;
  shrinks: number;
  /** Set when the shrink did not reproduce the failure (the target answered differently the second time). */
  unshrunk?: true;
}

export interface SearchResult {
  seed: number;
  /** Runs judged (the scan stops judging at the bound). */
  judged: number;
  budget: number;
  broken: BrokenRequirement[];
  /** The bound on distinct requirements, and the run after which it stopped the scan. */
  bound: { maxRequirements: number; reached: boolean; atRun?: number };
  /** Set when TOKEN_CONFORMANCE_PATH replayed one counterexample instead of searching. */
  replay?: true;
  /** The check itself threw: the input, the path and the error. */
  crash?: { counterexample: string; path: string; error: unknown };
}

export interface SearchOptions {
  seed: number;
  runs: number;
  /** Distinct broken requirements after which the scan stops judging. */
  maxRequirements: number;
  /** Replay one counterexample (TOKEN_CONFORMANCE_PATH) instead of searching. */
  replayPath?: string;
}

class RequirementBroken extends Error {
  constructor(readonly finding: Finding) {
    super(`${finding.requirement}: expected ${finding.expected}, got ${finding.actual}`);
  }
}

/** Thrown by a check whose input broke a requirement the check does not cite: the check cannot go on. */
export class BlockedByRequirement extends Error {
  constructor(readonly requirement: string, readonly reason: string) {
    super(`${requirement} — ${reason}`);
  }
}

const label = (input: unknown) => fc.stringify(input);

/** Shrinks from `path` under a predicate that fails only while `requirement` is broken. */
async function shrinkFor<T>(arbitrary: fc.Arbitrary<T>, check: FindingCheck<T>, requirement: string, seed: number, path: string) {
  const property = fc.asyncProperty(arbitrary, async (input) => {
    const hit = (await check(input)).find((f) => f.requirement === requirement);
    if (hit) throw new RequirementBroken(hit);
  });
  return fc.check(property, { seed, path, numRuns: 1, endOnFailure: false });
}

/** The bounded search (no Playwright): scan, then one shrink per broken requirement. */
export async function searchFindings<T>(arbitrary: fc.Arbitrary<T>, check: FindingCheck<T>, options: SearchOptions): Promise<SearchResult> {
  const { seed, runs, maxRequirements } = options;
  const first = new Map<string, { index: number; finding: Finding; counterexample: string }>();
  let crash: SearchResult['crash'];
  let index = -1;
  let judged = 0;
  let reachedAt: number | undefined;

  if (options.replayPath !== undefined) {
    // Replay: the one input at the path, every requirement it breaks (no search, no shrink).
    const replay = fc.asyncProperty(arbitrary, async (input) => {
      judged += 1;
      try {
        for (const f of await check(input)) if (!first.has(f.requirement)) first.set(f.requirement, { index: 0, finding: f, counterexample: label(input) });
      } catch (error) {
        crash = { counterexample: label(input), path: options.replayPath!, error };
      }
    });
    await fc.check(replay, { seed, path: options.replayPath, numRuns: 1 });
    const broken = [...first.entries()].map(([requirement, e]): BrokenRequirement => ({ requirement, finding: e.finding, counterexample: e.counterexample, path: options.replayPath!, shrinks: 0 }));
    return { seed, judged, budget: 1, broken, replay: true, bound: { maxRequirements, reached: false }, ...(crash ? { crash } : {}) };
  }

  const scan = fc.asyncProperty(arbitrary, async (input) => {
    index += 1;
    if (crash || reachedAt !== undefined) return; // past the bound: the rest of the budget is not sent
    judged += 1;
    try {
      for (const f of await check(input)) {
        if (first.has(f.requirement)) continue;
        if (first.size >= maxRequirements) { reachedAt = index; break; } // the bound: this one is not reported
        first.set(f.requirement, { index, finding: f, counterexample: label(input) });
      }
    } catch (error) {
      crash = { counterexample: label(input), path: String(index), error };
      return;
    }
    if (first.size >= maxRequirements) reachedAt = index;
  });
  const scanned = await fc.check(scan, { seed, numRuns: runs });
  if (scanned.failed && !crash) crash = { counterexample: scanned.counterexample ? label(scanned.counterexample) : '(none)', path: scanned.counterexamplePath ?? '-', error: scanned.errorInstance };
  if (crash && /^\d+$/.test(crash.path)) {
    // Shrink the failure that names no requirement too, as a plain property would.
    const failing = fc.asyncProperty(arbitrary, async (input) => { await check(input); });
    const d = await fc.check(failing, { seed, path: crash.path, numRuns: 1, endOnFailure: false });
    if (d.failed && d.counterexample) crash = { counterexample: label(d.counterexample[0]), path: d.counterexamplePath ?? crash.path, error: d.errorInstance };
  }

  const broken: BrokenRequirement[] = [];
  for (const [requirement, e] of first) {
    const d = await shrinkFor(arbitrary, check, requirement, seed, String(e.index));
    if (d.failed && d.errorInstance instanceof RequirementBroken && d.counterexample) {
      broken.push({ requirement, finding: d.errorInstance.finding, counterexample: label(d.counterexample[0]), path: d.counterexamplePath ?? String(e.index), shrinks: d.numShrinks });
    } else {
      // The target answered the first input differently when it came again: report it unshrunk.
      broken.push({ requirement, finding: e.finding, counterexample: e.counterexample, path: String(e.index), shrinks: 0, unshrunk: true });
    }
  }
  return {
    seed, judged, budget: runs, broken,
    bound: { maxRequirements, reached: reachedAt !== undefined, ...(reachedAt !== undefined ? { atRun: reachedAt + 1 } : {}) },
    ...(crash ? { crash } : {}),
  };
}

/** Where the search stopped, in one sentence (every message says the search was bounded). */
export function searchExtent(r: SearchResult): string {
  if (r.replay) return 'replay of one counterexample (no search)';
  const stop = r.bound.reached
    ? `stopped after run ${r.bound.atRun} of ${r.budget}: ${r.bound.maxRequirements} distinct requirements broken (the bound; more may be)`
    : r.crash?.error instanceof BlockedByRequirement ? `stopped at run ${r.judged} of ${r.budget}: blocked by ${r.crash.error.requirement}, which this check does not cite`
      : r.crash ? `stopped at run ${r.judged} of ${r.budget}: a failure that names no requirement`
      : `ran all ${r.judged} of ${r.budget} runs`;
  return `bounded search: ${stop}; up to ${r.bound.maxRequirements} requirements, one shrunk counterexample each`;
}

export interface AttributedPropertyOptions {
  name: string;
  testInfo: TestInfo;
  runs: number;
  /** Distinct broken requirements after which the search stops (default: 8). */
  maxRequirements?: number;
}

/** The message of one broken requirement: expected and actual first, then seed, path and replay. */
export function brokeMessage(name: string, seed: number, b: BrokenRequirement, extent: string, env: NodeJS.ProcessEnv = process.env): string {
  const shrunk = b.unshrunk ? 'not shrunk: the target did not answer the same way again' : `${b.shrinks} shrink(s)`;
  const oneLine = (t: string) => t.replace(/\s*\n\s*/g, ' ');
  return `expected ${oneLine(b.finding.expected)}, got ${oneLine(b.finding.actual)} — input: ${oneLine(b.counterexample)} — property ${name} seed=${seed} path=${b.path} (${shrunk}) — replay: ${replayCommand(name, seed, b.path, env)} — ${extent}`;
}

/**
 * Runs the search inside a conformance check. Passes when nothing broke; otherwise annotates one
 * `broke` per requirement, attaches the counterexamples and throws one error that lists them.
 */
export async function runAttributedProperty<T>(arbitrary: fc.Arbitrary<T>, check: FindingCheck<T>, options: AttributedPropertyOptions): Promise<void> {
  const { name, testInfo, runs } = options;
  const seed = propertySeed(name);
  const replayPath = process.env[pathEnvVar];
  const result = await searchFindings(arbitrary, check, { seed, runs, maxRequirements: options.maxRequirements ?? 8, ...(replayPath ? { replayPath } : {}) });
  const record: PropertyRecord = { name, seed, runs: result.judged, replay: replayCommand(name, seed, undefined) };
  if (result.broken.length === 0 && !result.crash) {
    testInfo.annotations.push({ type: propertyAnnotation, description: JSON.stringify(record) });
    return;
  }
  const extent = searchExtent(result);
  const blocked = result.crash?.error instanceof BlockedByRequirement ? { by: result.crash.error, crash: result.crash } : undefined;
  if (blocked && result.broken.length === 0) {
    // Blocked before any cited requirement was seen broken: BLOCKED by the requirement in the way.
    const replay = replayCommand(name, seed, blocked.crash.path);
    testInfo.annotations.push({ type: propertyAnnotation, description: JSON.stringify({ ...record, path: blocked.crash.path, counterexample: blocked.crash.counterexample, shrinks: 0, replay }) });
    markBlocked(testInfo, `${blocked.by.requirement} broken: ${blocked.by.reason} — input: ${blocked.crash.counterexample} — property ${name} seed=${seed} path=${blocked.crash.path} — replay: ${replay} — ${extent}`, { by: [blocked.by.requirement] });
  }
  if (result.crash && !blocked) {
    const cause = result.crash.error instanceof Error ? result.crash.error.message : String(result.crash.error);
    const replay = replayCommand(name, seed, result.crash.path);
    testInfo.annotations.push({ type: propertyAnnotation, description: JSON.stringify({ ...record, path: result.crash.path, counterexample: result.crash.counterexample, shrinks: 0, replay }) });
    const text = `property ${name} failed at seed=${seed} path=${result.crash.path} without naming a requirement (the check fails as a whole)\n\ninput: ${result.crash.counterexample}\nreplay: ${replay}\n${extent}\n\n${cause}`;
    await testInfo.attach('property-counterexample.txt', { body: text, contentType: 'text/plain' });
    throw new Error(text);
  }
  const primary = result.broken[0]!;
  testInfo.annotations.push({
    type: propertyAnnotation,
    description: JSON.stringify({ ...record, path: primary.path, counterexample: primary.counterexample, shrinks: primary.shrinks, replay: replayCommand(name, seed, primary.path) } satisfies PropertyRecord),
  });
  const lines: string[] = [];
  for (const b of result.broken) {
    const message = brokeMessage(name, seed, b, extent);
    testInfo.annotations.push({ type: brokeAnnotation, description: `${b.requirement} — ${message}` });
    lines.push(`${b.requirement} — ${message}`);
  }
  const text = [`property ${name} broke ${result.broken.length} requirement(s): ${result.broken.map((b) => b.requirement).join(', ')} (${extent})`, '', ...lines].join('\n');
  await testInfo.attach('property-counterexample.txt', { body: text, contentType: 'text/plain' });
  throw new Error(text);
}
