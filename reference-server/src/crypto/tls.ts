// The default HTTPS certificate: self-signed (EC P-256), valid for localhost, 127.0.0.1, ::1 and
// the --host value. Its PEM is the `caFile` the server prints, for clients to trust.
//
// - With a throw-away store (`:memory:`) it is generated at each start (valid 30 days) into a
//   private temporary directory that is removed at shutdown.
// - With a store file it is kept next to it, so that a client that trusts it keeps trusting it
//   across restarts: `<data>.tls-key.pem` (mode 0600: the private key followed by the
//   certificate, written in one atomic step, the source of truth) and `<data>.tls-cert.pem`
//   (the certificate alone: the caFile). It is reused while it matches its key, covers every
//   name above and stays valid for at least another day; otherwise a new one (valid 365 days)
//   replaces it. Of two processes creating it at once on a fresh data file, one wins and both
//   use the winner's.
import { X509Certificate, createPrivateKey, randomUUID } from 'node:crypto';
import { chmod, link, mkdtemp, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';

export interface GeneratedCertificate {
  key: string;
  cert: string;
  caFile: string;
  /** Whether this start generated the certificate (false: a persisted one was reused). */
  generated: boolean;
  dispose(): Promise<void>;
}

export interface CertificatePems {
  key: string;
  cert: string;
}

const DAY_MS = 86_400_000;
const TEMPORARY_VALIDITY_DAYS = 30;
const PERSISTED_VALIDITY_DAYS = 365;
/** A persisted certificate is replaced when it would expire within this margin. */
const RENEWAL_MARGIN_MS = DAY_MS;

/** The names the certificate must cover for `host`. */
export function certificateNames(host: string): string[] {
  return [...new Set(['localhost', '127.0.0.1', '::1', host])].filter((n) => n !== '' && n !== '0.0.0.0' && n !== '::');
}

/** A new self-signed key pair and certificate (PEM). */
export async function createCertificatePems(host: string, now: Date, validityDays: number): Promise<CertificatePems> {
  const altNames = certificateNames(host).map((n) =>
    isIP(n) ? { type: 7 as const, ip: n } : { type: 2 as const, value: n },
  );
  const pems = await generate([{ name: 'commonName', value: 'token-conformance reference server' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 60_000),
    notAfterDate: new Date(now.getTime() + validityDays * DAY_MS),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

/** Why a certificate cannot be (re)used for `host` at `now`; undefined when it can. */
export function certificateProblem(pems: CertificatePems, host: string, now: Date): string | undefined {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pems.cert);
    if (!certificate.checkPrivateKey(createPrivateKey(pems.key))) return 'the key does not match the certificate';
  } catch {
    return 'unreadable key or certificate';
  }
  if (Date.parse(certificate.validFrom) > now.getTime()) return 'not yet valid';
  if (Date.parse(certificate.validTo) - RENEWAL_MARGIN_MS <= now.getTime()) return 'expired or about to expire';
  const uncovered = certificateNames(host).find(
    (n) => (isIP(n) ? certificate.checkIP(n) : certificate.checkHost(n)) === undefined,
  );
  return uncovered === undefined ? undefined : `does not cover ${uncovered}`;
}

/** A certificate generated for this start only, in a private temporary directory (`:memory:` stores). */
export async function generateCertificate(host: string, now: Date): Promise<GeneratedCertificate> {
  const pems = await createCertificatePems(host, now, TEMPORARY_VALIDITY_DAYS);
  const dir = await mkdtemp(join(tmpdir(), 'token-conformance-tls-'));
  const caFile = join(dir, 'cert.pem');
  await writeFile(caFile, pems.cert, { mode: 0o644 });
  return { ...pems, caFile, generated: true, dispose: () => rm(dir, { recursive: true, force: true }) };
}

export function persistedCertificatePaths(dataFile: string): { keyFile: string; certFile: string } {
  return { keyFile: `${dataFile}.tls-key.pem`, certFile: `${dataFile}.tls-cert.pem` };
}

/** The certificate kept next to `dataFile`: reused when it still fits, else generated and stored. */
export async function persistentCertificate(dataFile: string, host: string, now: Date): Promise<GeneratedCertificate> {
  const { keyFile, certFile } = persistedCertificatePaths(dataFile);
  const existing = await readBundle(keyFile);
  let pems = existing && certificateProblem(existing, host, now) === undefined ? existing : undefined;
  const generated = pems === undefined;
  if (pems === undefined) {
    const fresh = await createCertificatePems(host, now, PERSISTED_VALIDITY_DAYS);
    const temp = `${keyFile}.${randomUUID()}.tmp`;
    await writeFile(temp, `${fresh.key.trimEnd()}\n${fresh.cert.trimEnd()}\n`, { mode: 0o600 });
    try {
      if (existing === undefined) {
        // Create-if-absent: of two processes starting on a fresh data file, the first link wins.
        await link(temp, keyFile).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw error;
        });
      } else {
        await rename(temp, keyFile);
      }
    } finally {
      await unlink(temp).catch(() => undefined);
    }
    const stored = await readBundle(keyFile);
    pems = stored && certificateProblem(stored, host, now) === undefined ? stored : fresh;
  } else {
    await restrictKeyFile(keyFile);
  }
  await writeCertFile(certFile, pems.cert);
  return { ...pems, caFile: certFile, generated, dispose: () => Promise.resolve() };
}

/** The key and certificate PEMs of a key file; undefined when it is missing or holds neither. */
async function readBundle(keyFile: string): Promise<CertificatePems | undefined> {
  let text: string;
  try {
    text = await readFile(keyFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const key = /-----BEGIN (?:EC )?PRIVATE KEY-----[\s\S]+?-----END (?:EC )?PRIVATE KEY-----/.exec(text)?.[0];
  const cert = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(text)?.[0];
  return key && cert ? { key: `${key}\n`, cert: `${cert}\n` } : { key: '', cert: '' };
}

/** A key file readable by group or others (e.g. copied around) is narrowed back to 0600. */
async function restrictKeyFile(keyFile: string): Promise<void> {
  if (process.platform === 'win32') return;
  const { mode } = await stat(keyFile);
  if ((mode & 0o077) !== 0) await chmod(keyFile, 0o600);
}

async function writeCertFile(certFile: string, cert: string): Promise<void> {
  const current = await readFile(certFile, 'utf8').catch(() => undefined);
  if (current === cert) return;
  const temp = `${certFile}.${randomUUID()}.tmp`;
  await writeFile(temp, cert, { mode: 0o644 });
  await rename(temp, certFile);
}
