// The suite's runs that the benchmark times, read back from their reports: the local run
// (`npm start`), and the same suite against a **distant** target — the reference server behind a
// latency-adding loopback proxy (latency-proxy.ts), run the way a user runs against a staging
// target: `token-conformance run --target <profile>`, the profile naming the proxy's addresses.
// From each run's checks.json: the requests its checks sent and each check's duration, which give
// the longest sequential chain of round trips (sequentialChain below).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProfile } from '../../core/profile/load-profile.ts';
import type { TargetProfile } from '../../core/profile/profile.schema.ts';
import {
  applyListening,
  startClockServers,
  startReferenceServers,
  type ReferenceServer,
} from '../../harness/reference/start-reference.ts';
import { startLatencyProxy, type LatencyProxy } from './latency-proxy.ts';
import { timeCommand, type CommandTiming } from './suite-timing.ts';

/** One check of a run, as its checks.json records it. */
export interface CheckCost {
  /** project › title: the same check in two runs has the same key. */
  key: string;
  /** Its Playwright project (conformance, time-travel). */
  project: string;
  durationMs: number;
  requests: number;
  /** Playwright's status (passed, failed, skipped, timedOut, …). */
  status: string;
}

export interface SuiteRun extends CommandTiming {
  /** checks.requests: the HTTP requests the checks sent (undefined when the run wrote no report). */
  requests?: number;
  checks: CheckCost[];
  /** Verdicts of the requirements (conformance.json summary), e.g. "136 PASS, 1 NOT_APPLICABLE". */
  verdicts?: string;
  /** Where the run's wall time went: `run --timings`' phase line, when the run printed one. */
  phases?: string;
}

/** The `phases: …` line `token-conformance run --timings` prints at its end, from a run's log. */
export function phaseLine(logFile: string): string | undefined {
  if (!existsSync(logFile)) return undefined;
  return /token-conformance run: (phases: .*)$/m.exec(readFileSync(logFile, 'utf8'))?.[1];
}

/** Whether this version's `run` command can print its phases (`--timings`). */
export function runHasTimings(root: string): boolean {
  const help = spawnSync(process.execPath, [join(root, 'bin', 'token-conformance.js'), 'run', '--help'], {
    cwd: root,
    encoding: 'utf8',
  });
  return `${help.stdout}${help.stderr}`.includes('--timings');
}

/** Whether this version's profile can declare clock sandboxes (capabilities.clockSandboxes). */
export function profileHasClockSandboxes(root: string): boolean {
  const schema = join(root, 'schemas', 'target-profile.schema.json');
  return existsSync(schema) && readFileSync(schema, 'utf8').includes('"clockSandboxes"');
}

/** The checks of a run and the requirements' verdicts, from its reports directory. */
export function readSuiteReports(reportsDir: string): Pick<SuiteRun, 'requests' | 'checks' | 'verdicts'> {
  const checksFile = join(reportsDir, 'checks.json');
  if (!existsSync(checksFile)) return { checks: [] };
  const raw = JSON.parse(readFileSync(checksFile, 'utf8')) as {
    checks: { title: string; project?: string; durationMs: number; requests?: number; status: string }[];
  };
  const checks = raw.checks.map((c) => ({
    key: `${c.project ?? ''} › ${c.title}`,
    project: c.project ?? '',
    durationMs: c.durationMs,
    requests: c.requests ?? 0,
    status: c.status,
  }));
  const report = join(reportsDir, 'conformance.json');
  let verdicts: string | undefined;
  let requests = checks.reduce((n, c) => n + c.requests, 0);
  if (existsSync(report)) {
    const parsed = JSON.parse(readFileSync(report, 'utf8')) as {
      summary: Record<string, number>;
      checks: { requests?: number };
    };
    verdicts = Object.entries(parsed.summary)
      .filter(([name, n]) => name !== 'total' && n > 0)
      .map(([name, n]) => `${n} ${name}`)
      .join(', ');
    requests = parsed.checks.requests ?? requests;
  }
  return { requests, checks, ...(verdicts !== undefined && { verdicts }) };
}

export interface SequentialChain {
  /** The check with the most round trips one after the other, and that number. */
  check: string;
  roundTrips: number;
  /** Its requests (an upper bound of its sequential requests). */
  requests: number;
  /** The largest number of requests any one check sent, and which. */
  mostRequests: { check: string; requests: number };
}

/**
 * The longest sequential chain of round trips of any check, measured: a round trip through the
 * proxy costs 2 × delay more than on loopback, so a check's extra time in the distant run divided
 * by that is the number of round trips on its sequential path (requests, and the TCP and TLS
 * handshakes of new connections; requests sent side by side count once). Checks run with the same
 * parallelism in both runs, so load on the machine shifts both durations alike; the figure is an
 * estimate, rounded to whole round trips.
 */
export function sequentialChain(
  local: readonly CheckCost[],
  distant: readonly CheckCost[],
  delayMs: number,
): SequentialChain | undefined {
  const localByKey = new Map(local.map((c) => [c.key, c]));
  let best: Omit<SequentialChain, 'mostRequests'> | undefined;
  let most = { check: '', requests: -1 };
  for (const d of distant) {
    if (d.requests > most.requests) most = { check: d.key, requests: d.requests };
    const l = localByKey.get(d.key);
    if (l === undefined) continue;
    const roundTrips = Math.max(0, Math.round((d.durationMs - l.durationMs) / (2 * delayMs)));
    if (best === undefined || roundTrips > best.roundTrips) best = { check: d.key, roundTrips, requests: d.requests };
  }
  return best && { ...best, mostRequests: most };
}

/** The profile with every address of `port` on 127.0.0.1 moved to the proxy's port. */
export function throughProxy(profile: TargetProfile, ports: ReadonlyMap<number, number>): TargetProfile {
  const move = (url: string | undefined): string | undefined => {
    if (url === undefined) return undefined;
    const u = new URL(url);
    const proxied = ports.get(Number(u.port));
    if (proxied === undefined) return url;
    u.port = String(proxied);
    return u.toString().replace(/\/$/, url.endsWith('/') ? '/' : '');
  };
  const capabilities = { ...profile.capabilities };
  if (capabilities.clockControlUrl !== undefined) capabilities.clockControlUrl = move(capabilities.clockControlUrl)!;
  if (capabilities.faultControlUrl !== undefined) capabilities.faultControlUrl = move(capabilities.faultControlUrl)!;
  const moved = { ...profile, capabilities };
  for (const field of ['authUrlUs', 'authUrlEu', 'baseUrl', 'plainHttpUrl'] as const) {
    const url = move(profile[field]);
    if (url !== undefined) moved[field] = url;
  }
  return moved;
}

const OTHER_ENVIRONMENT_TOKEN_VAR = 'TC_BENCH_OTHER_ENVIRONMENT_TOKEN';

export interface DistantRunOptions {
  root: string;
  /** One-way delay of the proxy, ms. */
  delayMs: number;
  reportsDir: string;
  logFile: string;
  /** How to run a command unpinned (bench.ts: the suite gets every CPU). */
  command(argv: string[]): [string, string[]];
  /** Pass `--timings` (this version's `run` has it): the run's phases are read from its log. */
  timings?: boolean;
  /**
   * Clock servers to start beside the target, each behind a proxy of its own and declared as the
   * profile's `capabilities.clockSandboxes`: the topology of `npm start` (its `--clock-servers`),
   * so that the two runs compare like with like. 0 (default): the target's one clock.
   */
  clockSandboxes?: number;
}

/**
 * The suite against the reference server behind the latency proxy: the same servers `--start-reference`
 * starts (the sandbox server under test and a production one for the other environment's token;
 * with `clockSandboxes`, its clock servers too, as the profile's clock sandboxes),
 * a proxy in front of each address the profile names, and `token-conformance run --target` on a
 * profile of the proxied addresses. Wall time is the `run` command's alone (servers already up).
 */
export async function runDistantSuite(o: DistantRunOptions): Promise<SuiteRun & { proxyConnections: number }> {
  const temp = mkdtempSync(join(tmpdir(), 'tc-bench-distant-'));
  const loaded = loadProfile(join(o.root, 'profiles', 'reference.json'));
  const [serversStarted, clocksStarted] = await Promise.allSettled([
    startReferenceServers({ logDir: temp, profile: loaded.profile }),
    (o.clockSandboxes ?? 0) > 0
      ? startClockServers(o.clockSandboxes!, { logDir: temp, profile: loaded.profile })
      : Promise.resolve([] as ReferenceServer[]),
  ]);
  if (serversStarted.status === 'rejected' || clocksStarted.status === 'rejected') {
    await Promise.all([
      ...(serversStarted.status === 'fulfilled' ? [serversStarted.value.stop()] : []),
      ...(clocksStarted.status === 'fulfilled' ? clocksStarted.value.map((c) => c.stop()) : []),
    ]);
    rmSync(temp, { recursive: true, force: true });
    throw serversStarted.status === 'rejected'
      ? serversStarted.reason
      : (clocksStarted as PromiseRejectedResult).reason;
  }
  const servers = serversStarted.value;
  const clocks = clocksStarted.value;
  const proxies: LatencyProxy[] = [];
  try {
    const started = applyListening(loaded.profile, servers.server.listening);
    const clockProfiles = clocks.map((c) => applyListening(loaded.profile, c.listening));
    const ports = new Map<number, number>();
    for (const p of [started, ...clockProfiles]) {
      for (const url of [p.authUrlUs, p.authUrlEu, p.baseUrl].filter((u): u is string => u !== undefined)) {
        const port = Number(new URL(url).port);
        if (ports.has(port)) continue;
        const proxy = await startLatencyProxy({ upstreamPort: port, delayMs: o.delayMs });
        proxies.push(proxy);
        ports.set(port, proxy.port);
      }
    }
    const profile = throughProxy(started, ports);
    if (clockProfiles.length > 0) {
      // The clock servers as the clock sandboxes of the distant target, behind the proxy like it.
      profile.capabilities = {
        ...profile.capabilities,
        clockSandboxes: clockProfiles.map((c, i) => {
          const moved = throughProxy(c, ports);
          return {
            name: `clock-${i}`,
            authUrlUs: moved.authUrlUs,
            authUrlEu: moved.authUrlEu,
            baseUrl: moved.baseUrl,
            clockControlUrl: moved.capabilities.clockControlUrl!,
            faultControlUrl: moved.capabilities.faultControlUrl,
            caFile: moved.caFile,
          };
        }),
      };
    }
    profile.name = 'reference-distant';
    profile.description = `The bundled reference server behind a loopback proxy adding ${o.delayMs} ms each way (bench/harness/latency-proxy.ts).`;
    const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0' };
    if (servers.otherEnvironmentToken !== undefined) {
      profile.credentials = {
        ...profile.credentials,
        tokens: { ...profile.credentials.tokens, otherEnvironment: { env: OTHER_ENVIRONMENT_TOKEN_VAR } },
      };
      env[OTHER_ENVIRONMENT_TOKEN_VAR] = servers.otherEnvironmentToken;
    }
    // The file lives in a temporary directory: the `$schema` path relative to profiles/ would not resolve.
    const written: Record<string, unknown> = { ...profile };
    delete written.$schema;
    const profileFile = join(temp, 'distant-profile.json');
    writeFileSync(profileFile, JSON.stringify(written, null, 2), { mode: 0o600 });
    rmSync(o.reportsDir, { recursive: true, force: true });
    const [command, args] = o.command([
      process.execPath,
      join(o.root, 'bin', 'token-conformance.js'),
      'run',
      '--target',
      profileFile,
      '--reports',
      o.reportsDir,
      ...(o.timings ? ['--timings'] : []),
    ]);
    const timing = await timeCommand(command, args, o.root, o.logFile, env);
    const phases = phaseLine(o.logFile);
    return {
      ...timing,
      ...readSuiteReports(o.reportsDir),
      ...(phases !== undefined && { phases }),
      proxyConnections: proxies.reduce((n, p) => n + p.connections(), 0),
    };
  } finally {
    for (const proxy of proxies) await proxy.stop();
    await Promise.all([servers.stop(), ...clocks.map((c) => c.stop())]);
    rmSync(temp, { recursive: true, force: true });
  }
}
