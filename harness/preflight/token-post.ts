// One form POST to a token endpoint for the run's own probes (preflight, region parity), with TLS
// verified against the profile's CA exactly as reachability.ts does. The body is returned to the
// caller only to be reduced (region-parity.ts reduceAnswer); it is never printed or stored.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { trustingConnectOptions } from '../../core/tls/trust.ts';
import { readBounded, responseByteLimit } from '../../core/http/bounded-read.ts';
import { describeEvidence, intermediaryEvidence } from '../../core/http/intermediary.ts';
import type { TargetProfile } from '../../core/profile/profile.schema.ts';

export const usTokenPath = '/api/v1/auth/oauth2/token';
export const euTokenPath = '/oauth2/default/v1/token';

export interface RawAnswer {
  status: number;
  retryAfter?: string;
  body: string;
  /** The answer is not the target's: who gave it and the evidence (core/http/intermediary.ts), escaped. */
  intermediary?: string;
}

export interface TokenPoster {
  post(url: string, form: Record<string, string>): Promise<RawAnswer>;
  /** A GET with a bearer token (init asking the target which identifiers it knows). */
  get(url: string, bearer: string): Promise<RawAnswer>;
  close(): Promise<void>;
}

/**
 * A poster for the profile's target: its CA trusted, nothing else relaxed. `cancel`: the caller may
 * give its requests up (the run's reachability phase failed meanwhile): they end at once.
 */
export function tokenPoster(
  profile: Pick<TargetProfile, 'caFile'>,
  timeoutMs = 10_000,
  cancel?: AbortSignal,
): TokenPoster {
  const deadline = () =>
    cancel ? AbortSignal.any([AbortSignal.timeout(timeoutMs), cancel]) : AbortSignal.timeout(timeoutMs);
  const ca = profile.caFile ? readFileSync(profile.caFile, 'utf8') : undefined;
  const agent = new Agent({
    connect: trustingConnectOptions(ca, timeoutMs),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  return {
    async post(url, form) {
      const res = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams(form).toString(),
        signal: deadline(),
      });
      const retryAfter = res.headers['retry-after'];
      const body = await boundedText(res.body, res.headers);
      const evidence = intermediaryEvidence({
        status: res.statusCode,
        headers: Object.fromEntries(
          Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]),
        ),
        bodyStart: body.slice(0, 8192),
      });
      return {
        status: res.statusCode,
        ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
        body,
        ...(evidence ? { intermediary: describeEvidence(evidence) } : {}),
      };
    },
    async get(url, bearer) {
      const res = await request(url, {
        method: 'GET',
        dispatcher: agent,
        headers: { authorization: `Bearer ${bearer}`, accept: 'application/json' },
        signal: deadline(),
      });
      return { status: res.statusCode, body: await boundedText(res.body, res.headers) };
    },
    close: () => agent.close(),
  };
}

/** The start of a body, at most the suite's read limit (the deadline of the request's signal covers it). */
async function boundedText(
  body: Parameters<typeof readBounded>[0],
  headers: Parameters<typeof readBounded>[2],
): Promise<string> {
  return (await readBounded(body, responseByteLimit, headers)).bytes.toString('utf8');
}

/** The token endpoint URL of a region: the base address + the spec's path (§4, §9), as the checks build it (fixtures/target.ts). */
export function tokenUrl(base: string, region: 'us' | 'eu'): string {
  return base.replace(/\/+$/, '') + (region === 'us' ? usTokenPath : euTokenPath);
}
