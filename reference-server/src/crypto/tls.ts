// The default HTTPS certificate: self-signed, generated at each start (EC P-256), valid for
// localhost, 127.0.0.1, ::1 and the --host value. Its PEM is written to a private temporary file
// whose path the server prints as `caFile`, for clients to trust.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';

export interface GeneratedCertificate {
  key: string;
  cert: string;
  caFile: string;
  dispose(): Promise<void>;
}

export async function generateCertificate(host: string, now: Date): Promise<GeneratedCertificate> {
  const names = new Set(['localhost', '127.0.0.1', '::1', host]);
  const altNames = [...names].filter((n) => n !== '' && n !== '0.0.0.0' && n !== '::').map((n) =>
    isIP(n) ? { type: 7 as const, ip: n } : { type: 2 as const, value: n });
  const pems = await generate([{ name: 'commonName', value: 'token-conformance reference server' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 60_000),
    notAfterDate: new Date(now.getTime() + 30 * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  });
  const dir = await mkdtemp(join(tmpdir(), 'token-conformance-tls-'));
  const caFile = join(dir, 'cert.pem');
  await writeFile(caFile, pems.cert, { mode: 0o644 });
  return { key: pems.private, cert: pems.cert, caFile, dispose: () => rm(dir, { recursive: true, force: true }) };
}
