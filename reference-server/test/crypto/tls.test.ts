// The HTTPS certificate: kept next to a store file (key file 0600) and reused across starts while
// it fits; replaced when missing, unreadable, expired, not matching its key or not covering the
// host. A throw-away one (temporary directory) for :memory: stores.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  certificateProblem,
  createCertificatePems,
  generateCertificate,
  persistedCertificatePaths,
  persistentCertificate,
} from '../../src/crypto/tls.ts';

const DAY = 86_400_000;
const now = new Date(Date.UTC(2026, 0, 15));
const mode = (file: string) => statSync(file).mode & 0o777;

void describe('TLS certificate', () => {
  let dir: string;
  let n = 0;
  const dataFile = () => join(dir, `store-${(n += 1)}.sqlite`);
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tc-tls-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  void test('a store file gets a key file (0600, key + certificate) and a cert file (the caFile) next to it', async () => {
    const data = dataFile();
    const c = await persistentCertificate(data, '127.0.0.1', now);
    const { keyFile, certFile } = persistedCertificatePaths(data);
    assert.equal(c.generated, true);
    assert.equal(c.caFile, certFile);
    assert.equal(readFileSync(certFile, 'utf8'), c.cert);
    assert.doesNotMatch(readFileSync(certFile, 'utf8'), /PRIVATE KEY/);
    assert.match(readFileSync(keyFile, 'utf8'), /PRIVATE KEY[\s\S]+CERTIFICATE/);
    if (process.platform !== 'win32') assert.equal(mode(keyFile), 0o600);
    assert.equal(certificateProblem(c, '127.0.0.1', now), undefined);
    const x = new X509Certificate(c.cert);
    assert.ok(Date.parse(x.validTo) > now.getTime() + 300 * DAY, 'valid about a year');
    await c.dispose();
    assert.ok(existsSync(keyFile) && existsSync(certFile), 'dispose keeps a persisted certificate');
  });

  void test('the next start reuses it, and narrows a key file that became readable by others', async () => {
    const data = dataFile();
    const first = await persistentCertificate(data, 'localhost', now);
    const { keyFile } = persistedCertificatePaths(data);
    chmodSync(keyFile, 0o644);
    const second = await persistentCertificate(data, 'localhost', new Date(now.getTime() + 100 * DAY));
    assert.equal(second.generated, false);
    assert.equal(second.cert, first.cert);
    assert.equal(second.key, first.key);
    if (process.platform !== 'win32') assert.equal(mode(keyFile), 0o600);
  });

  void test('replaced when expired (or within a day of it), for another host, or when the key file is unreadable or mismatched', async () => {
    const data = dataFile();
    const { keyFile, certFile } = persistedCertificatePaths(data);
    const original = await persistentCertificate(data, '127.0.0.1', now);

    const nearExpiry = await persistentCertificate(data, '127.0.0.1', new Date(now.getTime() + 364.5 * DAY));
    assert.equal(nearExpiry.generated, true);
    assert.notEqual(nearExpiry.cert, original.cert);
    assert.equal(readFileSync(certFile, 'utf8'), nearExpiry.cert, 'the caFile follows');

    const otherHost = await persistentCertificate(data, 'tc.example.test', now);
    assert.equal(otherHost.generated, true);
    assert.equal(certificateProblem(otherHost, 'tc.example.test', now), undefined);
    assert.match(certificateProblem(original, 'tc.example.test', now) ?? '', /does not cover tc\.example\.test/);

    writeFileSync(keyFile, 'garbage', { mode: 0o600 });
    assert.equal((await persistentCertificate(data, 'tc.example.test', now)).generated, true);

    const stranger = await createCertificatePems('tc.example.test', now, 30);
    const current = await persistentCertificate(data, 'tc.example.test', now);
    writeFileSync(keyFile, `${stranger.key}${current.cert}`, { mode: 0o600 });
    assert.equal(
      certificateProblem({ key: stranger.key, cert: current.cert }, 'tc.example.test', now),
      'the key does not match the certificate',
    );
    const replaced = await persistentCertificate(data, 'tc.example.test', now);
    assert.equal(replaced.generated, true);
    if (process.platform !== 'win32') assert.equal(mode(keyFile), 0o600);
  });

  void test('two processes creating it at once on a fresh data file end with one certificate', async () => {
    const data = dataFile();
    const [a, b] = await Promise.all([
      persistentCertificate(data, '127.0.0.1', now),
      persistentCertificate(data, '127.0.0.1', now),
    ]);
    assert.equal(a.cert, b.cert);
    assert.equal(readFileSync(persistedCertificatePaths(data).certFile, 'utf8'), a.cert);
  });

  void test(':memory: stores get a throw-away certificate whose directory dispose removes', async () => {
    const c = await generateCertificate('127.0.0.1', now);
    assert.equal(c.generated, true);
    assert.equal(readFileSync(c.caFile, 'utf8'), c.cert);
    await c.dispose();
    assert.equal(existsSync(c.caFile), false);
  });
});
