// `run`'s command line: the options, their checks, the usage text, and how a selection becomes
// Playwright arguments.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { levelGrep } from '../../../requirements/levels.ts';
import type { Level } from '../../reporter/verdict.ts';
import { bothGreps, requirementGrep, requirementSelection } from '../run-selection.ts';
import { catalogueVersion, CatalogueVersionError } from '../../../requirements/catalogue-versions.ts';
import { projectsOfPass } from '../../../core/run/time-travel-pass.ts';

/** Clock targets `--start-reference` starts by default: two time-travel workers (the timings behind the choice: bench/SUITE-TIMING.md). */
export const defaultClockServers = 2;

/**
 * The run's overall deadline by default: a whole run against a responsive target takes a minute or
 * two, and a CI job's own limit is usually an hour or less — a target that holds every check until
 * its timeout ends here with a readable report, not killed by CI with none.
 */
export const defaultDeadlineMinutes = 10;

export const usage = `Usage: token-conformance run --target FILE [options]

  --target FILE        target profile (JSON or JSONC; see profiles/README.md)
  --start-reference    start the bundled reference server and run against it (its addresses
                       replace the profile's)
  --grep PATTERN       only checks whose title or tags match (e.g. @GRANT-CC-001, @gateway)
  --requirement ID     only the checks of these requirement IDs (repeatable or comma-separated;
                       an ID the catalogue does not know is exit 2)
  --last-failed        only the checks that failed in the previous run of --reports DIR
  --check-profile      validate the profile, check every address answers and run the preflight;
                       run no check (exit 0 ready, 2 a setup problem)
  --list               print the checks and requirement IDs the selection would run; run nothing
  --max-failures N     stop after N failed checks (the rest read UNCHECKED)
  --reporter NAME      terminal output: compact (default: progress on a terminal, then one line per
                       area and per failure), list (one line per check) or dot
  --level LEVEL        must | should | all (default all): which requirement levels to verify
  --strict             exit 1 on WARN as well as on FAIL
  --workers N          parallel workers (default: the config's)
  --shard I/N          run shard I of N (reports merge later)
  --passes LIST        conformance,time-travel (default both): which of the two projects to run
                       (against one shared clock they are two Playwright passes; leave one out
                       when the selection has no check of it: saves a Playwright start)
  --clock-servers N    with --start-reference: how many more reference servers to start for the
                       time-travel checks (@clock/@serial), each a clock of its own, so that they
                       run on N workers beside the other checks (default ${defaultClockServers});
                       0 runs them one at a time after every other check, as against a real target
                       without capabilities.clockSandboxes (which --start-reference ignores: a
                       profile's declared sandboxes spread them the same way, one worker each)
  --deadline MINUTES   the run's overall deadline (default ${defaultDeadlineMinutes}; decimals allowed): when it
                       passes, the checks still running are stopped and the reports are written;
                       every check not finished reads UNCHECKED ("not finished: the run's
                       deadline of N minutes passed")
  --timings            print the wall time of each phase of the run at the end, and of the checks
                       per Playwright project (its checks, workers, wall and summed time; stderr)
  --spec FILE          only load this spec file (repeatable; a path under specs/): with --grep,
                       spares Playwright loading every spec of the suite
  --reports DIR        output directory (default reports/)
  --allure             also write allure-results/ into the reports directory, for an Allure report
                       (npm run report:allure, or allure generate); off by default: its writer is a
                       large share of the runner's CPU and most runs never render it
  --seed N             seed for the property checks (default: a fixed seed per property)
  --replay-path PATH   with --seed: replay one property counterexample (the path a failure prints)
  --fresh-seed         draw a new seed for the property checks (printed, and carried in the report)
  --state FILE         keep obligations between runs in FILE (encrypted; the profile's state.key names
                       the key's environment variable): without clock control, time-dependent
                       checks record what must hold later, and every run first settles the due ones
  --catalogue VERSION  score only the requirements of this frozen catalogue release
                       (requirements/catalogue-versions/VERSION.json): every check still runs,
                       requirements added after it read "not scored in VERSION" and never move
                       the verdict or the exit code (default: the whole catalogue)
  --waivers FILE       apply a waivers file (schemas/waivers.schema.json) to the report and exit code
  --skip-preflight     judge the target even when the preflight sees a setup problem (every
                       client refused, every call rate-limited, the EU address answering like
                       the US one); without it such a run stops with exit 2 before any check
  --keep-seen-tokens FILE  copy the tokens the run saw (one a line) to FILE at the end (for tests
                       that search a log for them)
  --reference-log FILE with --start-reference: every started server also appends its log to FILE
  --help

Exit codes: 0 conformant (WARN allowed unless --strict), 1 FAIL/UNCHECKED (or WARN with --strict),
2 a setup problem: bad arguments, a bad profile, an unreachable or untrusted address, or a
preflight finding ("setup problem: …", naming the profile field to fix); 2 also when the selection
(--grep, --level, --spec, --passes) matched no check: nothing was verified (an empty shard is fine),
and when the end-of-run verification of the reports found a secret it could not remove (file:line).`;

export class UsageError extends Error {}

export interface RunOptions {
  target: string;
  startReference: boolean;
  grep?: string;
  level: Level;
  strict: boolean;
  workers?: number;
  shard?: string;
  reportsDir: string;
  seed?: string;
  /** A property counterexample's fast-check path to replay (with the seed). */
  replayPath?: string;
  freshSeed?: boolean;
  /** Copy the seen tokens here at the end of the run. */
  keepSeenTokens?: string;
  /** Every started reference server also appends its log here. */
  referenceLog?: string;
  /** A waivers file applied to the run's report and exit code. */
  waivers?: string;
  /** The frozen catalogue release the run is scored in (requirements/catalogue-versions/). */
  catalogue?: string;
  /** Which Playwright passes to run (default both, in order). */
  passes?: Pass[];
  /** Spec files to load (Playwright file filters); default all. */
  specs?: string[];
  /** Judge the target even when the preflight finds a setup problem. */
  skipPreflight?: boolean;
  /** Validate and preflight the profile against the target; run no check. */
  checkProfile?: boolean;
  /** Print the selection instead of running it. */
  list?: boolean;
  /** Only the checks that failed in the previous run of reportsDir. */
  lastFailed?: boolean;
  maxFailures?: number;
  terminalReporter?: TerminalReporter;
  /** The obligations' state file (overrides the profile's state.file). */
  state?: string;
  /** With startReference: reference servers started for the time-travel checks (clock targets). */
  clockServers?: number;
  /** Print each phase's wall time at the end. */
  timings?: boolean;
  /** Write allure-results/ beside the other reports. */
  allure?: boolean;
  /** The run's overall deadline, in minutes from its start. */
  deadlineMinutes: number;
}

export type TerminalReporter = 'compact' | 'list' | 'dot';

export type Pass = 'conformance' | 'time-travel';
export const allPasses: Pass[] = ['conformance', 'time-travel'];

/** The command line as node:util parses it (unknown options and bad types throw). */
function parseRunOptions(args: string[]) {
  return parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      target: { type: 'string' },
      'start-reference': { type: 'boolean', default: false },
      grep: { type: 'string' },
      level: { type: 'string', default: 'all' },
      strict: { type: 'boolean', default: false },
      workers: { type: 'string' },
      shard: { type: 'string' },
      reports: { type: 'string', default: 'reports' },
      seed: { type: 'string' },
      'replay-path': { type: 'string' },
      'keep-seen-tokens': { type: 'string' },
      'reference-log': { type: 'string' },
      'fresh-seed': { type: 'boolean', default: false },
      waivers: { type: 'string' },
      catalogue: { type: 'string' },
      state: { type: 'string' },
      passes: { type: 'string' },
      spec: { type: 'string', multiple: true },
      'skip-preflight': { type: 'boolean', default: false },
      requirement: { type: 'string', multiple: true },
      'last-failed': { type: 'boolean', default: false },
      list: { type: 'boolean', default: false },
      'check-profile': { type: 'boolean', default: false },
      'max-failures': { type: 'string' },
      reporter: { type: 'string', default: 'compact' },
      'clock-servers': { type: 'string' },
      timings: { type: 'boolean', default: false },
      allure: { type: 'boolean', default: false },
      deadline: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
}

export function parseRunArgs(args: string[]): RunOptions | 'help' {
  let parsed: ReturnType<typeof parseRunOptions>;
  try {
    parsed = parseRunOptions(args);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const v = parsed.values;
  if (v.help) return 'help';
  if (!v.target) throw new UsageError('--target FILE is required');
  checkOptionValues(v);
  if (v.catalogue !== undefined) {
    try {
      catalogueVersion(v.catalogue);
    } catch (error) {
      if (error instanceof CatalogueVersionError) throw new UsageError(`--catalogue: ${error.message}`);
      throw error;
    }
  }
  let grep = v.grep;
  if (v.requirement !== undefined) {
    const { ids, unknown } = requirementSelection(v.requirement);
    if (unknown.length > 0)
      throw new UsageError(
        `--requirement: unknown requirement ID${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (the IDs are those of requirements/requirements.json; run --list shows what a selection covers)`,
      );
    if (ids.length === 0) throw new UsageError('--requirement needs at least one requirement ID');
    grep = bothGreps(grep, requirementGrep(ids));
  }
  let passes: Pass[] | undefined;
  if (v.passes !== undefined) {
    const named = v.passes.split(',').map((p) => p.trim());
    if (named.length === 0 || named.some((p) => !allPasses.includes(p as Pass)))
      throw new UsageError(`--passes must list conformance and/or time-travel (got '${v.passes}')`);
    passes = allPasses.filter((p) => named.includes(p));
  }
  return {
    target: v.target,
    startReference: v['start-reference'],
    level: v.level as Level,
    strict: v.strict,
    reportsDir: resolve(v.reports),
    ...(grep !== undefined ? { grep } : {}),
    ...(v.workers !== undefined ? { workers: Number(v.workers) } : {}),
    ...(v.shard !== undefined ? { shard: v.shard } : {}),
    ...(v.seed !== undefined ? { seed: v.seed } : {}),
    ...(v['replay-path'] !== undefined ? { replayPath: v['replay-path'] } : {}),
    ...(v['keep-seen-tokens'] !== undefined ? { keepSeenTokens: resolve(v['keep-seen-tokens']) } : {}),
    ...(v['reference-log'] !== undefined ? { referenceLog: resolve(v['reference-log']) } : {}),
    ...(v['fresh-seed'] ? { freshSeed: true } : {}),
    ...(v.waivers !== undefined ? { waivers: v.waivers } : {}),
    ...(v.catalogue !== undefined ? { catalogue: v.catalogue } : {}),
    ...(v.state !== undefined ? { state: v.state } : {}),
    ...(passes !== undefined ? { passes } : {}),
    ...(v.spec !== undefined && v.spec.length > 0 ? { specs: v.spec } : {}),
    ...(v['skip-preflight'] ? { skipPreflight: true } : {}),
    ...(v.list ? { list: true } : {}),
    ...(v['check-profile'] ? { checkProfile: true } : {}),
    ...(v['last-failed'] ? { lastFailed: true } : {}),
    ...(v['max-failures'] !== undefined ? { maxFailures: Number(v['max-failures']) } : {}),
    terminalReporter: v.reporter as TerminalReporter,
    ...(v['clock-servers'] !== undefined ? { clockServers: Number(v['clock-servers']) } : {}),
    ...(v.timings ? { timings: true } : {}),
    ...(v.allure ? { allure: true } : {}),
    deadlineMinutes: v.deadline !== undefined ? Number(v.deadline) : defaultDeadlineMinutes,
  };
}

/** Each option's value on its own, and the options that exclude or need each other (a UsageError naming them). */
function checkOptionValues(v: ReturnType<typeof parseRunOptions>['values']): void {
  if (!['must', 'should', 'all'].includes(v.level))
    throw new UsageError(`--level must be must, should or all (got '${v.level}')`);
  if (v.workers !== undefined && !/^[1-9]\d*$/.test(v.workers))
    throw new UsageError(`--workers must be a positive integer (got '${v.workers}')`);
  if (v.shard !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(v.shard);
    if (!m || Number(m[1]) < 1 || Number(m[1]) > Number(m[2]))
      throw new UsageError(`--shard must be I/N with 1 ≤ I ≤ N (got '${v.shard}')`);
  }
  if (v.grep !== undefined) {
    try {
      new RegExp(v.grep);
    } catch {
      throw new UsageError(`--grep is not a valid regular expression: ${v.grep}`);
    }
  }
  if (v.seed !== undefined && !/^-?\d+$/.test(v.seed))
    throw new UsageError(`--seed must be an integer (got '${v.seed}')`);
  if (v['replay-path'] !== undefined && !/^\d+(?::\d+)*$/.test(v['replay-path']))
    throw new UsageError(`--replay-path must be a fast-check path such as 3:0:1 (got '${v['replay-path']}')`);
  if (v['replay-path'] !== undefined && v.seed === undefined)
    throw new UsageError('--replay-path needs the --seed it was found with');
  if (v['reference-log'] !== undefined && !v['start-reference'])
    throw new UsageError('--reference-log needs --start-reference');
  if (v.state !== undefined && v.shard !== undefined)
    throw new UsageError(
      '--state and --shard exclude each other: one unsharded run settles and records the obligations of a state file',
    );
  if (v.seed !== undefined && v['fresh-seed']) throw new UsageError('--seed and --fresh-seed exclude each other');
  if (v['max-failures'] !== undefined && !/^[1-9]\d*$/.test(v['max-failures']))
    throw new UsageError(`--max-failures must be a positive integer (got '${v['max-failures']}')`);
  if (v['clock-servers'] !== undefined && !/^\d+$/.test(v['clock-servers']))
    throw new UsageError(`--clock-servers must be a whole number (got '${v['clock-servers']}')`);
  if (v['clock-servers'] !== undefined && !v['start-reference'])
    throw new UsageError('--clock-servers needs --start-reference (a real target has the one clock of its profile)');
  if (v.deadline !== undefined && !(/^\d+(\.\d+)?$/.test(v.deadline) && Number(v.deadline) > 0))
    throw new UsageError(`--deadline must be a positive number of minutes (got '${v.deadline}')`);
  if (!['compact', 'list', 'dot'].includes(v.reporter))
    throw new UsageError(`--reporter must be compact, list or dot (got '${v.reporter}')`);
}

/** The level selection and the user's --grep, as one Playwright --grep (both must match). */
export function combinedGrep(level: Level, grep?: string): string | undefined {
  const levelPattern = levelGrep(level);
  if (!levelPattern && !grep) return undefined;
  if (!levelPattern) return grep;
  if (!grep) return levelPattern;
  return `^(?=[\\s\\S]*(?:${levelPattern}))(?=[\\s\\S]*(?:${grep}))`;
}

/**
 * The selection, as the user gave it, when it matched no check (a typo in a CI job must not be a
 * green build); undefined when checks ran, nothing was selected, or this is a shard (an empty shard is fine).
 */
export function emptySelection(
  options: Pick<RunOptions, 'grep' | 'level' | 'specs' | 'passes' | 'shard'>,
  checks: number,
): string | undefined {
  if (checks > 0 || options.shard !== undefined) return undefined;
  const parts = [
    ...(options.grep !== undefined ? [`--grep ${options.grep}`] : []),
    ...(options.level !== 'all' ? [`--level ${options.level}`] : []),
    ...(options.specs ?? []).map((f) => `--spec ${f}`),
    ...(options.passes !== undefined ? [`--passes ${options.passes.join(',')}`] : []),
  ];
  return parts.length > 0 ? parts.join(' ') : 'the whole suite';
}

/**
 * The Playwright arguments of one invocation with these passes' projects (no dependencies), an
 * empty selection allowed; `beside`: the run has the project of the lanes beside the conformance checks.
 */
export function projectsArgs(passes: Pass[], beside = false): string[] {
  return ['--project', ...passes.flatMap((p) => projectsOfPass(p, beside)), '--pass-with-no-tests'];
}
