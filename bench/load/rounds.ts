// A row measured in several rounds, interleaved with the other rows (round 1 of every row, then
// round 2, …), so that a change of the machine's load during the run hits every row alike. The
// row's figures are the medians of its rounds; the server's CPU time per answer comes from all
// rounds together (a cost per request holds even when the load generator, not the server, is
// what limits the rate on a busy machine).
import type { LoadResult } from './load-generator.ts';

export interface RoundResult {
  load: LoadResult;
  /** CPU seconds the server process used during the round (user + system, all threads). */
  serverCpuSeconds: number;
  /** CPU seconds the load generator (this process, all threads) used during the round, when measured. */
  loadCpuSeconds?: number;
}

export interface RowResult {
  requests: number;
  errors: number;
  errorSamples: string[];
  /** Median over the rounds of the good answers per second. */
  throughput: number;
  roundThroughputs: number[];
  p50: number;
  p99: number;
  /** Each round's p99, in round order. */
  roundP99s: number[];
  /** Server CPU time per answer, microseconds. */
  cpuMicrosPerRequest: number;
  /** Server CPU time over wall time of the measured phases (1 = one full CPU). */
  cpuShare: number;
  /** The load generator's CPU time over wall time (1 = one full CPU: the generator, not the server, limits the rate); NaN when not measured. */
  loadCpuShare: number;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function combineRounds(rounds: readonly RoundResult[]): RowResult {
  const requests = rounds.reduce((n, r) => n + r.load.requests, 0);
  const errors = rounds.reduce((n, r) => n + r.load.errors, 0);
  const cpu = rounds.reduce((n, r) => n + r.serverCpuSeconds, 0);
  const elapsedS = rounds.reduce((n, r) => n + r.load.elapsedMs, 0) / 1000;
  const loadCpu = rounds.reduce((n, r) => n + (r.loadCpuSeconds ?? Number.NaN), 0);
  return {
    requests,
    errors,
    errorSamples: [...new Set(rounds.flatMap((r) => r.load.errorSamples))].slice(0, 5),
    throughput: median(rounds.map((r) => r.load.throughput)),
    roundThroughputs: rounds.map((r) => r.load.throughput),
    p50: median(rounds.map((r) => r.load.latency.p50)),
    p99: median(rounds.map((r) => r.load.latency.p99)),
    roundP99s: rounds.map((r) => r.load.latency.p99),
    cpuMicrosPerRequest: requests > 0 ? (cpu * 1e6) / requests : Number.NaN,
    cpuShare: elapsedS > 0 ? cpu / elapsedS : Number.NaN,
    loadCpuShare: elapsedS > 0 ? loadCpu / elapsedS : Number.NaN,
  };
}
