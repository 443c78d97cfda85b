// Before anything runs: can every configured address be reached, with TLS verified against the
// profile's CA? Any HTTP answer counts (even 404); a refused connection, a DNS failure, a timeout
// or a TLS failure is reported naming the field and the address.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { trustingConnectOptions } from '../../core/tls/trust.ts';
import type { TargetProfile } from '../../core/profile/profile.schema.ts';

export interface Unreachable {
  field: string;
  url: string;
  problem: string;
  /** The address answered, but its TLS certificate is not trusted (a setup problem: caFile). */
  tlsTrust?: boolean;
}

function addresses(p: TargetProfile): [string, string][] {
  const list: [string, string | undefined][] = [
    ['authUrlUs', p.authUrlUs], ['authUrlEu', p.authUrlEu], ['baseUrl', p.baseUrl],
    ['capabilities.clockControlUrl', p.capabilities.clockControlUrl], ['capabilities.faultControlUrl', p.capabilities.faultControlUrl],
  ];
  return list.filter((e): e is [string, string] => e[1] !== undefined);
}

const isTlsTrust = (code: string | undefined) => code !== undefined && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(code);

function hint(code: string | undefined, message: string): string {
  if (isTlsTrust(code)) return `${code}: ${message} — the certificate is not trusted; set caFile to the CA that signs it`;
  if (code === 'ECONNREFUSED') return 'connection refused — nothing listens there';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `host not found (${code})`;
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT') return 'no answer within the timeout';
  return code ? `${code}: ${message}` : message;
}

export async function checkReachability(profile: TargetProfile, timeoutMs = 5000): Promise<Unreachable[]> {
  const ca = profile.caFile ? readFileSync(profile.caFile, 'utf8') : undefined;
  const agent = new Agent({ connect: trustingConnectOptions(ca, timeoutMs), headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  try {
    const results = await Promise.all(addresses(profile).map(async ([field, url]): Promise<Unreachable | undefined> => {
      try {
        const res = await request(url, { method: 'GET', dispatcher: agent, signal: AbortSignal.timeout(timeoutMs) });
        await res.body.dump();
        return undefined;
      } catch (error) {
        const e = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
        const code = e.cause?.code ?? e.code ?? (e.name === 'TimeoutError' ? 'UND_ERR_CONNECT_TIMEOUT' : undefined);
        return { field, url, problem: hint(code, e.cause?.message ?? e.message), ...(isTlsTrust(code) ? { tlsTrust: true } : {}) };
      }
    }));
    return results.filter((r): r is Unreachable => r !== undefined);
  } finally {
    await agent.close();
  }
}

/** The one "setup problem" line for unreachable addresses: TLS trust first (the fix is caFile), else the addresses. */
export function unreachableProblem(unreachable: Unreachable[]): string {
  const tls = unreachable.filter((u) => u.tlsTrust);
  if (tls.length > 0) return `the TLS certificate of ${tls.map((u) => `${u.field} (${u.url})`).join(', ')} is not trusted — set caFile to the PEM of the CA that signs it`;
  return `${unreachable.map((u) => u.field).join(', ')} not reachable (see above) — check the address${unreachable.length > 1 ? 'es' : ''} in the profile`;
}
