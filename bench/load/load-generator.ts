// A closed-loop load generator on undici: a Pool of `connections` keep-alive connections, one
// worker per connection, each sending its next request as soon as the previous answer is read.
// Every answer is read in full and handed to the worker's check; an answer the check refuses (or a
// request that fails) is an error, counted and sampled. A run with errors is reported as such by
// the caller, never as a speed. A warm-up phase (not recorded) comes first; the measured phase is
// bounded by a duration or by a request count.
import type { IncomingHttpHeaders } from 'node:http';
import { Pool } from 'undici';
import { summarizeLatencies, type LatencySummary } from './latency.ts';

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One connection's sequence of requests. `check` returns undefined for a good answer, else what is wrong. */
export interface LoadWorker {
  next(): LoadRequest;
  check(response: LoadResponse): string | undefined;
}

/** How the measured phase ends: after a time, or after a number of answers (all workers together). */
export type LoadBound = { durationMs: number } | { requests: number };

export interface LoadOptions {
  origin: string;
  connections: number;
  warmupMs: number;
  bound: LoadBound;
  /** Builds worker `index` (it may send setup requests of its own through `pool`). */
  createWorker(pool: Pool, index: number): Promise<LoadWorker>;
  /** Per-request limit; a request still unanswered then is an error. */
  requestTimeoutMs?: number;
  /** Called as the measured phase starts and as it ends (e.g. to read the server's CPU time). */
  onMeasuredPhase?: (edge: 'start' | 'end') => void;
}

export interface LoadResult {
  /** Answers received in the measured phase (good and bad). */
  requests: number;
  errors: number;
  /** Up to five distinct descriptions of what went wrong. */
  errorSamples: string[];
  elapsedMs: number;
  /** Good answers per second of the measured phase. */
  throughput: number;
  latency: LatencySummary;
}

const MAX_ERROR_SAMPLES = 5;

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  if (!Number.isInteger(options.connections) || options.connections < 1) throw new RangeError('connections must be a positive integer');
  const pool = new Pool(options.origin, { connections: options.connections, pipelining: 1, keepAliveTimeout: 30_000 });
  try {
    const workers = await Promise.all(Array.from({ length: options.connections }, (_, i) => options.createWorker(pool, i)));
    const timeout = options.requestTimeoutMs ?? 10_000;

    // Warm-up: the same requests, nothing recorded (JIT, caches, connections).
    const warmupEnd = performance.now() + options.warmupMs;
    await Promise.all(workers.map(async (worker) => {
      while (performance.now() < warmupEnd) await exchange(pool, worker, timeout);
    }));

    const latencies: number[] = [];
    const errorSamples = new Set<string>();
    let requests = 0;
    let errors = 0;
    let started = 0; // requests begun, for a request-count bound
    const bound = options.bound;
    options.onMeasuredPhase?.('start');
    const start = performance.now();
    const deadline = 'durationMs' in bound ? start + bound.durationMs : Number.POSITIVE_INFINITY;
    const more = (): boolean => ('requests' in bound ? started < bound.requests : performance.now() < deadline);
    await Promise.all(workers.map(async (worker) => {
      while (more()) {
        started += 1;
        const t0 = performance.now();
        const problem = await exchange(pool, worker, timeout);
        latencies.push(performance.now() - t0);
        requests += 1;
        if (problem !== undefined) {
          errors += 1;
          if (errorSamples.size < MAX_ERROR_SAMPLES) errorSamples.add(problem);
        }
      }
    }));
    const elapsedMs = performance.now() - start;
    options.onMeasuredPhase?.('end');
    return {
      requests,
      errors,
      errorSamples: [...errorSamples],
      elapsedMs,
      throughput: ((requests - errors) * 1000) / elapsedMs,
      latency: summarizeLatencies(latencies),
    };
  } finally {
    await pool.destroy();
  }
}

/** One request and its check; resolves to the problem, or undefined for a good answer. */
async function exchange(pool: Pool, worker: LoadWorker, timeoutMs: number): Promise<string | undefined> {
  let request: LoadRequest;
  try {
    request = worker.next();
  } catch (error) {
    return `worker could not build a request: ${(error as Error).message}`;
  }
  try {
    const response = await pool.request({
      method: request.method,
      path: request.path,
      headers: request.headers ?? {},
      body: request.body ?? null,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const body = await response.body.text();
    return worker.check({ status: response.statusCode, headers: response.headers, body });
  } catch (error) {
    return `request failed: ${(error as Error).message}`;
  }
}
