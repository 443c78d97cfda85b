// Runs the whole conformance suite twice against the independent @jmondi/oauth2-server target and
// pins both results (README.md):
//   - the deployment rule undeclared (the profile without its tokenParameters): the spec-shaped
//     requirements the rule refuses FAIL, the requirements that need a token are BLOCKED by them
//     and by nothing else, and the only other FAIL/WARN are the deviations seen without a token;
//   - the rule declared (profile.jsonc as committed): FAIL/WARN are exactly the listed deviations,
//     and a BLOCKED names a blocker that is FAIL/WARN in the same run.
// Verdicts the suite still gets wrong here are pinned apart (deviations.json `suiteErrors`), both
// ways too, so that the suite's fixes show as a change to re-pin.
//   node --import tsx --test test/targets/jmondi-oauth2-server/jmondi-oauth2-server.test.ts
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  expectedVerdicts,
  pinDifferences,
  runSuite,
  startedProfile,
  startTarget,
  verdictCounts,
  type Deviation,
  type Report,
} from '../shared/suite-run.ts';

const here = import.meta.dirname;

interface TargetDeviation extends Deviation {
  /** Whether the deviation shows without any issued token (so also in the run with the rule undeclared). */
  seenWithoutToken: boolean;
}
/**
 * A verdict the suite gets wrong on this target today (a misattribution the suite's own fixes of
 * issue 25 remove): pinned as seen, so that a change shows, and listed apart from the deviations.
 */
interface SuiteError {
  requirements: string[];
  run: 'undeclared' | 'declared';
  verdict: 'FAIL' | 'WARN' | 'BLOCKED';
  why: string;
}
interface DeviationsFile {
  /** The deployment rule: the spec-shaped requirements it refuses, FAIL in both runs. */
  rule: Deviation;
  deviations: TargetDeviation[];
  suiteErrors: SuiteError[];
}

const pinned = JSON.parse(readFileSync(join(here, 'deviations.json'), 'utf8')) as DeviationsFile;

void test('README lists the rule and every deviation of deviations.json under its requirement IDs', () => {
  const readme = readFileSync(join(here, 'README.md'), 'utf8');
  const ids = [
    ...expectedVerdicts([pinned.rule, ...pinned.deviations]).keys(),
    ...pinned.suiteErrors.flatMap((e) => e.requirements),
  ];
  const missing = ids.filter((id) => !readme.includes(id));
  assert.deepEqual(missing, [], `README.md does not name ${missing.join(', ')}`);
});

/** The problems of one run against its pinned FAIL/WARN list, as lines (empty: pinned). */
function differences(
  label: string,
  run: { report: Report; code: number | null; reportFile: string },
  expected: Deviation[],
): string[] {
  const { unexpected, missing } = pinDifferences(run.report, expectedVerdicts(expected));
  if (unexpected.length === 0 && missing.length === 0) return [];
  return [
    `${label}: FAIL/WARN requirements differ from deviations.json (run exit code ${run.code}; report ${run.reportFile}).`,
    `Unexpected FAIL/WARN (${unexpected.length}):`,
    ...unexpected,
    `Listed deviations not seen (${missing.length}):`,
    ...missing,
  ];
}

/** The pinned suite errors of one run, as deviations (FAIL/WARN) and as BLOCKED requirement IDs. */
function suiteErrorsOf(run: SuiteError['run']): { judged: Deviation[]; blocked: Set<string> } {
  const errors = pinned.suiteErrors.filter((e) => e.run === run);
  return {
    judged: errors
      .filter((e): e is SuiteError & { verdict: 'FAIL' | 'WARN' } => e.verdict !== 'BLOCKED')
      .map((e) => ({ requirements: e.requirements, verdict: e.verdict, clause: '(suite error)', behaviour: e.why })),
    blocked: new Set(errors.filter((e) => e.verdict === 'BLOCKED').flatMap((e) => e.requirements)),
  };
}

/**
 * BLOCKED requirements whose blockers are not all among `allowed`, unless pinned as a suite error;
 * and pinned BLOCKED suite errors that are not BLOCKED (one line each).
 */
function blockedDifferences(report: Report, allowed: Set<string>, pinnedBlocked: Set<string>): string[] {
  const outside = report.requirements
    .filter(
      (r) =>
        r.verdict === 'BLOCKED' &&
        !pinnedBlocked.has(r.id) &&
        !(r.blockedBy && r.blockedBy.length > 0 && r.blockedBy.every((id) => allowed.has(id))),
    )
    .map(
      (r) =>
        `  ${r.id} BLOCKED by ${r.blockedBy?.join(', ') ?? '(no blocker named)'}: ${(r.reason ?? '').replace(/\s+/g, ' ').slice(0, 200)}`,
    );
  const gone = [...pinnedBlocked]
    .map((id) => report.requirements.find((r) => r.id === id))
    .filter((r) => r?.verdict !== 'BLOCKED')
    .map((r) => `  ${r?.id} pinned as a BLOCKED suite error, got ${r?.verdict}`);
  return [...outside, ...gone];
}

void test('the suite against @jmondi/oauth2-server, its scope rule undeclared and declared: FAIL/WARN are exactly the listed deviations', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'jmondi-oauth2-server-run-'));
  let passed = false;
  // A failed run keeps its reports (the message names them) for reading.
  t.after(() => {
    if (passed) rmSync(work, { recursive: true, force: true });
  });
  const target = await startTarget(join(here, 'start.ts'));
  t.after(() => target.stop());
  const { profile, env } = startedProfile(join(here, 'profile.jsonc'), target.listening);

  const undeclaredProfile = structuredClone(profile);
  for (const client of Object.values(undeclaredProfile.credentials.clients)) delete client.tokenParameters;
  const undeclared = await runSuite(work, 'undeclared', undeclaredProfile, env);
  const declared = await runSuite(work, 'declared', profile, env);

  const ruleIds = new Set(pinned.rule.requirements);
  const failing = (report: Report) =>
    new Set(report.requirements.filter((r) => r.verdict === 'FAIL' || r.verdict === 'WARN').map((r) => r.id));
  const errorsUndeclared = suiteErrorsOf('undeclared');
  const errorsDeclared = suiteErrorsOf('declared');
  const problems = [
    ...differences('rule undeclared', undeclared, [
      pinned.rule,
      ...pinned.deviations.filter((d) => d.seenWithoutToken),
      ...errorsUndeclared.judged,
    ]),
    ...differences('rule declared', declared, [pinned.rule, ...pinned.deviations, ...errorsDeclared.judged]),
  ];
  const undeclaredBlocked = blockedDifferences(undeclared.report, ruleIds, errorsUndeclared.blocked);
  if (undeclaredBlocked.length > 0)
    problems.push(
      "rule undeclared: BLOCKED by something other than the rule's requirements (or a pinned BLOCKED suite error changed):",
      ...undeclaredBlocked,
    );
  const declaredBlocked = blockedDifferences(declared.report, failing(declared.report), errorsDeclared.blocked);
  if (declaredBlocked.length > 0)
    problems.push(
      'rule declared: BLOCKED by a requirement that is not FAIL/WARN in the same run (or a pinned BLOCKED suite error changed):',
      ...declaredBlocked,
    );
  const grants = ['client_credentials', 'password', 'refresh_token'];
  const shapings = Object.values(profile.credentials.clients).reduce((n, c) => {
    const keys = Object.keys(c.tokenParameters ?? {});
    return n + (keys.length === 0 ? 0 : keys.every((k) => grants.includes(k)) ? keys.length : grants.length);
  }, 0);
  assert.equal(
    declared.report.target.requestShaping?.length,
    shapings,
    "the declared run's report lists the declared shaping (one line per client and grant)",
  );
  assert.equal(undeclared.report.target.requestShaping, undefined, "the undeclared run's report lists no shaping");

  const before = verdictCounts(undeclared.report);
  const after = verdictCounts(declared.report);
  t.diagnostic(
    `undeclared ${JSON.stringify(before)}; declared ${JSON.stringify(after)}; BLOCKED ${before.BLOCKED ?? 0} -> ${after.BLOCKED ?? 0}`,
  );
  assert.ok(problems.length === 0, problems.join('\n'));
  assert.ok(
    (after.BLOCKED ?? 0) < (before.BLOCKED ?? 0),
    `declaring the rule unblocks checks: BLOCKED ${before.BLOCKED ?? 0} -> ${after.BLOCKED ?? 0}`,
  );
  passed = true;
});
