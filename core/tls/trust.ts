// The TLS trust of every connection the suite and the run open to a target: the system's root
// CAs plus the profile's CA, certificates verified (never rejectUnauthorized:false).
//
// As an undici `connect: { ca }` option the trust list is parsed again for every new connection
// (Node builds a secure context per tls.connect, adding every root certificate each time); a check
// that opens a hundred connections at once would pay that a hundred times. One secure
// context per CA and protocol settings, built once per process and shared by every agent, trusts
// exactly the same certificates.
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';

/** Settings that belong to the secure context (a check may ask for a protocol version or cipher list). */
export interface TlsContextOptions {
  minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  maxVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  ciphers?: string;
}

const contexts = new Map<string, SecureContext>();

/** The shared secure context trusting the system CAs plus `ca` (the system's alone without one). */
export function trustingSecureContext(ca: string | undefined, options: TlsContextOptions = {}): SecureContext {
  const key = JSON.stringify([
    ca ?? null,
    options.minVersion ?? null,
    options.maxVersion ?? null,
    options.ciphers ?? null,
  ]);
  let context = contexts.get(key);
  if (context === undefined) {
    context = createSecureContext({
      ...(ca ? { ca: [...rootCertificates, ca] } : {}),
      ...(options.minVersion ? { minVersion: options.minVersion } : {}),
      ...(options.maxVersion ? { maxVersion: options.maxVersion } : {}),
      ...(options.ciphers ? { ciphers: options.ciphers } : {}),
    });
    contexts.set(key, context);
  }
  return context;
}

/** undici `connect` options: the shared secure context, certificates verified, a connect timeout. */
export function trustingConnectOptions(
  ca: string | undefined,
  timeoutMs: number,
  options: TlsContextOptions & { servername?: string } = {},
) {
  const { servername, ...contextOptions } = options;
  return {
    secureContext: trustingSecureContext(ca, contextOptions),
    rejectUnauthorized: true,
    timeout: timeoutMs,
    ...(servername ? { servername } : {}),
  };
}
