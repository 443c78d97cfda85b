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
  /** What to change in the profile, in one line, when the failure says it (a scheme the server does not speak, a certificate for another host). */
  fix?: string;
}

function addresses(p: TargetProfile): [string, string][] {
  const list: [string, string | undefined][] = [
    ['authUrlUs', p.authUrlUs],
    ['authUrlEu', p.authUrlEu],
    ['baseUrl', p.baseUrl],
    ['capabilities.clockControlUrl', p.capabilities.clockControlUrl],
    ['capabilities.faultControlUrl', p.capabilities.faultControlUrl],
  ];
  return list.filter((e): e is [string, string] => e[1] !== undefined);
}

const isTlsTrust = (code: string | undefined) =>
  code !== undefined &&
  /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(code) &&
  code !== 'ERR_TLS_CERT_ALTNAME_INVALID' &&
  code !== 'CERT_HAS_EXPIRED';

/** The one line that says what to change, for the failures whose cause is plain from the error (else undefined). */
export function schemeOrTlsFix(
  field: string,
  url: string,
  code: string | undefined,
  message: string,
): string | undefined {
  const u = new URL(url);
  const other = (protocol: string) => `${protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  if (
    u.protocol === 'https:' &&
    (code === 'ERR_SSL_WRONG_VERSION_NUMBER' ||
      /wrong version number|packet length too long|http request/i.test(message))
  ) {
    return `${field} ${url}: the server answers plain HTTP there, not TLS — set ${field} to ${other('http:')} (plain HTTP needs "local": true) or to the address where it speaks TLS`;
  }
  if (
    u.protocol === 'http:' &&
    (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || /other side closed|socket hang up/i.test(message))
  ) {
    return `${field} ${url}: the server closed the connection without an HTTP answer — if it speaks TLS there, set ${field} to ${other('https:')}`;
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return `${field} ${url}: the TLS certificate is not issued for ${u.hostname} — use the host name the certificate names`;
  if (code === 'CERT_HAS_EXPIRED')
    return `${field} ${url}: the TLS certificate has expired — renew it on the target (the suite always verifies TLS)`;
  if (code !== undefined && /^ERR_SSL_|^EPROTO$/.test(code))
    return `${field} ${url}: the TLS handshake failed (${code}) — check the scheme (https://) and the port`;
  return undefined;
}

function hint(code: string | undefined, message: string): string {
  if (isTlsTrust(code))
    return `${code}: ${message} — the certificate is not trusted; set caFile to the CA that signs it`;
  // OpenSSL's own text (error:0A00010B:SSL routines:…:file.c:350:) says nothing a user can act on beyond its code.
  if (code !== undefined && /^ERR_SSL_|^EPROTO$/.test(code)) return code;
  if (code === 'ECONNREFUSED') return 'connection refused — nothing listens there';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `host not found (${code})`;
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT') return 'no answer within the timeout';
  return code ? `${code}: ${message}` : message;
}

export async function checkReachability(profile: TargetProfile, timeoutMs = 5000): Promise<Unreachable[]> {
  const ca = profile.caFile ? readFileSync(profile.caFile, 'utf8') : undefined;
  const agent = new Agent({
    connect: trustingConnectOptions(ca, timeoutMs),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  try {
    const results = await Promise.all(
      addresses(profile).map(async ([field, url]): Promise<Unreachable | undefined> => {
        try {
          const res = await request(url, { method: 'GET', dispatcher: agent, signal: AbortSignal.timeout(timeoutMs) });
          await res.body.dump();
          return undefined;
        } catch (error) {
          const e = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
          const code = e.cause?.code ?? e.code ?? (e.name === 'TimeoutError' ? 'UND_ERR_CONNECT_TIMEOUT' : undefined);
          const message = e.cause?.message ?? e.message;
          const fix = schemeOrTlsFix(field, url, code, message);
          return {
            field,
            url,
            problem: hint(code, message),
            ...(isTlsTrust(code) ? { tlsTrust: true } : {}),
            ...(fix !== undefined ? { fix } : {}),
          };
        }
      }),
    );
    return results.filter((r): r is Unreachable => r !== undefined);
  } finally {
    await agent.close();
  }
}

/** The one "setup problem" line for unreachable addresses: TLS trust first (the fix is caFile), else the addresses. */
export function unreachableProblem(unreachable: Unreachable[]): string {
  const fixes = unreachable.filter((u) => u.fix !== undefined);
  if (fixes.length > 0) return fixes.map((u) => u.fix).join('; ');
  const tls = unreachable.filter((u) => u.tlsTrust);
  if (tls.length > 0)
    return `the TLS certificate of ${tls.map((u) => `${u.field} (${u.url})`).join(', ')} is not trusted — set caFile to the PEM of the CA that signs it`;
  return `${unreachable.map((u) => u.field).join(', ')} not reachable (see above) — check the address${unreachable.length > 1 ? 'es' : ''} in the profile`;
}
