// How far away the target is: the time of one HTTP exchange on a connection that is already open
// (no connect, no TLS handshake), the smallest of a few. Against a distant target a check spends
// most of its time waiting on round trips, not computing: the run then gives Playwright more workers
// (core/run/check-workers.ts). A probe that fails says nothing: the run keeps its usual workers.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { trustingConnectOptions } from '../../core/tls/trust.ts';
import type { TargetProfile } from '../../core/profile/profile.schema.ts';

/** Exchanges timed after the one that opens the connection: the smallest is the round trip. */
const timedExchanges = 3;

/**
 * The smallest time (ms) of a GET to the US token endpoint's origin on an open keep-alive
 * connection, or undefined when it could not be measured (no answer, a refused connection).
 */
export async function measureRoundTripMs(profile: TargetProfile, timeoutMs = 5000): Promise<number | undefined> {
  const ca = profile.caFile ? readFileSync(profile.caFile, 'utf8') : undefined;
  // One connection: every exchange after the first reuses it.
  const agent = new Agent({
    connect: trustingConnectOptions(ca, timeoutMs),
    connections: 1,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const url = new URL('/', profile.authUrlUs).href;
  const exchange = async (): Promise<number> => {
    const started = performance.now();
    const res = await request(url, { method: 'GET', dispatcher: agent, signal: AbortSignal.timeout(timeoutMs) });
    // Bounded: at most one small page is read of an answer this probe does not look at.
    await res.body.dump({ limit: 64 * 1024 });
    return performance.now() - started;
  };
  try {
    await exchange();
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < timedExchanges; i++) best = Math.min(best, await exchange());
    return Math.round(best * 10) / 10;
  } catch {
    return undefined;
  } finally {
    await agent.close();
  }
}
