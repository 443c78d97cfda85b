// What came of one HTTPS request made with chosen TLS versions: an HTTP answer, a refusal by the
// server, or a failure on our side (our client could not offer what was asked, or the address is
// not reachable) that says nothing about the target.
import type { RawHttp } from '../../../fixtures/index.ts';

export type TlsVersion = 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';

export type TlsOutcome =
  | { kind: 'answered'; status: number }
  /** The handshake went past version negotiation at the offered version (e.g. a certificate or signature-algorithm error on our side). */
  | { kind: 'negotiated'; error: string }
  | { kind: 'refused'; error: string }
  | { kind: 'not-offered'; error: string }
  | { kind: 'unreachable'; error: string };

/** Our client could not offer the versions asked: nothing reached the server. */
const clientSide = /ERR_SSL_NO_PROTOCOLS_AVAILABLE|ERR_TLS_INVALID_PROTOCOL_VERSION|ERR_TLS_PROTOCOL_VERSION_CONFLICT|ERR_SSL_NO_CIPHERS_AVAILABLE|ERR_SSL_NO_CIPHER_MATCH|ERR_INVALID_ARG/;
/** The server took the old version and the handshake went on (our client gave up later). */
const pastNegotiation = /LEGACY_SIGALG|CERT_|UNABLE_TO_|SELF_SIGNED|ERR_TLS_CERT_ALTNAME_INVALID|DEPTH_ZERO/;
const unreachable = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH/;

/**
 * Offers exactly the TLS versions minVersion..maxVersion. `DEFAULT@SECLEVEL=0` lets OpenSSL 3 (Node
 * 18+) sign and verify with the SHA-1/MD5 schemes that TLS 1.0 and 1.1 need: without it our own
 * client refuses a TLS 1.1 server, and a check of the target's refusal could not fail.
 */
export async function tlsOutcome(rawHttp: RawHttp, url: string, minVersion: TlsVersion, maxVersion: TlsVersion): Promise<TlsOutcome> {
  const legacy = minVersion === 'TLSv1' || minVersion === 'TLSv1.1';
  try {
    const res = await rawHttp.send({ method: 'GET', url, headers: [['accept', 'application/json']], tls: { minVersion, maxVersion, ...(legacy ? { ciphers: 'DEFAULT@SECLEVEL=0' } : {}) } });
    return { kind: 'answered', status: res.status };
  } catch (e) {
    const error = e instanceof Error ? e.message : String(e);
    if (clientSide.test(error)) return { kind: 'not-offered', error };
    if (unreachable.test(error)) return { kind: 'unreachable', error };
    if (pastNegotiation.test(error)) return { kind: 'negotiated', error };
    return { kind: 'refused', error };
  }
}
