// The HTTPS certificate of replicas on a shared store (PostgreSQL): kept in the store like the
// signing key, created once (the first replica inserts it; the others read the same row), so that a
// client behind a TCP balancer trusts one CA whichever replica answers. The PEM goes to a private
// temporary directory as the printed `caFile`. A stored certificate that no longer fits (expired,
// another --host) is not replaced under the others' feet: this replica then generates its own
// for this start, and says so in the log (`generated`).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '../domain/ports.ts';
import {
  certificateProblem,
  createCertificatePems,
  generateCertificate,
  type CertificatePems,
  type GeneratedCertificate,
} from './tls.ts';

const META_NAME = 'tls-certificate.v1';
const SHARED_VALIDITY_DAYS = 365;

function parse(value: string | undefined): CertificatePems | undefined {
  if (value === undefined) return undefined;
  try {
    const { key, cert } = JSON.parse(value) as Partial<CertificatePems>;
    return typeof key === 'string' && typeof cert === 'string' ? { key, cert } : undefined;
  } catch {
    return undefined;
  }
}

export async function sharedCertificate(
  store: Pick<Store, 'getMeta' | 'putMetaIfAbsent'>,
  host: string,
  now: Date,
): Promise<GeneratedCertificate> {
  let pems = parse(await store.getMeta(META_NAME));
  let generated = false;
  if (pems === undefined) {
    const candidate = await createCertificatePems(host, now, SHARED_VALIDITY_DAYS);
    pems = parse(await store.putMetaIfAbsent(META_NAME, JSON.stringify(candidate)));
    generated = pems?.cert === candidate.cert;
  }
  if (pems === undefined || certificateProblem(pems, host, now) !== undefined) return generateCertificate(host, now);
  const dir = await mkdtemp(join(tmpdir(), 'token-conformance-tls-'));
  const caFile = join(dir, 'cert.pem');
  await writeFile(caFile, pems.cert, { mode: 0o644 });
  return { ...pems, caFile, generated, dispose: () => rm(dir, { recursive: true, force: true }) };
}
