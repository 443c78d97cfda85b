// The suite against an independent target with no clock control (test/targets/oidc-provider:
// node-oidc-provider behind the spec's paths, HTTPS, no clock, no fault switch), the QA team's case
// of a staging target: locally, and behind the latency proxy (each of its origins behind a proxy of
// its own). The target runs in a child process (test/targets/shared/serve-with-profile.ts: the
// bench never imports test/targets/), which writes its profile and hands over the started secrets.
// The run's wall time and CPU are the `run` command's alone (the target's own CPU not included); its
// FAIL/WARN requirements are compared with the target's pinned deviations.json.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TargetProfile } from '../../core/profile/profile.schema.ts';
import { pinDifferencesOf, pinnedVerdicts, startForeignTarget, type ForeignTargetName } from './foreign-target.ts';
import { startLatencyProxy, type LatencyProxy } from './latency-proxy.ts';
import { phaseLine, readSuiteReports, throughProxy, type SuiteRun } from './suite-runs.ts';
import { timeCommand } from './suite-timing.ts';

export const foreignTargetName: ForeignTargetName = 'oidc-provider';

export interface ForeignRun extends SuiteRun {
  /** One-way delay of the proxy, ms (0: no proxy, the target on loopback). */
  delayMs: number;
  /** `run --timings`' per-project line (checks, workers, wall, summed time). */
  projects?: string;
  /** Whether the run's FAIL/WARN requirements are exactly the target's pinned deviations, and the differences. */
  pinned: { same: boolean; unexpected: string[]; missing: string[] };
  proxyConnections: number;
}

/** The FAIL/WARN requirements of a report against the target's deviations.json, both ways. */
function pinDifferences(root: string, reportsDir: string): ForeignRun['pinned'] {
  let report: { requirements: { id: string; verdict: string }[] };
  try {
    report = JSON.parse(readFileSync(join(reportsDir, 'conformance.json'), 'utf8')) as typeof report;
  } catch {
    return { same: false, unexpected: ['no conformance.json'], missing: [] };
  }
  return pinDifferencesOf(pinnedVerdicts(root, foreignTargetName), report.requirements);
}

export interface ForeignRunOptions {
  root: string;
  /** One-way delay of the proxy in front of each origin, ms; 0 runs against the target directly. */
  delayMs: number;
  reportsDir: string;
  logFile: string;
  /** How to run a command unpinned (bench.ts: the suite gets every CPU). */
  command(argv: string[]): [string, string[]];
}

export async function runForeignSuite(o: ForeignRunOptions): Promise<ForeignRun> {
  const temp = mkdtempSync(join(tmpdir(), 'tc-bench-foreign-'));
  const proxies: LatencyProxy[] = [];
  const target = await startForeignTarget(
    o.root,
    foreignTargetName,
    temp,
    o.delayMs > 0 ? ['--behind-proxy'] : [],
  ).catch((error: unknown) => {
    rmSync(temp, { recursive: true, force: true });
    throw error;
  });
  try {
    let profileFile = target.profileFile;
    if (o.delayMs > 0) {
      const profile = JSON.parse(readFileSync(target.profileFile, 'utf8')) as TargetProfile;
      const ports = new Map<number, number>();
      for (const url of [profile.authUrlUs, profile.authUrlEu, profile.baseUrl].filter(
        (u): u is string => u !== undefined,
      )) {
        const port = Number(new URL(url).port);
        if (ports.has(port)) continue;
        const proxy = await startLatencyProxy({ upstreamPort: port, delayMs: o.delayMs });
        proxies.push(proxy);
        ports.set(port, proxy.port);
      }
      profileFile = join(temp, 'distant-profile.json');
      writeFileSync(
        profileFile,
        JSON.stringify({ ...throughProxy(profile, ports), name: `${profile.name}-distant` }, null, 2),
        { mode: 0o600 },
      );
    }
    rmSync(o.reportsDir, { recursive: true, force: true });
    const [command, args] = o.command([
      process.execPath,
      join(o.root, 'bin', 'token-conformance.js'),
      'run',
      '--target',
      profileFile,
      '--reports',
      o.reportsDir,
      '--timings',
    ]);
    const timing = await timeCommand(command, args, o.root, o.logFile, {
      ...process.env,
      FORCE_COLOR: '0',
      ...target.env,
    });
    const projects = /token-conformance run: (projects: .*)$/m.exec(readFileSync(o.logFile, 'utf8'))?.[1];
    const phases = phaseLine(o.logFile);
    return {
      ...timing,
      ...readSuiteReports(o.reportsDir),
      ...(phases !== undefined && { phases }),
      ...(projects !== undefined && { projects }),
      delayMs: o.delayMs,
      pinned: pinDifferences(o.root, o.reportsDir),
      proxyConnections: proxies.reduce((n, p) => n + p.connections(), 0),
    };
  } finally {
    for (const proxy of proxies) await proxy.stop();
    await target.stop();
    rmSync(temp, { recursive: true, force: true });
  }
}
