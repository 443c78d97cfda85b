// Latency percentiles of one measured phase, in milliseconds (nearest-rank).
export interface LatencySummary {
  p50: number;
  p99: number;
  max: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function summarizeLatencies(latencies: readonly number[]): LatencySummary {
  const sorted = Float64Array.from(latencies).sort();
  const asArray = Array.from(sorted);
  return { p50: percentile(asArray, 50), p99: percentile(asArray, 99), max: asArray.at(-1) ?? Number.NaN };
}
