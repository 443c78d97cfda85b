// Each group's switching proxy in front of its faults' servers, its worker profile (every address
// the proxy's) and each fault's spec wrappers.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TargetProfile } from '../../core/profile/profile.schema.ts';
import { toWorkerProfile, writeWorkerProfile } from '../../core/profile/worker-profile.ts';
import { startRestartControl } from '../../harness/reference/restart-control.ts';
import { applyListening, type ReferenceServer } from '../../harness/reference/start-reference.ts';
import { reportedInterpretations } from '../../harness/reporter/verdict.ts';
import { allSpecFiles, writeSpecWrappers } from '../batch-specs.ts';
import type { Fault } from '../fault.ts';
import type { FaultResult } from '../matrix.ts';
import { startSwitchingProxy, type ProxyMember, type SwitchingProxy } from '../proxy.ts';
import type { RunPlan } from './fault-selection.ts';
import type { Candidate } from './grouping.phase.ts';
import { problemResult, runOf, type Planning } from './planning.phase.ts';
import { withSelfValidationRateLimit } from './rate-limits.ts';
import type { Servers } from './servers.phase.ts';
import type { Started } from './started.ts';

/** A fault ready to run: a member of a group's proxy, in front of its server. */
export interface Prepared {
  fault: Fault;
  plan: RunPlan;
  server: FaultResult['run']['server'];
  /** The fault profile's declared interpretations: the report judges an undeclared one as only assumed (WARN). */
  interpretations: Record<string, string>;
}

/** A group of faults run by one worker through one switching proxy, with one worker profile; each fault's spec wrappers. */
export interface Group {
  name: string;
  proxy: SwitchingProxy;
  members: { prepared: Prepared; specFiles: string[] }[];
  profileFile: string;
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

/** The group profile's interpretations with a fault's own declared and its undeclared ones removed. */
function ownInterpretations(group: Record<string, unknown>, f: Fault): Record<string, unknown> {
  const own: Record<string, unknown> = { ...group, ...f.declare };
  for (const key of f.undeclare ?? []) delete own[key];
  return own;
}

/**
 * The groups, each with a switching proxy in front of its faults' servers and one worker profile
 * (secrets stay in the environment, returned as handoffEnv); each fault's spec wrappers are
 * written under specsDir.
 */
export async function prepareGroups(
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
