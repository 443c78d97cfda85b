// Which faults share a worker and a switching proxy: each fault's proxy fault, and the groups.
import type { Fault, FaultEnv } from '../fault.ts';
import type { FaultResult } from '../matrix.ts';
import type { ProxyFault } from '../proxy.ts';
import { problemResult, type Planning } from './planning.phase.ts';

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

/** A fault that can be run, with its proxy fault, as groupFaults sees it. */
export interface Candidate {
  id: string;
  fault: Fault;
  proxyFault: ProxyFault;
  alone: boolean;
  estimatedMs: number;
  rateLimits: boolean;
}

/** The faults' proxy faults and their groups (groupFaults); a fault whose proxy fault cannot be made gets its problem. */
export function planGroups(
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
