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

/**
 * A sample started now and read at its end, over at least `minMs` (waiting out the rest when less
 * has passed): started before a phase that mostly waits on the network (the reachability probes:
 * a few TLS handshakes of this process's own), it costs that phase no time of its own.
 */
export function startIdleSample(
  read: () => CpuTicks = cpuTicks,
  now: () => number = () => performance.now(),
): { end(minMs: number): Promise<number> } {
  const before = read();
  const startedAt = now();
  return {
    async end(minMs) {
      const left = minMs - (now() - startedAt);
      if (left > 0) await sleep(left);
      return idleCoresBetween(before, read());
    },
  };
}
