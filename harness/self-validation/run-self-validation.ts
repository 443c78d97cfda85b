// The self-validation: the suite against each fault of the catalogue, through the fault-injecting
// proxy in front of a bundled reference server, and a check that the clean run is clean.
//
//   node --import tsx harness/self-validation/run-self-validation.ts [--lanes N] [--workers N|auto] [--only id,id] [--clean-report FILE]
//
// Fast by construction (see README.md, "The run"): each fault runs only the checks of its own
// requirement IDs, its collateral and a few sentinels (selected by `@<ID>` tags, and only their
// spec files loaded), one Playwright pass unless a selected check is @clock/@serial, against its
// lane's shared reference server unless it needs a fresh one.
//
// Writes reports/self-validation/matrix.json and matrix.html (and one reports dir per fault under
// reports/self-validation/runs/). Exit 1 when a fault goes undetected, a false alarm appears, the
// clean run is not clean, or a MUST requirement is neither reached nor listed with a reason.
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCatalogue, repoRoot } from '../catalogue/catalogue.ts';
import { loadProfile, type LoadedProfile } from '../profile/load-profile.ts';
import type { TargetProfile } from '../profile/profile.schema.ts';
import { applyListening, referenceArgsFor, startReference, startReferenceServers, type ReferenceServer } from '../reference/start-reference.ts';
import { runMain, type Pass } from '../commands/run.command.ts';
import type { ConformanceReport } from '../reporter/report.schema.ts';
import type { Fault, FaultEnv } from './fault.ts';
import { faults as catalogue, unreachable } from './faults/index.ts';
import { renderMatrixHtml } from './matrix-html.ts';
import { startProxy } from './proxy.ts';
import { expectBrokenEnvVar } from '../playwright/expect-broken.ts';

export interface FaultResult {
  id: string;
  title: string;
  breaks: string[];
  collateral: string[];
  grep: string;
  /** How the fault was run: the checks selected (from the clean run's checks.json), the passes, the server. */
  run: { checks: number | null; passes: Pass[]; specs: number | null; server: 'shared' | 'fresh'; workers: number };
  detected: boolean;
  missed: { id: string; verdict: string }[];
  falseAlarms: { id: string; verdict: string; reason?: string }[];
  collateralSeen: string[];
  verdicts: Record<string, string>;
  durationMs: number;
  problem?: string;
}

export interface Matrix {
  generatedAt: string;
  durationMs: number;
  clean: { source: string; verdict: string; fail: number; warn: number; clean: boolean; problem?: string };
  faults: FaultResult[];
  summary: { faults: number; detected: number; missed: number; falseAlarms: number; detectionRate: number };
  coverage: { must: number; reached: string[]; unreachedWithReason: { id: string; reason: string }[]; unreachedWithoutReason: string[] };
}

const slowChecks = ['ERR-GW-2000'];

/**
 * Run under every fault besides its own checks: a few fast checks across the suite (none of them
 * @clock/@serial), so that a fault that breaks far more than it declares (a proxy that breaks
 * every token response, every protected call, TLS…) shows up as false alarms.
 */
export const sentinels = ['TOKEN-RESP-001', 'ERR-TOK-004', 'BEARER-001', 'ERR-GW-1201'];

/** The requirement IDs whose checks a fault runs: its breaks, collateral, alsoRun and the sentinels (or onlyChecksOf). */
export function selectedIds(fault: Fault): string[] {
  return [...new Set(fault.onlyChecksOf ?? [...fault.breaks, ...(fault.collateral?.ids ?? []), ...(fault.alsoRun ?? []), ...sentinels])];
}

const tagEnd = '(?![\\w-])';

/** The Playwright grep of a fault: the `@<ID>` tags of its selected IDs; never a property check, never the 30-s quota check unless asked. */
export function grepFor(fault: Fault): string {
  const selection = selectedIds(fault).map((id) => `@${id}${tagEnd}`);
  // Property checks (@property-<name>) are left out: one property check cites many requirements,
  // so one counterexample would read as many broken requirements.
  const excluded = ['@property-', ...slowChecks.filter((id) => !fault.breaks.includes(id)).map((id) => `@${id}${tagEnd}`)];
  return `^(?![\\s\\S]*(?:${excluded.join('|')}))(?=[\\s\\S]*(?:${selection.join('|')}))`;
}

/** One check of the clean run's checks.json (the conformance reporter's raw outcomes). */
export interface CleanCheck { title: string; file: string; project: string; requirementIds: string[] }

export interface RunPlan {
  grep: string;
  /** Selected checks (null: no clean checks.json to plan from, so everything is loaded and both passes run). */
  checks: number | null;
  /** Spec files to load (undefined: all). */
  specs?: string[];
  passes: Pass[];
}

/**
 * What a fault's run needs, worked out from the clean run's checks.json without starting
 * Playwright: which checks the grep selects (matched against each check's title and `@<ID>` tags,
 * plus `@property-` for the property specs), so which spec files to load and whether the
 * time-travel pass (@clock/@serial checks) is needed at all.
 */
export function planFor(fault: Fault, clean: CleanCheck[] | undefined): RunPlan {
  const grep = grepFor(fault);
  if (!clean) return { grep, checks: null, passes: ['conformance', 'time-travel'] };
  const re = new RegExp(grep);
  const selected = clean.filter((c) => re.test(`${c.title} ${c.requirementIds.map((id) => `@${id}`).join(' ')}${c.file.startsWith('specs/properties/') ? ' @property-' : ''}`));
  const passes: Pass[] = selected.some((c) => c.project === 'time-travel')
    ? (selected.some((c) => c.project !== 'time-travel') ? ['conformance', 'time-travel'] : ['time-travel'])
    : ['conformance'];
  return { grep, checks: selected.length, specs: [...new Set(selected.map((c) => c.file))].sort(), passes };
}

export function readCleanChecks(file: string): CleanCheck[] | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { checks?: CleanCheck[] };
    return Array.isArray(parsed.checks) && parsed.checks.length > 0 ? parsed.checks : undefined;
  } catch {
    return undefined;
  }
}

/** Judges one fault run from its conformance report. */
export function judge(fault: Fault, report: ConformanceReport): Pick<FaultResult, 'detected' | 'missed' | 'falseAlarms' | 'collateralSeen' | 'verdicts'> {
  const verdicts = Object.fromEntries(report.requirements.map((r) => [r.id, r.verdict]));
  const broken = (v: string | undefined) => v === 'FAIL' || v === 'WARN';
  const missed = fault.breaks.filter((id) => !broken(verdicts[id])).map((id) => ({ id, verdict: verdicts[id] ?? 'absent' }));
  const allowed = new Set([...fault.breaks, ...(fault.collateral?.ids ?? [])]);
  const falseAlarms = report.requirements.filter((r) => broken(r.verdict) && !allowed.has(r.id)).map((r) => ({ id: r.id, verdict: r.verdict, ...(r.reason ? { reason: r.reason.slice(0, 300) } : {}) }));
  const collateralSeen = (fault.collateral?.ids ?? []).filter((id) => broken(verdicts[id]));
  return { detected: missed.length === 0, missed, falseAlarms, collateralSeen, verdicts };
}

function faultEnv(loaded: LoadedProfile, otherEnvironmentToken: string | undefined): FaultEnv {
  const secret = (path: string) => loaded.secrets.find((s) => s.path === path)?.value ?? '';
  const clients = Object.fromEntries(Object.entries(loaded.profile.credentials.clients).filter(([, c]) => c)
    .map(([name, c]) => [name, { clientId: c.clientId, clientSecret: secret(`credentials.clients.${name}.clientSecret`) }]));
  const users = Object.fromEntries(Object.entries(loaded.profile.credentials.users).filter(([, u]) => u)
    .map(([name, u]) => [name, { username: u.username, password: secret(`credentials.users.${name}.password`) }]));
  return { clients, users, ...(otherEnvironmentToken ? { otherEnvironmentToken } : {}) };
}

/** The profile of a run through the proxy: every address of the upstream origin replaced by the proxy's. */
function proxiedProfile(base: TargetProfile, upstream: string, proxyUrl: string, caFile: string, plainUrl: string | undefined, otherEnvironmentToken: string | undefined): TargetProfile {
  const swap = (url: string | undefined) => (url && new URL(url).origin === upstream ? `${proxyUrl}${url.slice(upstream.length)}` : url);
  const p: TargetProfile = structuredClone(base);
  for (const key of ['authUrlUs', 'authUrlEu', 'baseUrl'] as const) if (p[key]) p[key] = swap(p[key]);
  if (p.capabilities.clockControlUrl) p.capabilities.clockControlUrl = swap(p.capabilities.clockControlUrl);
  if (p.capabilities.faultControlUrl) p.capabilities.faultControlUrl = swap(p.capabilities.faultControlUrl);
  p.caFile = caFile;
  p.plainHttpUrl = plainUrl ?? `http://${new URL(proxyUrl).host}`;
  if (otherEnvironmentToken) p.credentials.tokens.otherEnvironment = { value: otherEnvironmentToken };
  return p;
}

/**
 * One `token-conformance run`, in this process (no node + tsx start per fault): its terminal output
 * goes to the fault's run.log. Playwright itself still runs as a child of `run`.
 */
async function runConformance(args: string[], logFile: string, env: NodeJS.ProcessEnv): Promise<number> {
  const log = createWriteStream(logFile);
  const write = (line: string) => void log.write(`${line}\n`);
  try {
    return await runMain(args, { out: write, err: write }, env);
  } finally {
    await new Promise<void>((resolve) => log.end(resolve));
  }
}

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv, options: {
      lanes: { type: 'string', default: '3' },
      workers: { type: 'string', default: 'auto' },
      only: { type: 'string' },
      'clean-report': { type: 'string', default: join(repoRoot, 'reports', 'conformance.json') },
      'clean-checks': { type: 'string', default: join(repoRoot, 'reports', 'checks.json') },
      out: { type: 'string', default: join(repoRoot, 'reports', 'self-validation') },
    },
  });
  const started = Date.now();
  // The runs' Playwright children: CI settings (dot reporter, forbidOnly), no colours in run.log.
  process.env.CI = '1';
  delete process.env.FORCE_COLOR;
  const outDir = values.out;
  const runsDir = join(outDir, 'runs');
  rmSync(runsDir, { recursive: true, force: true, maxRetries: 5 });
  mkdirSync(runsDir, { recursive: true });
  const requirements = loadCatalogue();
  const only = values.only?.split(',');
  const selected = only ? catalogue.filter((f) => only.includes(f.id)) : catalogue;
  if (values.workers !== 'auto' && !/^[1-9]\d*$/.test(values.workers)) throw new Error(`--workers must be auto or a positive integer (got '${values.workers}')`);
  // Plans from the clean run's checks.json; faults that need a fresh server (the slow ones) first,
  // so that the lanes end together.
  const cleanChecks = readCleanChecks(values['clean-checks']);
  const plans = new Map(selected.map((f) => [f.id, planFor(f, cleanChecks)]));
  const needsFresh = (f: Fault) => f.freshServer !== undefined || plans.get(f.id)!.passes.includes('time-travel');
  const queue = [...selected].sort((a, b) => Number(needsFresh(b)) - Number(needsFresh(a)));
  // 1 worker unless many checks: a worker's start (loading the fixtures and specs) costs more than
  // the few seconds its checks take, and the lanes already keep both cores busy.
  const workersFor = (plan: RunPlan) => (values.workers !== 'auto' ? Number(values.workers) : plan.checks !== null && plan.checks <= 40 ? 1 : 2);

  const loaded = loadProfile(join(repoRoot, 'profiles', 'reference.json'));
  const temp = mkdtempSync(join(tmpdir(), 'token-conformance-sv-'));
  const lanes = Math.max(1, Math.min(Number(values.lanes), selected.length));
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`self-validation: ${selected.length} faults (${queue.filter(needsFresh).length} on a fresh server), ${lanes} lanes, ${values.workers} workers per run` +
    (cleanChecks ? '' : ` — no clean checks file ${values['clean-checks']}: every spec loaded, both passes run`));

  // One reference set (sandbox + production, for the other environment's token); more sandboxes for more lanes.
  const first = await startReferenceServers({ logDir: temp, profile: loaded.profile });
  const otherToken = first.otherEnvironmentToken;
  const env = faultEnv(loaded, otherToken);
  const results: FaultResult[] = [];
  let next = 0;
  const live = new Set<ReferenceServer>();
  const track = async (server: Promise<ReferenceServer>) => {
    const s = await server;
    live.add(s);
    return s;
  };
  const stop = async (server: ReferenceServer | undefined) => {
    if (!server) return;
    live.delete(server);
    await server.stop();
  };
  const laneWork = async (lane: number) => {
    const laneDir = join(temp, `lane-${lane}`);
    mkdirSync(laneDir);
    // The lane's shared sandbox (lane 1 reuses the one started above), started when first needed.
    let shared: ReferenceServer | undefined = lane === 1 ? first.server : undefined;
    try {
      for (;;) {
        const fault = queue[next++];
        if (!fault) return;
        const plan = plans.get(fault.id)!;
        const fresh = needsFresh(fault);
        const workers = workersFor(plan);
        const t0 = Date.now();
        const reportsDir = join(runsDir, fault.id);
        const run: FaultResult['run'] = { checks: plan.checks, passes: plan.passes, specs: plan.specs?.length ?? null, server: fresh ? 'fresh' : 'shared', workers };
        let result: FaultResult;
        // A fresh sandbox for a fault that burns server state (or moves its clock): nothing leaks into the next fault.
        let own: ReferenceServer | undefined;
        try {
          const freshDir = join(laneDir, fault.id);
          if (fresh) mkdirSync(freshDir);
          const server = fresh
            ? (own = await track(startReference({ logDir: freshDir, extraArgs: referenceArgsFor(loaded.profile) })))
            : (shared ??= await track(startReference({ logDir: laneDir, extraArgs: referenceArgsFor(loaded.profile) })));
          const upstream = new URL(server.listening.authUrlUs).origin;
          const base = applyListening(loaded.profile, server.listening);
          const proxy = await startProxy({ upstream, upstreamCa: server.listening.caFile ? readFileSync(server.listening.caFile, 'utf8') : undefined, fault: fault.create(env), dir: laneDir });
          try {
            const profile = proxiedProfile(base, upstream, proxy.url, proxy.caFile, proxy.plainUrl, otherToken);
            // The profile holds the demo secrets of a local target: a private temp dir, never reports/.
            const profileFile = join(laneDir, `${fault.id}.profile.json`);
            writeFileSync(profileFile, JSON.stringify(profile, null, 2), { mode: 0o600 });
            mkdirSync(reportsDir, { recursive: true });
            await runConformance(['--target', profileFile, '--grep', plan.grep, '--reports', reportsDir, '--workers', String(workers),
              '--passes', plan.passes.join(','), ...(plan.specs ?? []).flatMap((f) => ['--spec', f])], join(reportsDir, 'run.log'),
              // Expected failures keep their Playwright worker (fixtures/expected-failures.fixture.ts).
              { [expectBrokenEnvVar]: [...fault.breaks, ...(fault.collateral?.ids ?? [])].join(',') });
            rmSync(profileFile, { force: true });
          } finally {
            await proxy.close();
          }
          const reportFile = join(reportsDir, 'conformance.json');
          if (!existsSync(reportFile)) throw new Error(`no conformance report (see ${join(reportsDir, 'run.log')})`);
          const report = JSON.parse(readFileSync(reportFile, 'utf8')) as ConformanceReport;
          result = { id: fault.id, title: fault.title, breaks: fault.breaks, collateral: fault.collateral?.ids ?? [], grep: plan.grep, run, ...judge(fault, report), durationMs: Date.now() - t0 };
        } catch (error) {
          result = {
            id: fault.id, title: fault.title, breaks: fault.breaks, collateral: fault.collateral?.ids ?? [], grep: plan.grep, run, detected: false,
            missed: fault.breaks.map((id) => ({ id, verdict: 'not run' })), falseAlarms: [], collateralSeen: [], verdicts: {}, durationMs: Date.now() - t0,
            problem: (error as Error).message,
          };
        } finally {
          await stop(own);
        }
        results.push(result);
        const mark = result.detected && result.falseAlarms.length === 0 ? 'ok  ' : 'FAIL';
        out(`  ${mark} ${fault.id.padEnd(36)} ${(result.durationMs / 1000).toFixed(1).padStart(5)} s  ${String(plan.checks ?? '?').padStart(3)} checks ${fresh ? 'fresh ' : 'shared'} ${plan.passes.length} pass${plan.passes.length > 1 ? 'es' : '  '}  breaks ${fault.breaks.join(', ')}` +
          (result.missed.length ? ` — MISSED ${result.missed.map((m) => `${m.id}=${m.verdict}`).join(', ')}` : '') +
          (result.falseAlarms.length ? ` — FALSE ALARM ${result.falseAlarms.map((m) => `${m.id}=${m.verdict}`).join(', ')}` : '') +
          (result.problem ? ` — ${result.problem}` : ''));
      }
    } finally {
      if (lane !== 1) await stop(shared);
    }
  };
  // Interrupted (Ctrl-C, or the npm test stage stopped): stop every server this run started.
  const stopAll = () => void Promise.all([first.stop(), ...[...live].map((s) => s.stop())].map((p) => p.catch(() => undefined))).finally(() => process.exit(130));
  process.once('SIGINT', stopAll);
  process.once('SIGTERM', stopAll);
  try {
    await Promise.all(Array.from({ length: lanes }, (_, i) => laneWork(i + 1)));
  } finally {
    process.off('SIGINT', stopAll);
    process.off('SIGTERM', stopAll);
    await first.stop();
    rmSync(temp, { recursive: true, force: true });
  }
  results.sort((a, b) => catalogue.findIndex((f) => f.id === a.id) - catalogue.findIndex((f) => f.id === b.id));

  // The clean run: the conformance stage's own report of the whole suite against the reference server.
  let clean: Matrix['clean'];
  const cleanFile = values['clean-report'];
  if (existsSync(cleanFile)) {
    const r = JSON.parse(readFileSync(cleanFile, 'utf8')) as ConformanceReport;
    const whole = r.selection.grep === undefined && r.selection.shard === undefined && r.selection.level === 'all';
    const isClean = whole && r.summary.FAIL === 0 && r.summary.WARN === 0 && r.summary.UNCHECKED === 0;
    clean = { source: cleanFile, verdict: r.verdict, fail: r.summary.FAIL, warn: r.summary.WARN, clean: isClean, ...(whole ? {} : { problem: 'the report is of a filtered run, not the whole suite' }) };
  } else clean = { source: cleanFile, verdict: 'absent', fail: 0, warn: 0, clean: false, problem: 'no clean-run report: run the conformance stage first (npm test runs it before this stage)' };

  const musts = requirements.filter((r) => r.level === 'MUST').map((r) => r.id);
  const reachedSet = new Set(results.filter((r) => r.detected).flatMap((r) => r.breaks));
  const reached = musts.filter((id) => reachedSet.has(id));
  const unreachedWithReason = musts.filter((id) => !reachedSet.has(id) && unreachable[id]).map((id) => ({ id, reason: unreachable[id]! }));
  const unreachedWithoutReason = musts.filter((id) => !reachedSet.has(id) && !unreachable[id]);
  const detected = results.filter((r) => r.detected).length;
  const matrix: Matrix = {
    generatedAt: new Date().toISOString(),
    durationMs: Date.now() - started,
    clean,
    faults: results,
    summary: { faults: results.length, detected, missed: results.length - detected, falseAlarms: results.reduce((n, r) => n + r.falseAlarms.length, 0), detectionRate: results.length ? detected / results.length : 0 },
    coverage: { must: musts.length, reached, unreachedWithReason, unreachedWithoutReason },
  };
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'matrix.json'), `${JSON.stringify(matrix, null, 2)}\n`);
  writeFileSync(join(outDir, 'matrix.html'), renderMatrixHtml(matrix, requirements.map((r) => ({ id: r.id, level: r.level }))));

  const s = matrix.summary;
  out('');
  out(`SELF-VALIDATION: ${s.faults} faults, ${s.detected} detected, ${s.missed} missed, ${s.falseAlarms} false alarms (detection rate ${(s.detectionRate * 100).toFixed(1)} %)`);
  out(`  clean run: ${clean.clean ? 'clean' : `NOT CLEAN (${clean.problem ?? `${clean.fail} FAIL, ${clean.warn} WARN`})`} — ${clean.source}`);
  out(`  MUST coverage: ${reached.length} of ${musts.length} reached by a detected fault; ${unreachedWithReason.length} unreached with a reason, ${unreachedWithoutReason.length} without`);
  for (const u of unreachedWithReason) out(`    ${u.id}: ${u.reason}`);
  if (unreachedWithoutReason.length) out(`    no fault, no reason: ${unreachedWithoutReason.join(', ')}`);
  out(`  run time ${(matrix.durationMs / 1000).toFixed(1)} s — ${join(outDir, 'matrix.json')}, matrix.html`);
  const ok = s.missed === 0 && s.falseAlarms === 0 && clean.clean && (only !== undefined || unreachedWithoutReason.length === 0);
  return ok ? 0 : 1;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  process.exitCode = await main(process.argv.slice(2));
}
