// A closed-loop load generator on undici: a Pool of `connections` keep-alive connections, one
// worker per connection, each sending its next request as soon as the previous answer is read.
// Every answer is read in full and handed to the worker's check; an answer the check refuses (or a
// request that fails) is an error, counted and sampled. A run with errors is reported as such by
// the caller, never as a speed. A warm-up phase (not recorded) comes first; the measured phase is
// bounded by a duration or by a request count.
// The generator must cost little per answer, or it, not the server, limits the fast rows: requests
// go through undici's dispatcher with a handler that collects the status, the one header the checks
// read (Content-Type) and the body bytes, without the stream and header-object machinery of
// `pool.request`.
import { Pool, type Dispatcher } from 'undici';
import { summarizeLatencies, type LatencySummary } from './latency.ts';

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadResponse {
  status: number;
  /** The response headers the checks read (only Content-Type is kept). */
  headers: { 'content-type'?: string | undefined };
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
  if (!Number.isInteger(options.connections) || options.connections < 1)
    throw new RangeError('connections must be a positive integer');
  const pool = new Pool(options.origin, { connections: options.connections, pipelining: 1, keepAliveTimeout: 30_000 });
  try {
    const workers = await Promise.all(
      Array.from({ length: options.connections }, (_, i) => options.createWorker(pool, i)),
    );
    const timeout = options.requestTimeoutMs ?? 10_000;

    // Warm-up: the same requests, nothing recorded (JIT, caches, connections).
    const warmupEnd = performance.now() + options.warmupMs;
    await Promise.all(
      workers.map(async (worker) => {
        while (performance.now() < warmupEnd) await exchange(pool, worker, timeout);
      }),
    );

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
    await Promise.all(
      workers.map(async (worker) => {
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
      }),
    );
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
    const response = await send(pool, request, timeoutMs);
    return worker.check(response);
  } catch (error) {
    return `request failed: ${(error as Error).message}`;
  }
}

/** Sends one request and resolves to its answer, read in full. */
export function send(pool: Pool, request: LoadRequest, timeoutMs = 10_000): Promise<LoadResponse> {
  return new Promise((resolve, reject) => {
    pool.dispatch(
      {
        method: request.method,
        path: request.path,
        headers: request.headers ?? {},
        body: request.body ?? null,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      },
      new AnswerCollector(resolve, reject),
    );
  });
}

/** A dispatch handler that keeps the status, Content-Type and body of one answer. */
class AnswerCollector implements Dispatcher.DispatchHandler {
  #status = 0;
  #contentType: string | undefined;
  readonly #chunks: Buffer[] = [];

  constructor(
    private readonly resolve: (response: LoadResponse) => void,
    private readonly reject: (error: Error) => void,
  ) {}

  onConnect(): void {}

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    this.#status = statusCode;
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      const name = rawHeaders[i]!;
      if (name.length !== 12 || name.toString('latin1').toLowerCase() !== 'content-type') continue;
      const value = rawHeaders[i + 1]!.toString('latin1');
      this.#contentType = this.#contentType === undefined ? value : `${this.#contentType}, ${value}`;
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.#chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    const chunks = this.#chunks;
    const body = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
    this.resolve({ status: this.#status, headers: { 'content-type': this.#contentType }, body });
  }

  onError(error: Error): void {
    this.reject(error);
  }
}
