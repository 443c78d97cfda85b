// The self-validation: the suite against each fault of the catalogue, through the fault-injecting
// proxy in front of a bundled reference server, and a check that the clean run is clean.
//
//   node --import tsx self-validation/run-self-validation.ts [--workers N] [--only id,id] [--clean-report FILE]
//
// Fast by construction (see README.md, "The run"): each fault runs only the checks of its own
// requirement IDs, its collateral and one sentinel check per path (selected by `@<ID>` tags and titles, and only their
// spec files loaded); faults run in groups, each group a project of one Playwright run (one worker)
// with one switching proxy that puts each check's fault in force, against the shared reference
// server unless the fault needs a server of its own (every fault with a @clock/@serial check does).
//
// Writes reports/self-validation/matrix.json and matrix.html (and one reports dir per fault under
// reports/self-validation/runs/). Exit 1 when a fault goes undetected, a false alarm appears, the
// clean run is not clean, a requirement is neither turned by a fault nor listed with a reason, or a
// property check caught no fault.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCatalogue, repoRoot } from '../core/catalogue/catalogue.ts';
import { loadProfile, type LoadedProfile } from '../core/profile/load-profile.ts';
import type { TargetProfile } from '../core/profile/profile.schema.ts';
import { toWorkerProfile, withOtherEnvironmentToken, writeWorkerProfile } from '../core/profile/worker-profile.ts';
import { endOfRunRedaction } from '../core/redaction/end-of-run.ts';
import { startRestartControl, type RestartControl } from '../harness/reference/restart-control.ts';
import {
  applyListening,
  referenceArgsFor,
  startReference,
  startReferenceServers,
  type ReferenceServer,
  type ReferenceServers,
} from '../harness/reference/start-reference.ts';
import type { Pass } from '../harness/commands/run.command.ts';
import { readRunManifest, writeRunManifest } from '../core/run/run-manifest.ts';
import { brokenVerdict } from '../requirements/levels.ts';
import { suiteVersion } from '../harness/reporter/conformance.reporter.ts';
import type { ConformanceReport } from '../harness/reporter/report.schema.ts';
import { describeUnjudgedBlocks, unjudgedBlocks } from '../harness/reporter/unjudged-blocks.ts';
import {
  assumedInterpretation,
  buildReport,
  checkVerdict,
  reportedInterpretations,
  type CheckOutcome,
} from '../harness/reporter/verdict.ts';
import { type BatchPlan, type BatchProject } from './batch-plan.ts';
import { allSpecFiles, writeSpecWrappers } from './batch-specs.ts';
import { startFaultSwitch, type RunningFaultSwitch } from './fault-switch.ts';
import { timingFileOf, type BatchOutcomes, type GroupTiming } from './batch.reporter.ts';
import type { Fault, FaultEnv } from './fault.ts';
import { faults as catalogue, unreachable } from './faults/index.ts';
import { renderMatrixHtml } from './matrix-html.ts';
import type { CaughtBy, FaultResult, Matrix, Mode, Coverage } from './matrix.ts';
import { playwrightCommand } from '../harness/playwright/playwright-cli.ts';
import { startSwitchingProxy, type ProxyFault, type ProxyMember, type SwitchingProxy } from './proxy.ts';

/** The verdict a broken requirement of this level reads (requirements/levels.ts). */
export { brokenVerdict };

/**
 * The coverage rule: every requirement is turned to its broken verdict (FAIL, or WARN for
 * SHOULD/ADVISORY) by a detected fault in that fault's run, or is listed in `unreachable` with the reason.
 */
export function coverageOf(
  requirements: { id: string; level: string }[],
  results: Pick<FaultResult, 'detected' | 'breaks' | 'verdicts' | 'caughtBy'>[],
  unreachableIds: Record<string, string>,
): Coverage {
  // A failed property check turns the breaks it cites (it is judged as a check: see judge()).
  const turned = (r: { id: string; level: string }) =>
    results.some(
      (f) =>
        f.detected &&
        f.breaks.includes(r.id) &&
        (f.verdicts[r.id] === brokenVerdict(r.level) ||
          f.caughtBy.some((c) => c.property && c.requirementIds.includes(r.id))),
    );
  const reached = requirements.filter(turned).map((r) => r.id);
  const reachedSet = new Set(reached);
  const byLevel: Coverage['byLevel'] = {};
  for (const r of requirements) {
    const c = (byLevel[r.level] ??= { total: 0, reached: 0 });
    c.total++;
    if (reachedSet.has(r.id)) c.reached++;
  }
  const unreached = requirements.filter((r) => !reachedSet.has(r.id));
  return {
    requirements: requirements.length,
    byLevel,
    reached,
    unreachedWithReason: unreached
      .filter((r) => unreachableIds[r.id])
      .map((r) => ({ id: r.id, reason: unreachableIds[r.id]! })),
    unreachedWithoutReason: unreached.filter((r) => !unreachableIds[r.id]).map((r) => r.id),
  };
}

const slowChecks = ['ERR-GW-2000'];

/** The spec files whose checks read the profile's rate-limit thresholds (capabilities.rateLimit). */
export const rateLimitSpecs = ['specs/gateway/rate-limits.spec.ts', 'specs/limits/rate-limits.spec.ts'];

/**
 * The thresholds the self-validation declares, and starts the servers with, for the faults whose
 * checks read them: a check drives its burst and its quota from whatever the profile declares, so
 * small ones prove the same thing with a tenth of the calls (the reference's quota of 1000 is
 * thousands of calls under a fault that never refuses), and a burst of 21 calls leaves within one
 * second on a loaded machine where 101 need not. The quota stays ten spikes, so that the spike checks
 * before the quota checks never spend it. The clean run checks the reference's own thresholds.
 */
export const selfValidationRateLimit = { spikePerSecond: 10, quotaPerWindow: 100, windowSeconds: 20 } as const;

/** The profile with the self-validation's rate-limit thresholds. */
export const withSelfValidationRateLimit = (profile: TargetProfile): TargetProfile => ({
  ...profile,
  capabilities: { ...profile.capabilities, rateLimit: { ...selfValidationRateLimit } },
});

/** A sentinel: one fast check of the suite, named by its requirement and the start of its title. */
export interface Sentinel {
  id: string;
  title: string;
}

/**
 * Run under every fault besides its own checks: one fast check on each of four paths (token
 * success, token error, protected call, gateway rejection; none of them @clock/@serial), so that a
 * fault that breaks far more than it declares (a proxy that breaks every token response, every
 * protected call, TLS…) shows up as false alarms. One check per path is enough for that: a path
 * broken for one check is broken for its siblings; the whole suite runs unfaulted in the clean run.
 */
export const sentinels: Sentinel[] = [
  { id: 'TOKEN-RESP-001', title: 'TOKEN-RESP-001 at US every successful token response has status 200' },
  { id: 'ERR-TOK-004', title: 'ERR-TOK-004 at US grant_type=urn:example:unknown, which the target does not support' },
  { id: 'BEARER-001', title: 'BEARER-001 a call with a client_credentials access token' },
  { id: 'ERR-GW-1201', title: 'ERR-GW-1201 a protected call without an Authorization header gets 000-1201' },
];

/** The requirement IDs all of whose checks a fault runs: its breaks, collateral and alsoRun (or onlyChecksOf). */
export function selectedIds(fault: Fault): string[] {
  return [
    ...new Set(fault.onlyChecksOf ?? [...fault.breaks, ...(fault.collateral?.ids ?? []), ...(fault.alsoRun ?? [])]),
  ];
}

/** The sentinels a fault runs besides its own checks (none with onlyChecksOf). */
export const sentinelsOf = (fault: Fault): Sentinel[] => (fault.onlyChecksOf ? [] : sentinels);

const tagEnd = '(?![\\w-])';
const anyOf = (ids: string[]) => ids.map((id) => `@${id}${tagEnd}`).join('|');
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A sentinel's check: the start of its title and its requirement's tag (a title alone could be another check's words). */
const sentinelCheck = (s: Sentinel) => `(?=[\\s\\S]*${escapeRegExp(s.title)})(?=[\\s\\S]*@${s.id}${tagEnd})`;

/**
 * The Playwright grep of a fault. CI mode: the `@<ID>` tags of its selected IDs and its sentinels' checks, never the 30-s quota
 * check unless asked; property checks (`@property-<name>`) only when the fault asks for them
 * (`withProperties`), and then only those citing one of its breaks (or of its `alsoRun`). Full mode: every check.
 */
export function grepFor(fault: Fault, mode: Mode = 'ci'): string {
  if (mode === 'full') return '^';
  const slow = slowChecks.filter((id) => !fault.breaks.includes(id));
  const notSlow = slow.length ? `(?![\\s\\S]*(?:${anyOf(slow)}))` : '';
  const own = `(?=[\\s\\S]*(?:${anyOf(selectedIds(fault))}))`;
  const scripted = `(?![\\s\\S]*@property-)${notSlow}(?:${[own, ...sentinelsOf(fault).map(sentinelCheck)].join('|')})`;
  if (!fault.withProperties) return `^${scripted}`;
  const properties = `(?=[\\s\\S]*@property-)${notSlow}(?=[\\s\\S]*(?:${anyOf([...fault.breaks, ...(fault.alsoRun ?? [])])}))`;
  return `^(?:${scripted}|${properties})`;
}

/** Whether a check is a property check (fast-check, under specs/properties/). */
export const isPropertyCheck = (c: { file?: string; title: string }): boolean =>
  (c.file ?? c.title).startsWith('specs/properties/');

/** One check of the clean run's checks.json (the conformance reporter's raw outcomes). */
export interface CleanCheck {
  title: string;
  file: string;
  project: string;
  requirementIds: string[];
  durationMs?: number;
}

export interface RunPlan {
  grep: string;
  /** Selected checks (null: no clean checks.json to plan from, so everything is loaded and both passes run). */
  checks: number | null;
  /** Spec files to load (undefined: all). */
  specs?: string[];
  passes: Pass[];
  /** The selected checks' time in the clean run (ms), to balance the groups; undefined without a clean run. */
  estimatedMs?: number;
  /** A selected check reads the rate-limit thresholds: the fault runs on the self-validation's (selfValidationRateLimit). */
  rateLimits?: boolean;
}

/**
 * What a fault's run needs, worked out from the clean run's checks.json without starting
 * Playwright: which checks the grep selects (matched against each check's title and `@<ID>` tags,
 * plus `@property-` for the property specs), so which spec files to load and whether the
 * time-travel pass (@clock/@serial checks) is needed at all.
 */
export function planFor(fault: Fault, clean: CleanCheck[] | undefined, mode: Mode = 'ci'): RunPlan {
  const grep = grepFor(fault, mode);
  if (!clean) return { grep, checks: null, passes: ['conformance', 'time-travel'] };
  const re = new RegExp(grep);
  const selected = clean.filter((c) =>
    re.test(`${c.title} ${c.requirementIds.map((id) => `@${id}`).join(' ')}${isPropertyCheck(c) ? ' @property-' : ''}`),
  );
  const passes: Pass[] = selected.some((c) => c.project === 'time-travel')
    ? selected.some((c) => c.project !== 'time-travel')
      ? ['conformance', 'time-travel']
      : ['time-travel']
    : ['conformance'];
  const specs = [...new Set(selected.map((c) => c.file))].sort();
  return {
    grep,
    checks: selected.length,
    specs,
    passes,
    estimatedMs: selected.reduce((n, c) => n + (c.durationMs ?? 0), 0),
    rateLimits: specs.some((f) => rateLimitSpecs.includes(f)),
  };
}

/** Each sentinel names exactly one check of the clean run; else its title changed and a path would go unguarded. */
export function sentinelProblems(clean: CleanCheck[]): string[] {
  return sentinels.flatMap((s) => {
    const n = clean.filter((c) => c.requirementIds.includes(s.id) && c.title.includes(s.title)).length;
    return n === 1
      ? []
      : [
          `the sentinel ${s.id} "${s.title}" names ${n} checks of the clean run, not one (run-self-validation.ts sentinels)`,
        ];
  });
}

export function readCleanChecks(file: string): CleanCheck[] | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { checks?: CleanCheck[] };
    return Array.isArray(parsed.checks) && parsed.checks.length > 0 ? parsed.checks : undefined;
  } catch {
    return undefined;
  }
}

const failedStatus = (status: string) => status === 'failed' || status === 'timedOut';

/**
 * Judges one fault run from its conformance report (built from its scripted checks) and its
 * property checks. Property checks stay out of the report and are judged as checks: a failed one
 * detects the fault's breaks among the requirements it found broken (its `broke` annotations, else
 * every requirement it cites), and one whose broken requirements are none of the fault's breaks and
 * collateral is a false alarm. A named requirement must read FAIL or WARN (BLOCKED is a miss: the
 * fault's own requirement was not verified); BLOCKED elsewhere is fine (counted).
 */
export function judge(
  fault: Fault,
  report: ConformanceReport,
  checks: CheckOutcome[] = [],
  properties: CheckOutcome[] = [],
): Pick<
  FaultResult,
  'detected' | 'missed' | 'falseAlarms' | 'collateralSeen' | 'blocked' | 'verdicts' | 'moved' | 'caughtBy'
> {
  const verdicts = Object.fromEntries(report.requirements.map((r) => [r.id, r.verdict]));
  const broken = (v: string | undefined) => v === 'FAIL' || v === 'WARN';
  const failedProperties = properties.filter((c) => failedStatus(c.status));
  const foundBroken = (c: CheckOutcome) =>
    c.broke && c.broke.length > 0 ? c.broke.map((b) => b.id) : c.requirementIds;
  const asRequired = (v: string | undefined) => (fault.breaksAs ? v === fault.breaksAs : broken(v));
  // A property check stays out of the report: its verdict of a requirement is judged here as the
  // report would (an assumed choice, or an undeclared interpretation, reads WARN). Under an
  // assumption fault it detects only what it reads as the fault requires; a FAIL there judges an
  // assumption as a declaration.
  const declared = new Set(Object.keys(report.target?.interpretations ?? {}));
  const propertyVerdict = (c: CheckOutcome, id: string): string => {
    const r = report.requirements.find((x) => x.id === id);
    if (!r) return 'FAIL';
    return assumedInterpretation(checkVerdict(c, r.level, id), r, declared).verdict;
  };
  const byProperty = new Set(
    failedProperties.flatMap((c) =>
      foundBroken(c).filter((id) => !fault.breaksAs || propertyVerdict(c, id) === fault.breaksAs),
    ),
  );
  const failedOnAssumption = fault.breaksAs
    ? failedProperties.flatMap((c) =>
        foundBroken(c)
          .filter((id) => fault.breaks.includes(id) && propertyVerdict(c, id) === 'FAIL')
          .map((id) => ({
            id: `property FAILs ${id} on an undeclared choice: ${c.title}`,
            verdict: 'FAIL',
            ...(c.error ? { reason: c.error.slice(0, 300) } : {}),
          })),
      )
    : [];
  const missed = fault.breaks
    .filter((id) => !asRequired(verdicts[id]) && !byProperty.has(id))
    .map((id) => ({ id, verdict: verdicts[id] ?? 'absent' }));
  const allowed = new Set([...fault.breaks, ...(fault.collateral?.ids ?? [])]);
  const falseAlarms = [
    ...failedOnAssumption,
    ...report.requirements
      .filter((r) => broken(r.verdict) && !allowed.has(r.id))
      .map((r) => ({ id: r.id, verdict: r.verdict, ...(r.reason ? { reason: r.reason.slice(0, 300) } : {}) })),
    ...failedProperties
      .filter((c) => !foundBroken(c).some((id) => allowed.has(id)))
      .map((c) => ({
        id: `property: ${c.title}`,
        verdict: 'FAIL',
        ...(c.error ? { reason: c.error.slice(0, 300) } : {}),
      })),
    // A BLOCKED whose blocker FAILs nowhere in this run (nor through a property check) hides the root cause: a suite defect.
    ...unjudgedBlocks(report)
      .filter((b) => !b.blockers.some((x) => byProperty.has(x.id)))
      .map((b) => ({
        id: `unjudged BLOCKED: ${b.requirement}`,
        verdict: 'BLOCKED',
        reason: describeUnjudgedBlocks([b])[0]!,
      })),
  ];
  const collateralSeen = (fault.collateral?.ids ?? []).filter((id) => broken(verdicts[id]));
  const blocked = report.requirements
    .filter((r) => r.verdict === 'BLOCKED' && !fault.breaks.includes(r.id))
    .map((r) => r.id);
  const moved = report.requirements.filter((r) => broken(r.verdict)).map((r) => r.id);
  const movedSet = new Set(moved);
  const caughtBy: CaughtBy[] = [
    ...checks
      .filter((c) => failedStatus(c.status) && c.requirementIds.some((id) => movedSet.has(id)))
      .map((c) => ({ title: c.title, requirementIds: c.requirementIds, property: false })),
    ...failedProperties.map((c) => ({ title: c.title, requirementIds: c.requirementIds, property: true })),
  ];
  return { detected: missed.length === 0, missed, falseAlarms, collateralSeen, blocked, verdicts, moved, caughtBy };
}

function faultEnv(loaded: LoadedProfile, otherEnvironmentToken: string | undefined): FaultEnv {
  const secret = (path: string) => loaded.secrets.find((s) => s.path === path)?.value ?? '';
  const clients = Object.fromEntries(
    Object.entries(loaded.profile.credentials.clients)
      .filter(([, c]) => c)
      .map(([name, c]) => [
        name,
        { clientId: c.clientId, clientSecret: secret(`credentials.clients.${name}.clientSecret`) },
      ]),
  );
  const users = Object.fromEntries(
    Object.entries(loaded.profile.credentials.users)
      .filter(([, u]) => u)
      .map(([name, u]) => [name, { username: u.username, password: secret(`credentials.users.${name}.password`) }]),
  );
  return { clients, users, ...(otherEnvironmentToken ? { otherEnvironmentToken } : {}) };
}

/** The profile of a run through the proxy: every address of the upstream origin replaced by the proxy's. */
function proxiedProfile(
  base: TargetProfile,
  upstream: string,
  proxyUrl: string,
  caFile: string,
  plainUrl: string | undefined,
): TargetProfile {
  const swap = (url: string | undefined) =>
    url && new URL(url).origin === upstream ? `${proxyUrl}${url.slice(upstream.length)}` : url;
  const p: TargetProfile = structuredClone(base);
  for (const key of ['authUrlUs', 'authUrlEu', 'baseUrl'] as const) if (p[key]) p[key] = swap(p[key]);
  if (p.capabilities.clockControlUrl) p.capabilities.clockControlUrl = swap(p.capabilities.clockControlUrl);
  if (p.capabilities.faultControlUrl) p.capabilities.faultControlUrl = swap(p.capabilities.faultControlUrl);
  p.caFile = caFile;
  p.plainHttpUrl = plainUrl ?? `http://${new URL(proxyUrl).host}`;
  return p;
}

/** Runs one Playwright batch (batch.config.ts) as a child, its output to a log file; resolves with its exit code. */
function runBatch(plan: BatchPlan, dir: string, env: NodeJS.ProcessEnv, children: Set<ChildProcess>): Promise<number> {
  const planFile = join(dir, `batch-${plan.pass}.json`);
  writeFileSync(planFile, JSON.stringify(plan, null, 2), { mode: 0o600 });
  const log = createWriteStream(join(dir, `playwright-${plan.pass}.log`));
  return new Promise((resolveExit, reject) => {
    const child = spawn(
      process.execPath,
      playwrightCommand(['test', '--config', join(import.meta.dirname, 'batch.config.ts')]),
      {
        cwd: repoRoot,
        env: {
          ...env,
          ...writeRunManifest(
            dir,
            { ...readRunManifest(env), selfValidationBatch: planFile },
            `run-manifest-${plan.pass}.json`,
          ),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.add(child);
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      children.delete(child);
      log.end(() => resolveExit(code ?? (signal ? 1 : 0)));
    });
  });
}

/** Starts each item with at most `limit` starts under way at once (server starts are CPU-heavy on two cores); one promise per item. */
function startLimited<T, R>(items: T[], limit: number, start: (item: T) => Promise<R>): Promise<R>[] {
  let running = 0;
  const queue: (() => void)[] = [];
  const slot = () =>
    running < limit
      ? (running++, Promise.resolve())
      : new Promise<void>((resolve) =>
          queue.push(() => {
            running++;
            resolve();
          }),
        );
  const release = () => {
    running--;
    queue.shift()?.();
  };
  return items.map(async (item) => {
    await slot();
    try {
      return await start(item);
    } finally {
      release();
    }
  });
}

/** A fault ready to run: a member of a group's proxy, in front of its server. */
interface Prepared {
  fault: Fault;
  plan: RunPlan;
  server: FaultResult['run']['server'];
  /** The fault profile's declared interpretations: the report judges an undeclared one as only assumed (WARN). */
  interpretations: Record<string, string>;
}

/** A group of faults run by one worker through one switching proxy, with one worker profile; each fault's spec wrappers. */
interface Group {
  name: string;
  proxy: SwitchingProxy;
  members: { prepared: Prepared; specFiles: string[] }[];
  profileFile: string;
}

/** The command line, checked before anything is touched. */
interface Options {
  selected: Fault[];
  /** `--only`: the faults asked for; undefined for the whole catalogue. */
  only: string[] | undefined;
  workers: number;
  mode: Mode;
  outDir: string;
  runsDir: string;
  cleanReportFile: string;
  cleanChecksFile: string;
}

/** Each fault's run plan (from the clean run's checks.json) and whether it needs a server of its own. */
interface Planning {
  plans: Map<string, RunPlan>;
  needsFresh: (f: Fault) => boolean;
  /** The faults that run on their group's server rather than one of their own (startFreshServers). */
  onGroupServer: Set<string>;
  /** False when there was no clean checks file to plan from. */
  fromCleanChecks: boolean;
}

/** Everything a run starts, stopped together at the end or on a signal. */
interface Started {
  shared: ReferenceServers | undefined;
  servers: ReferenceServer[];
  proxies: SwitchingProxy[];
  faultSwitch: RunningFaultSwitch | undefined;
  restartControl?: RestartControl;
  children: Set<ChildProcess>;
  /** Set once stopAll began: a server that finishes starting later stops itself. */
  stopping: boolean;
}

/** The shared sandbox server (and its production twin) and one fresh server per fault that needs its own. */
interface Servers {
  shared: ReferenceServers;
  /** The reference profile, with the other environment's token when the production server gave one. */
  withToken: LoadedProfile;
  env: FaultEnv;
  /** The server of each fault that needs one besides the shared sandbox, still starting while Playwright starts (a rejection: it did not start). */
  freshOf: Map<string, Promise<ReferenceServer>>;
  /** Every fresh start settled (stopping waits for it: a server that starts late is stopped too). */
  freshSettled: Promise<unknown>;
  /** When each fresh server was up, in ms since the servers began starting. */
  freshUpMs: number[];
  /** How many servers were started besides the shared pair. */
  freshStarts?: number;
  seedHashCache: string;
}

type Out = (line: string) => void;
type Catalogue = ReturnType<typeof loadCatalogue>;

/** Parses the command line; usage mistakes throw here, before they can cost the previous run's reports. */
function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      workers: { type: 'string', default: '3' },
      only: { type: 'string' },
      full: { type: 'boolean', default: false },
      'clean-report': { type: 'string', default: join(repoRoot, 'reports', 'conformance.json') },
      'clean-checks': { type: 'string', default: join(repoRoot, 'reports', 'checks.json') },
      out: { type: 'string', default: join(repoRoot, 'reports', 'self-validation') },
    },
  });
  const only = values.only?.split(',');
  if (only)
    for (const id of only)
      if (!catalogue.some((f) => f.id === id)) throw new Error(`--only: no fault '${id}' in the catalogue`);
  if (!/^[1-9]\d*$/.test(values.workers))
    throw new Error(`--workers must be a positive integer (got '${values.workers}')`);
  return {
    selected: only ? catalogue.filter((f) => only.includes(f.id)) : catalogue,
    only,
    workers: Number(values.workers),
    mode: values.full ? 'full' : 'ci',
    outDir: values.out,
    runsDir: join(values.out, 'runs'),
    cleanReportFile: values['clean-report'],
    cleanChecksFile: values['clean-checks'],
  };
}

function planRuns(options: Options): Planning {
  const cleanChecks = readCleanChecks(options.cleanChecksFile);
  const problems = cleanChecks ? sentinelProblems(cleanChecks) : [];
  if (problems.length) throw new Error(problems.join('; '));
  const plans = new Map(options.selected.map((f) => [f.id, planFor(f, cleanChecks, options.mode)]));
  // A fault on the self-validation's rate limits needs a server started with them.
  const needsFresh = (f: Fault) =>
    f.freshServer !== undefined ||
    plans.get(f.id)!.passes.includes('time-travel') ||
    plans.get(f.id)!.rateLimits === true;
  return { plans, needsFresh, onGroupServer: new Set(), fromCleanChecks: cleanChecks !== undefined };
}

function announce(options: Options, planning: Planning, out: Out): void {
  out(
    options.mode === 'full'
      ? 'self-validation, full mode: every check of the suite under every fault (property checks and the 30-s quota check included); precision judged on the whole suite'
      : `self-validation, CI mode: each fault runs the checks of its own requirements, its collateral and one sentinel check on each of four paths (${sentinels.map((x) => x.id).join(', ')}); property checks only under the faults aimed at them; \`--full\` runs every check under every fault`,
  );
  out(
    `self-validation: ${options.selected.length} faults (${options.selected.filter(planning.needsFresh).length} on a server of their own or their group's), one Playwright run, ${options.workers} workers: ${options.workers} groups of faults and the faults that cannot share one` +
      (planning.fromCleanChecks
        ? ''
        : ` — no clean checks file ${options.cleanChecksFile}: every spec loaded, both passes run`),
  );
}

function runOf(planning: Planning, f: Fault): FaultResult['run'] {
  const plan = planning.plans.get(f.id)!;
  return {
    checks: plan.checks,
    passes: plan.passes,
    specs: plan.specs?.length ?? null,
    server: planning.onGroupServer.has(f.id) ? 'group' : planning.needsFresh(f) ? 'fresh' : 'shared',
    workers: 1,
  };
}

/** The result of a fault that could not be run or judged: every break missed, with the reason. */
function problemResult(planning: Planning, f: Fault, message: string): FaultResult {
  return {
    id: f.id,
    title: f.title,
    breaks: f.breaks,
    collateral: f.collateral?.ids ?? [],
    grep: planning.plans.get(f.id)!.grep,
    run: runOf(planning, f),
    detected: false,
    missed: f.breaks.map((id) => ({ id, verdict: 'not run' })),
    falseAlarms: [],
    collateralSeen: [],
    blocked: [],
    verdicts: {},
    moved: [],
    caughtBy: [],
    propertiesRun: [],
    durationMs: 0,
    problem: message,
  };
}

async function stopAll(started: Started): Promise<void> {
  started.stopping = true;
  for (const c of started.children) c.kill('SIGTERM');
  const stops: Promise<void>[] = [
    ...started.proxies.map((p) => p.close()),
    ...(started.faultSwitch ? [started.faultSwitch.close()] : []),
    ...(started.restartControl ? [started.restartControl.close()] : []),
    ...started.servers.map((s) => s.stop()),
    ...(started.shared ? [started.shared.stop()] : []),
  ];
  await Promise.all(stops.map((p) => p.catch(() => undefined)));
}

/**
 * The servers' logs go to the run's temporary directory and are removed with it (read only when a
 * server fails to start: its warnings and errors): a line per request of dozens of servers is CPU
 * for nothing (the server's serialisation, the runner's pipe to the file).
 */
const quietServer = ['--log-level', 'warn'];

/** The shared sandbox, with a production server for the other environment's token. */
async function startServers(loaded: LoadedProfile, temp: string, started: Started): Promise<Servers> {
  // Every server of the run hashes the seed's secrets once between them (the shared pair while it
  // starts, the fresh ones from its hashes); otherwise each server pays scrypt's deliberate cost for
  // every seeded secret.
  const seedHashCache = join(temp, 'seed-hashes.json');
  const shared = await startReferenceServers({
    logDir: temp,
    profile: loaded.profile,
    seedHashCache,
    extraArgs: quietServer,
  });
  started.shared = shared;
  const withToken =
    shared.otherEnvironmentToken !== undefined
      ? withOtherEnvironmentToken(loaded, shared.otherEnvironmentToken)
      : loaded;
  const env = faultEnv(withToken, shared.otherEnvironmentToken);
  return { shared, withToken, env, seedHashCache, freshOf: new Map(), freshSettled: Promise.resolve(), freshUpMs: [] };
}

/**
 * The servers of the faults that need one besides the shared sandbox (needsFresh: a @clock/@serial
 * check moves a server's clock, switches its faults, spends quotas or locks users). The faults of
 * a group that need one only for that share one server, the group's: its checks run one at a time
 * on the group's one worker, as `run`'s serial pass runs every such check on one server. A fault
 * that declares `freshServer` (it burns state a later fault would see), runs on the
 * self-validation's rate limits or runs alone has a server of its own. They start while the proxies
 * and Playwright start: a fault's checks wait for its server at the fault switch
 * (fixtures/expected-failures.fixture.ts), not before the run; a fault whose server did not start
 * gets its problem (freshServerProblems).
 */
function startFreshServers(
  parts: Candidate[][],
  planning: Planning,
  loaded: LoadedProfile,
  temp: string,
  started: Started,
  servers: Servers,
): void {
  const keyOf = (c: Candidate, part: Candidate[]) =>
    c.fault.freshServer !== undefined || c.rateLimits || part.length === 1 ? c.id : `group~${part[0]!.id}`;
  const byKey = new Map<string, Candidate[]>();
  for (const part of parts)
    for (const c of part)
      if (planning.needsFresh(c.fault)) byKey.set(keyOf(c, part), [...(byKey.get(keyOf(c, part)) ?? []), c]);
  const t0 = Date.now();
  const starts = startLimited([...byKey], 3, async ([key, members]) => {
    const dir = join(temp, `server-${key}`);
    mkdirSync(dir);
    // On a store file: the restart control (STATE-RT-USED-003) restarts it without losing what it issued.
    const profile = members[0]!.rateLimits ? withSelfValidationRateLimit(loaded.profile) : loaded.profile;
    const server = await startReference({
      logDir: dir,
      extraArgs: [...referenceArgsFor(profile), ...quietServer],
      seedHashCache: servers.seedHashCache,
      dataFile: join(dir, 'store.sqlite'),
    });
    started.servers.push(server);
    servers.freshUpMs.push(Date.now() - t0);
    // Started after everything was stopped (Ctrl-C): stopped at once.
    if (started.stopping) await server.stop();
    return server;
  });
  for (const p of starts) p.catch(() => undefined); // each failure is reported with its faults (freshServerProblems)
  [...byKey.entries()].forEach(([key, members], i) => {
    for (const c of members) {
      servers.freshOf.set(c.id, starts[i]!);
      if (key !== c.id) planning.onGroupServer.add(c.id);
    }
  });
  servers.freshSettled = Promise.allSettled(starts);
  servers.freshStarts = starts.length;
}

/** The faults whose own server did not start, with the reason: their results, whatever their checks did. */
async function freshServerProblems(
  servers: Servers,
  planning: Planning,
  selected: Fault[],
  results: Map<string, FaultResult>,
): Promise<void> {
  for (const f of selected) {
    const start = servers.freshOf.get(f.id);
    const failure = start
      ? await start.then(
          () => undefined,
          (error: unknown) => error as Error,
        )
      : undefined;
    if (failure)
      results.set(f.id, problemResult(planning, f, `its reference server did not start: ${failure.message}`));
  }
}

/**
 * The faults' groups: a fault whose proxy needs listener settings of its own (TLS, plain HTTP) or
 * whose own interpretations touch the gateway codes (touchesGatewayCodes) runs alone; the faults on the self-validation's
 * rate limits (`rateLimits`: a profile of their own, shared) are one group; every other fault goes
 * to one of `workers` groups, balanced by the selected checks' time in the clean run (longest
 * first, each to the least loaded group). Every group runs on one worker, one check at a time.
 */
export function groupFaults<T extends { id: string; alone: boolean; estimatedMs: number; rateLimits?: boolean }>(
  faults: T[],
  workers: number,
): T[][] {
  const alone = faults.filter((f) => f.alone).map((f) => [f]);
  const rateLimited = faults.filter((f) => !f.alone && f.rateLimits);
  const shared: { load: number; members: T[] }[] = Array.from({ length: workers }, () => ({ load: 0, members: [] }));
  // A fault's own cost besides its checks (its switch, its wrappers' load): a few ms.
  const overheadMs = 50;
  for (const f of faults.filter((x) => !x.alone && !x.rateLimits).sort((x, y) => y.estimatedMs - x.estimatedMs)) {
    const least = shared.reduce((m, g) => (g.load < m.load ? g : m));
    least.members.push(f);
    least.load += f.estimatedMs + overheadMs;
  }
  // Keep the catalogue's order inside a group (the report reads alike from run to run).
  const order = new Map(faults.map((f, i) => [f.id, i]));
  // The groups first: Playwright starts projects in this order, so the long groups start at once
  // and the short faults alone take the one slot left (runBatchOfGroups: one slot more than the groups).
  const inOrder = (m: T[]) => m.sort((x, y) => order.get(x.id)! - order.get(y.id)!);
  return [...[...shared.map((g) => g.members), rateLimited].map(inOrder).filter((m) => m.length > 0), ...alone];
}

/**
 * Whether a fault's own interpretations touch the gateway codes: those are read by the capability
 * gate (a code the target declares it never sends), which runs before a check's interpretations
 * are put in force (fixtures/expected-failures.fixture.ts), so such a fault keeps a worker profile,
 * and a worker, of its own. Any other declaration or assumption fault runs in a group, its
 * interpretations in force for its checks only.
 */
const touchesGatewayCodes = (f: Fault): boolean =>
  Object.keys(f.declare ?? {}).includes('gatewayCodes') || (f.undeclare ?? []).includes('gatewayCodes');

/** The group profile's interpretations with a fault's own declared and its undeclared ones removed. */
function ownInterpretations(group: Record<string, unknown>, f: Fault): Record<string, unknown> {
  const own: Record<string, unknown> = { ...group, ...f.declare };
  for (const key of f.undeclare ?? []) delete own[key];
  return own;
}

/** A fault that can be run, with its proxy fault, as groupFaults sees it. */
interface Candidate {
  id: string;
  fault: Fault;
  proxyFault: ProxyFault;
  alone: boolean;
  estimatedMs: number;
  rateLimits: boolean;
}

/** The faults' proxy faults and their groups (groupFaults); a fault whose proxy fault cannot be made gets its problem. */
function planGroups(
  selected: Fault[],
  planning: Planning,
  env: FaultEnv,
  workers: number,
  results: Map<string, FaultResult>,
): Candidate[][] {
  const candidates: Candidate[] = [];
  for (const fault of selected) {
    if (results.has(fault.id)) continue;
    try {
      const proxyFault = fault.create(env);
      const plan = planning.plans.get(fault.id)!;
      candidates.push({
        id: fault.id,
        fault,
        proxyFault,
        alone: Boolean(touchesGatewayCodes(fault) || proxyFault.tls || proxyFault.plainHttp),
        estimatedMs: plan.estimatedMs ?? plan.checks ?? 0,
        rateLimits: plan.rateLimits === true,
      });
    } catch (error) {
      results.set(fault.id, problemResult(planning, fault, (error as Error).message));
    }
  }
  return groupFaults(candidates, workers);
}

/**
 * The groups, each with a switching proxy in front of its faults' servers and one worker profile
 * (secrets stay in the environment, returned as handoffEnv); each fault's spec wrappers are
 * written under specsDir.
 */
async function prepareGroups(
  parts: Candidate[][],
  planning: Planning,
  servers: Servers,
  temp: string,
  specsDir: string,
  started: Started,
  results: Map<string, FaultResult>,
): Promise<{ groups: Group[]; members: Map<string, ProxyMember>; handoffEnv: Record<string, string> }> {
  let handoffEnv: Record<string, string> = {};
  const members = new Map<string, ProxyMember>();
  const upstreamOf = (server: ReferenceServer) => new URL(server.listening.authUrlUs).origin;
  const caPemOf = (server: ReferenceServer) =>
    server.listening.caFile ? readFileSync(server.listening.caFile, 'utf8') : undefined;
  const sharedCa = caPemOf(servers.shared.server);
  for (const c of parts.flat()) {
    const fresh = servers.freshOf.get(c.id);
    members.set(
      c.id,
      fresh
        ? {
            id: c.id,
            upstream: '',
            later: fresh.then((s) => ({
              upstream: upstreamOf(s),
              ...(s.listening.caFile ? { upstreamCa: caPemOf(s)! } : {}),
            })),
            fault: c.proxyFault,
          }
        : {
            id: c.id,
            upstream: upstreamOf(servers.shared.server),
            ...(sharedCa ? { upstreamCa: sharedCa } : {}),
            fault: c.proxyFault,
          },
    );
  }
  const groups: Group[] = [];
  const sharedUpstream = upstreamOf(servers.shared.server);
  started.restartControl = await startRestartControl();
  for (const [i, part] of parts.entries()) {
    const name = part.length === 1 ? part[0]!.id : `group-${i + 1}`;
    try {
      const dir = join(temp, `profile-${name}`);
      mkdirSync(dir);
      const proxy = await startSwitchingProxy({ members: part.map((c) => members.get(c.id)!), dir });
      started.proxies.push(proxy);
      // Every address of the profile is the proxy's; the proxy forwards each fault's requests to that fault's server.
      const base = applyListening(servers.withToken.profile, servers.shared.server.listening);
      // Every fault of a group is on the self-validation's rate limits, or none (groupFaults).
      const profile = proxiedProfile(
        part[0]!.rateLimits ? withSelfValidationRateLimit(base) : base,
        sharedUpstream,
        proxy.url,
        proxy.caFile,
        proxy.plainUrl,
      );
      // A restart restarts the server of the fault in force (only one of its own: the shared one serves others), then tells the fault.
      profile.capabilities.restartControlUrl = started.restartControl.register(name, {
        async restart() {
          const server = await servers.freshOf.get(proxy.selected());
          if (!server?.restart)
            throw new Error(
              `fault ${proxy.selected()} runs on the shared reference server, which a restart would take from the other faults`,
            );
          await server.restart();
          await proxy.restarted();
        },
      });
      const declared = part.length === 1 ? part[0]!.fault.declare : undefined;
      if (declared) profile.interpretations = { ...profile.interpretations, ...declared };
      if (part.length === 1)
        for (const key of part[0]!.fault.undeclare ?? [])
          delete (profile.interpretations as Record<string, unknown>)[key];
      if (part.length === 1 && part[0]!.fault.addressesOverPlainHttp && proxy.plainUrl) {
        for (const key of ['authUrlUs', 'authUrlEu', 'baseUrl'] as const)
          if (profile[key]) profile[key] = `${proxy.plainUrl}${new URL(profile[key]).pathname.replace(/\/$/, '')}`;
        // A deployment, not a throw-away local server: there TLS is part of the setup (a local plain-http target reads NOT_APPLICABLE).
        profile.local = false;
      }
      const handoff = toWorkerProfile({ ...servers.withToken, profile });
      handoffEnv = handoff.env;
      const prepared = part.map((c): Prepared => ({
        fault: c.fault,
        plan: planning.plans.get(c.id)!,
        server: runOf(planning, c.fault).server,
        interpretations: reportedInterpretations(
          ownInterpretations(profile.interpretations, c.fault) as TargetProfile['interpretations'],
        ),
      }));
      // A fault alone has its interpretations in its profile; in a group, in its checks' wrappers.
      const own = (f: Fault) =>
        part.length > 1 && (f.declare || f.undeclare)
          ? { interpretations: { set: f.declare ?? {}, unset: f.undeclare ?? [] } }
          : {};
      const withWrappers = prepared.map((p) => ({
        prepared: p,
        specFiles: writeSpecWrappers(
          specsDir,
          { id: p.fault.id, expectBroken: [...p.fault.breaks, ...(p.fault.collateral?.ids ?? [])], ...own(p.fault) },
          p.plan.specs ?? allSpecFiles(),
        ),
      }));
      groups.push({ name, proxy, members: withWrappers, profileFile: writeWorkerProfile(handoff.profile, dir) });
    } catch (error) {
      for (const c of part) results.set(c.id, problemResult(planning, c.fault, (error as Error).message));
    }
  }
  return { groups, members, handoffEnv };
}

/**
 * One Playwright run for every fault: a project per group (one worker each), every fault's checks
 * run from its own spec wrappers with its fault put in force by the fault switch before each check.
 * Returns each fault's check outcomes, and the faults the run wrote no outcomes for.
 */
async function runBatchOfGroups(
  groups: Group[],
  workers: number,
  runsDir: string,
  temp: string,
  specsDir: string,
  childEnv: NodeJS.ProcessEnv,
  started: Started,
  out: Out,
): Promise<{ outcomes: Map<string, CheckOutcome[]>; batchProblems: Map<string, string> }> {
  const prepared = groups.flatMap((g) => g.members.map((m) => m.prepared));
  const outcomes = new Map<string, CheckOutcome[]>(prepared.map((p) => [p.fault.id, []]));
  const batchProblems = new Map<string, string>();
  if (prepared.length === 0) return { outcomes, batchProblems };
  // A fault whose selection holds a @clock/@serial check has a server of its own or its group's (needsFresh), and
  // each group's checks run one at a time on its one worker, so no check that moves a server's
  // clock or faults runs beside another check of that server: `run`'s two passes are not needed.
  const pass = 'all';
  const outcomesFile = join(temp, `outcomes-${pass}.json`);
  started.faultSwitch = await startFaultSwitch(new Map(groups.map((g) => [g.name, g.proxy])));
  const t0 = Date.now();
  const projects: BatchProject[] = groups.map((g) => ({
    name: g.name,
    profileFile: g.profileFile,
    members: g.members.map((m) => ({ fault: m.prepared.fault.id, grep: m.prepared.plan.grep, specFiles: m.specFiles })),
  }));
  // One slot more than the groups: the faults that run alone pass through it while every group runs.
  const pooled = groups.filter((g) => g.members.length > 1).length;
  const slots = pooled > 0 ? pooled + (pooled < groups.length ? 1 : 0) : Math.min(groups.length, workers);
  const code = await runBatch(
    {
      pass,
      workers: slots,
      outcomesFile,
      outputDir: join(temp, `test-results-${pass}`),
      specsDir,
      faultSwitchUrl: started.faultSwitch.url,
      projects,
    },
    runsDir,
    childEnv,
    started.children,
  );
  const byFault = existsSync(outcomesFile)
    ? (JSON.parse(readFileSync(outcomesFile, 'utf8')) as BatchOutcomes)
    : undefined;
  out(
    `  batch: ${prepared.length} faults in ${groups.length} groups, ${Object.values(byFault ?? {}).reduce((n, o) => n + o.length, 0)} checks, ${((Date.now() - t0) / 1000).toFixed(1)} s (Playwright exit ${code}; log ${join(runsDir, `playwright-${pass}.log`)})`,
  );
  printGroupTimings(groups, timingFileOf(outcomesFile), out);
  for (const p of prepared) {
    const o = byFault?.[p.fault.id];
    if (o) outcomes.get(p.fault.id)!.push(...o);
    else
      batchProblems.set(
        p.fault.id,
        `the batch wrote no outcomes (Playwright exit ${code}; see ${join(runsDir, `playwright-${pass}.log`)})`,
      );
  }
  return { outcomes, batchProblems };
}

/**
 * Where the batch's wall time went, per group: when its worker ran its first check (Playwright's
 * start and the worker's), its last, and its checks' own time; the faults that run alone as one line.
 */
function printGroupTimings(groups: Group[], timingFile: string, out: Out): void {
  if (!existsSync(timingFile)) return;
  const timings = new Map((JSON.parse(readFileSync(timingFile, 'utf8')) as GroupTiming[]).map((t) => [t.project, t]));
  const s = (ms: number) => (ms / 1000).toFixed(1);
  const line = (label: string, ts: GroupTiming[], faults: number) => {
    if (ts.length === 0) return;
    out(
      `    ${label.padEnd(16)} ${String(faults).padStart(3)} faults ${String(ts.reduce((n, t) => n + t.checks, 0)).padStart(4)} checks, first at ${s(Math.min(...ts.map((t) => t.firstStartMs)))} s, last done at ${s(Math.max(...ts.map((t) => t.lastEndMs)))} s, checks' own time ${s(ts.reduce((n, t) => n + t.checksMs, 0))} s, ${ts.reduce((n, t) => n + t.workers, 0)} worker(s)`,
    );
  };
  const pooled = groups.filter((g) => g.members.length > 1);
  for (const g of pooled)
    line(
      g.name,
      [timings.get(g.name)].filter((t) => t !== undefined),
      g.members.length,
    );
  const alone = groups.filter((g) => g.members.length === 1);
  line(
    'alone',
    alone.flatMap((g) => [timings.get(g.name)].filter((t) => t !== undefined)),
    alone.length,
  );
}

/** Each fault's own conformance report, from its checks, written to its runs dir and judged against its declaration. */
function judgeFaults(
  prepared: Prepared[],
  ran: { outcomes: Map<string, CheckOutcome[]>; batchProblems: Map<string, string> },
  requirements: Catalogue,
  planning: Planning,
  runsDir: string,
  startedAt: number,
  results: Map<string, FaultResult>,
): void {
  for (const p of prepared) {
    const all = ran.outcomes.get(p.fault.id)!;
    const checks = all.filter((c) => !isPropertyCheck(c));
    const propertyChecks = all.filter((c) => isPropertyCheck(c));
    const batchProblem = ran.batchProblems.get(p.fault.id);
    if (batchProblem) {
      results.set(p.fault.id, problemResult(planning, p.fault, batchProblem));
      continue;
    }
    const report = buildReport(requirements, checks, {
      level: 'all',
      filtered: true,
      strict: false,
      grep: p.plan.grep,
      suiteVersion: suiteVersion(),
      startedAt: new Date(startedAt),
      durationMs: checks.reduce((n, c) => n + c.durationMs, 0),
      target: {
        name: `reference via ${p.fault.id}`,
        local: !p.fault.addressesOverPlainHttp,
        interpretations: p.interpretations,
      },
    });
    const dir = join(runsDir, p.fault.id);
    mkdirSync(dir, { recursive: true });
    // The outcomes were redacted field by field (checkOutcome in the batch reporter).
    writeFileSync(join(dir, 'conformance.json'), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(dir, 'checks.json'), `${JSON.stringify({ checks: all }, null, 2)}\n`);
    results.set(p.fault.id, {
      id: p.fault.id,
      title: p.fault.title,
      breaks: p.fault.breaks,
      collateral: p.fault.collateral?.ids ?? [],
      grep: p.plan.grep,
      run: { ...runOf(planning, p.fault), checks: all.length },
      ...judge(p.fault, report, checks, propertyChecks),
      propertiesRun: propertyChecks.map((c) => c.title),
      durationMs: report.durationMs,
    });
  }
}

/**
 * Every fault against the reference server: start the servers, a proxy per fault, the two
 * Playwright passes, each fault's report judged; everything started is stopped on the way out
 * (and on Ctrl-C or the npm test stage being stopped). Returns each selected fault's result, in order.
 */
async function runFaults(
  options: Options,
  planning: Planning,
  requirements: Catalogue,
  startedAt: number,
  out: Out,
): Promise<FaultResult[]> {
  const loaded = loadProfile(join(repoRoot, 'profiles', 'reference.json'));
  const temp = mkdtempSync(join(tmpdir(), 'token-conformance-sv-'));
  const started: Started = {
    shared: undefined,
    servers: [],
    proxies: [],
    faultSwitch: undefined,
    children: new Set(),
    stopping: false,
  };
  const onSignal = () => void stopAll(started).finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const results = new Map<string, FaultResult>();
  let servers: Servers | undefined;
  try {
    const since = (t: number) => `${((Date.now() - t) / 1000).toFixed(1)} s`;
    const phase = Date.now();
    servers = await startServers(loaded, temp, started);
    out(`  shared servers up in ${since(phase)} (${since(startedAt)} after the start)`);
    const parts = planGroups(options.selected, planning, servers.env, options.workers, results);
    startFreshServers(parts, planning, loaded, temp, started, servers);
    const specsDir = join(temp, 'specs');
    const prepared = Date.now();
    const { groups, handoffEnv } = await prepareGroups(parts, planning, servers, temp, specsDir, started, results);
    out(`  proxies and spec wrappers ready in ${since(prepared)}`);
    const childEnv: NodeJS.ProcessEnv = {
      ...process.env,
      ...handoffEnv,
      CI: '1',
      ...writeRunManifest(temp, { seenTokens: join(temp, 'seen-tokens.txt') }),
    };
    delete childEnv.FORCE_COLOR;
    const ran = await runBatchOfGroups(
      groups,
      options.workers,
      options.runsDir,
      temp,
      specsDir,
      childEnv,
      started,
      out,
    );
    judgeFaults(
      groups.flatMap((g) => g.members.map((m) => m.prepared)),
      ran,
      requirements,
      planning,
      options.runsDir,
      startedAt,
      results,
    );
    await freshServerProblems(servers, planning, options.selected, results);
    out(
      `  ${servers.freshStarts ?? 0} servers besides the shared ones for ${servers.freshOf.size} faults, the last up ${((servers.freshUpMs.length ? Math.max(...servers.freshUpMs) : 0) / 1000).toFixed(1)} s after the shared ones`,
    );
    for (const line of endOfRunRedaction(options.runsDir, childEnv, 'self-validation').lines) out(line);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await servers?.freshSettled;
    await stopAll(started);
    rmSync(temp, { recursive: true, force: true });
  }
  return options.selected.map((f) => results.get(f.id)!);
}

function printFaultLines(ordered: FaultResult[], out: Out): void {
  for (const result of ordered) {
    const mark = result.detected && result.falseAlarms.length === 0 ? 'ok  ' : 'FAIL';
    out(
      `  ${mark} ${result.id.padEnd(36)} ${String(result.run.checks ?? '?').padStart(3)} checks ${result.run.server.padEnd(6)} ${result.run.passes.length} pass${result.run.passes.length > 1 ? 'es' : '  '}  breaks ${result.breaks.join(', ')}` +
        (result.missed.length ? ` — MISSED ${result.missed.map((m) => `${m.id}=${m.verdict}`).join(', ')}` : '') +
        (result.blocked.length ? ` — ${result.blocked.length} BLOCKED` : '') +
        (result.falseAlarms.length
          ? ` — FALSE ALARM ${result.falseAlarms.map((m) => `${m.id}=${m.verdict}`).join(', ')}`
          : '') +
        (result.problem ? ` — ${result.problem}` : ''),
    );
  }
}

/** The clean run: the conformance stage's own report of the whole suite against the reference server. */
function readCleanRun(cleanFile: string): Matrix['clean'] {
  if (!existsSync(cleanFile))
    return {
      source: cleanFile,
      verdict: 'absent',
      fail: 0,
      warn: 0,
      clean: false,
      problem: 'no clean-run report: run the conformance stage first (npm test runs it before this stage)',
    };
  const r = JSON.parse(readFileSync(cleanFile, 'utf8')) as ConformanceReport;
  const whole = r.selection.grep === undefined && r.selection.shard === undefined && r.selection.level === 'all';
  const isClean = whole && r.summary.FAIL === 0 && r.summary.WARN === 0 && r.summary.UNCHECKED === 0;
  return {
    source: cleanFile,
    verdict: r.verdict,
    fail: r.summary.FAIL,
    warn: r.summary.WARN,
    clean: isClean,
    ...(whole ? {} : { problem: 'the report is of a filtered run, not the whole suite' }),
  };
}

function buildMatrix(
  ordered: FaultResult[],
  clean: Matrix['clean'],
  requirements: Catalogue,
  mode: Mode,
  startedAt: number,
): Matrix {
  const coverage = coverageOf(requirements, ordered, unreachable);
  const detected = ordered.filter((r) => r.detected).length;
  const propertyTitles = [...new Set(ordered.flatMap((r) => r.propertiesRun))].sort();
  const properties = propertyTitles.map((title) => ({
    title,
    ranUnder: ordered.filter((r) => r.propertiesRun.includes(title)).length,
    caught: ordered.filter((r) => r.caughtBy.some((c) => c.property && c.title === title)).map((r) => r.id),
  }));
  return {
    generatedAt: new Date().toISOString(),
    mode,
    durationMs: Date.now() - startedAt,
    clean,
    faults: ordered,
    summary: {
      faults: ordered.length,
      detected,
      missed: ordered.length - detected,
      falseAlarms: ordered.reduce((n, r) => n + r.falseAlarms.length, 0),
      detectionRate: ordered.length ? detected / ordered.length : 0,
    },
    properties,
    coverage,
  };
}

function writeMatrix(matrix: Matrix, requirements: Catalogue, outDir: string): void {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'matrix.json'), `${JSON.stringify(matrix, null, 2)}\n`);
  writeFileSync(
    join(outDir, 'matrix.html'),
    renderMatrixHtml(
      matrix,
      requirements.map((r) => ({ id: r.id, level: r.level })),
    ),
  );
}

function printSummary(matrix: Matrix, outDir: string, out: Out): void {
  const { summary: s, clean, coverage, properties } = matrix;
  out('');
  out(
    `SELF-VALIDATION: ${s.faults} faults, ${s.detected} detected, ${s.missed} missed, ${s.falseAlarms} false alarms (detection rate ${(s.detectionRate * 100).toFixed(1)} %)`,
  );
  out(
    `  clean run: ${clean.clean ? 'clean' : `NOT CLEAN (${clean.problem ?? `${clean.fail} FAIL, ${clean.warn} WARN`})`} — ${clean.source}`,
  );
  out(
    `  coverage: ${coverage.reached.length} of ${coverage.requirements} requirements turned by a detected fault (MUST/INTERPRETATION to FAIL, SHOULD/ADVISORY to WARN); ${coverage.unreachedWithReason.length} unreached with a reason, ${coverage.unreachedWithoutReason.length} without`,
  );
  for (const [level, c] of Object.entries(coverage.byLevel)) out(`    ${level}: ${c.reached} of ${c.total}`);
  for (const u of coverage.unreachedWithReason) out(`    ${u.id}: ${u.reason}`);
  if (coverage.unreachedWithoutReason.length)
    out(`    no fault, no reason: ${coverage.unreachedWithoutReason.join(', ')}`);
  out(
    `  property checks: ${properties.length} run, ${properties.filter((p) => p.caught.length > 0).length} caught a fault`,
  );
  for (const p of properties)
    out(
      `    ${p.caught.length ? 'caught' : 'CAUGHT NOTHING'} ${p.title.replace(/^.* › /, '').slice(0, 90)} — under ${p.ranUnder} fault(s)${p.caught.length ? `: ${p.caught.join(', ')}` : ''}`,
    );
  if (matrix.mode === 'full')
    for (const r of matrix.faults)
      out(
        `    ${r.id}: ${r.moved.length} requirement(s) moved to FAIL/WARN, ${r.falseAlarms.length} outside its breaks and collateral${r.falseAlarms.length ? ` (${r.falseAlarms.map((a) => a.id).join(', ')})` : ''}`,
      );
  out(`  run time ${(matrix.durationMs / 1000).toFixed(1)} s — ${join(outDir, 'matrix.json')}, matrix.html`);
}

/**
 * Exit 0 only when every fault was detected without a false alarm, the clean run is clean and,
 * with the whole catalogue, every property check run caught a fault and every requirement is
 * turned by a fault or listed with a reason.
 */
function exitCodeOf(matrix: Matrix, wholeCatalogue: boolean): 0 | 1 {
  const s = matrix.summary;
  const idleProperties = wholeCatalogue ? matrix.properties.filter((p) => p.caught.length === 0).length : 0;
  const ok =
    s.missed === 0 &&
    s.falseAlarms === 0 &&
    matrix.clean.clean &&
    idleProperties === 0 &&
    (!wholeCatalogue || matrix.coverage.unreachedWithoutReason.length === 0);
  return ok ? 0 : 1;
}

export async function main(argv: string[]): Promise<number> {
  const startedAt = Date.now();
  const options = parseOptions(argv);
  const out: Out = (line) => process.stdout.write(`${line}\n`);
  rmSync(options.runsDir, { recursive: true, force: true, maxRetries: 5 });
  mkdirSync(options.runsDir, { recursive: true });
  const requirements = loadCatalogue();
  const planning = planRuns(options);
  announce(options, planning, out);
  const ordered = await runFaults(options, planning, requirements, startedAt, out);
  printFaultLines(ordered, out);
  const matrix = buildMatrix(ordered, readCleanRun(options.cleanReportFile), requirements, options.mode, startedAt);
  writeMatrix(matrix, requirements, options.outDir);
  printSummary(matrix, options.outDir, out);
  return exitCodeOf(matrix, options.only === undefined);
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  try {
    process.exitCode = await main(process.argv.slice(2));
  } catch (error) {
    // A usage mistake (an unknown option or fault, a bad --workers): one line, exit 2.
    process.stderr.write(`self-validation: ${(error as Error).message}\n`);
    process.exitCode = 2;
  }
}
