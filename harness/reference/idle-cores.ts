// How many cores sit idle right now: whether a run can afford more workers against a distant target
// (core/run/check-workers.ts). Measured over a short window from the kernel's per-CPU tick counters,
// not read from the load average: the 1-minute average still counts the work that ended just before
// the run (its own start, a previous run, a bench step) and kept a quiet machine at "no core idle".
import { availableParallelism, cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

export interface CpuTicks {
  idle: number;
  total: number;
}

/** The tick counters of every CPU, summed (os.cpus(): /proc/stat on Linux). */
export function cpuTicks(): CpuTicks {
  let idle = 0;
  let total = 0;
  for (const { times } of cpus()) {
    idle += times.idle;
    total += times.user + times.nice + times.sys + times.idle + times.irq;
  }
  return { idle, total };
}

/** Idle cores between two readings: the idle share of the ticks, in cores this process may use. */
export function idleCoresBetween(before: CpuTicks, after: CpuTicks, cores = availableParallelism()): number {
  const total = after.total - before.total;
  if (total <= 0) return 0;
  return Math.min(1, Math.max(0, (after.idle - before.idle) / total)) * cores;
}

/** Idle cores over the next `ms` (this process waits meanwhile, so its own work is not counted). */
export async function sampleIdleCores(ms: number, read: () => CpuTicks = cpuTicks): Promise<number> {
  const before = read();
  await sleep(ms);
  return idleCoresBetween(before, read());
}
