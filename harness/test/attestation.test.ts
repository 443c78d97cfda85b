// The in-toto attestation beside a bundle: a Test Result statement in a DSSE envelope signed with
// the bundle key. `verify` accepts it and rejects a tampered one; so does an independent DSSE
// verifier (Sigstore's @sigstore/verify, given the public key), which computes the PAE itself.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { bundleFromJSON } from '@sigstore/bundle';
import { toSignedEntity, toTrustMaterial, Verifier } from '@sigstore/verify';
import { bundleMain, keygenMain, verifyMain } from '../commands/bundle.command.ts';
import {
  attestationPathFor,
  signStatement,
  testEntry,
  testResultPredicateType,
  type DsseEnvelope,
  type TestResultStatement,
} from '../bundle/attestation.ts';
import { profileSha256, sha256, type Bundle } from '../bundle/bundle.ts';
import type { ConformanceReport } from '../reporter/report.schema.ts';
import { temporaryDirectory } from './support/temporary-directory.ts';

const root = join(import.meta.dirname, '..', '..');
const plantedFail = join(import.meta.dirname, 'fixtures', 'gate', 'report-planted-fail.json');

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}

async function bundled() {
  const dir = temporaryDirectory('tc-attest-');
  const reports = join(dir, 'reports');
  mkdirSync(reports, { recursive: true });
  copyFileSync(plantedFail, join(reports, 'conformance.json'));
  writeFileSync(join(reports, 'traceability.html'), '<html>matrix</html>');
  const k = capture();
  assert.equal(
    await keygenMain(['--private', join(dir, 'private.pem'), '--public', join(dir, 'public.pem')], k.io),
    0,
    k.err.join('\n'),
  );
  const out = join(dir, 'bundle.json');
  const c = capture();
  assert.equal(
    await bundleMain(
      [
        '--reports',
        reports,
        '--key',
        join(dir, 'private.pem'),
        '--out',
        out,
        '--profile',
        join(root, 'profiles', 'reference.json'),
      ],
      c.io,
      {},
    ),
    0,
    c.err.join('\n'),
  );
  assert.equal(
    c.out.at(-2),
    `ATTESTATION written: ${join(dir, 'bundle.intoto.jsonl')} — in-toto Test Result (DSSE, same key)`,
  );
  return { dir, out, pub: join(dir, 'public.pem'), attestation: attestationPathFor(out) };
}

async function verify(args: string[]) {
  const c = capture();
  return { code: await verifyMain(args, c.io), ...c };
}

const envelopeOf = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as DsseEnvelope;
const statementOf = (e: DsseEnvelope) =>
  JSON.parse(Buffer.from(e.payload, 'base64').toString('utf8')) as TestResultStatement;

/** The independent verifier: the envelope as a Sigstore bundle (public-key material, no log or timestamp), verified with the key. */
function sigstoreVerifies(envelope: DsseEnvelope, publicKeyPem: string): boolean {
  const bundle = bundleFromJSON({
    mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
    verificationMaterial: {
      publicKey: { hint: envelope.signatures[0]!.keyid },
      tlogEntries: [],
      timestampVerificationData: { rfc3161Timestamps: [] },
    },
    dsseEnvelope: envelope,
  });
  const key = createPublicKey(publicKeyPem);
  const trust = toTrustMaterial(
    {
      mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
      tlogs: [],
      certificateAuthorities: [],
      ctlogs: [],
      timestampAuthorities: [],
    },
    (hint) => {
      if (hint !== envelope.signatures[0]!.keyid) throw new Error(`unknown key ${hint}`);
      return { publicKey: key, validFor: () => true };
    },
  );
  try {
    new Verifier(trust, { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 }).verify(toSignedEntity(bundle));
    return true;
  } catch {
    return false;
  }
}

void describe('in-toto attestation beside the bundle', () => {
  void test('the statement: Test Result predicate, one entry per requirement verdict, the profile, suite, catalogue and report digests', async () => {
    const { out, attestation } = await bundled();
    const envelope = envelopeOf(attestation);
    assert.equal(envelope.payloadType, 'application/vnd.in-toto+json');
    const statement = statementOf(envelope);
    const report = JSON.parse(readFileSync(plantedFail, 'utf8')) as ConformanceReport;
    assert.equal(statement._type, 'https://in-toto.io/Statement/v1');
    assert.equal(statement.predicateType, testResultPredicateType);
    assert.equal(statement.predicate.result, 'FAILED');
    const p = statement.predicate;
    assert.equal(
      p.passedTests.length + p.warnedTests.length + p.failedTests.length,
      report.requirements.length,
      'one entry per requirement',
    );
    for (const r of report.requirements) {
      const e = testEntry(r);
      assert.ok(p[e.list].includes(e.name), `${r.id} (${r.verdict}) in ${e.list}`);
    }
    assert.ok(p.failedTests.length > 0);
    const profileHash = profileSha256(join(root, 'profiles', 'reference.json'));
    assert.deepEqual(
      statement.subject.map((s) => s.digest),
      [{ sha256: profileHash }],
    );
    const bundle = JSON.parse(readFileSync(out, 'utf8')) as Bundle;
    const byName = new Map(p.configuration.map((d) => [d.name, d]));
    assert.equal(byName.get('conformance.json')?.digest?.sha256, sha256(bundle.files['conformance.json']!));
    assert.equal(byName.get('traceability.html')?.digest?.sha256, sha256(bundle.files['traceability.html']!));
    assert.equal(byName.get('token-conformance')?.uri, `pkg:npm/token-conformance@${report.suiteVersion}`);
    assert.ok(
      byName.get('token-conformance catalogue')?.annotations?.version !== undefined,
      'the catalogue release is named',
    );
    assert.ok(p.configuration.some((d) => d.digest?.sha256 === profileHash));
  });

  void test('verify accepts the attestation (with the bundle and alone) and rejects a tampered one; so does @sigstore/verify', async () => {
    const { dir, out, pub, attestation } = await bundled();
    const ok = await verify([out, '--key', pub]);
    assert.equal(ok.code, 0, ok.err.join('\n'));
    assert.match(ok.out[0]!, /^VERIFIED: .*bundle\.json — signature valid/);
    assert.match(
      ok.out[1]!,
      /^VERIFIED: .*bundle\.intoto\.jsonl — DSSE signature valid, in-toto Test Result FAILED: \d+ passed, \d+ warned, [1-9]\d* failed.*; its report digests match the bundle$/,
    );
    const alone = await verify([attestation, '--key', pub]);
    assert.equal(alone.code, 0, alone.err.join('\n'));
    const pem = readFileSync(pub, 'utf8');
    const envelope = envelopeOf(attestation);
    assert.equal(sigstoreVerifies(envelope, pem), true, 'the independent verifier accepts our envelope');

    // Tampered: a failed requirement moved to passedTests, the signature kept.
    const statement = statementOf(envelope);
    const moved = statement.predicate.failedTests.shift()!;
    statement.predicate.passedTests.push(moved);
    statement.predicate.result = 'PASSED';
    const tampered = { ...envelope, payload: Buffer.from(JSON.stringify(statement)).toString('base64') };
    writeFileSync(attestation, `${JSON.stringify(tampered)}\n`);
    const bad = await verify([out, '--key', pub]);
    assert.equal(bad.code, 1);
    assert.match(bad.err.join('\n'), /NOT VERIFIED: .*bundle\.intoto\.jsonl\n {2}no valid signature by this key/);
    assert.equal((await verify([attestation, '--key', pub])).code, 1);
    assert.equal(sigstoreVerifies(tampered, pem), false, 'the independent verifier rejects the tampered envelope');

    // Another key: both reject.
    const k = capture();
    assert.equal(
      await keygenMain(['--private', join(dir, 'other.pem'), '--public', join(dir, 'other.pub.pem')], k.io),
      0,
    );
    writeFileSync(attestation, `${JSON.stringify(envelope)}\n`);
    assert.equal((await verify([attestation, '--key', join(dir, 'other.pub.pem')])).code, 1);
    assert.equal(sigstoreVerifies(envelope, readFileSync(join(dir, 'other.pub.pem'), 'utf8')), false);
  });

  void test('an attestation signed by the right key but naming other report digests does not verify with the bundle', async () => {
    const { out, pub, attestation, dir } = await bundled();
    const statement = statementOf(envelopeOf(attestation));
    const conformance = statement.predicate.configuration.find((d) => d.name === 'conformance.json')!;
    conformance.digest = { sha256: sha256('another run') };
    writeFileSync(
      attestation,
      `${JSON.stringify(signStatement(statement, createPrivateKey(readFileSync(join(dir, 'private.pem')))))}\n`,
    );
    assert.equal((await verify([attestation, '--key', pub])).code, 0, 'alone, the envelope is validly signed');
    const r = await verify([out, '--key', pub]);
    assert.equal(r.code, 1);
    assert.match(r.err.join('\n'), /conformance\.json: the attestation's SHA-256 does not match the bundle's file/);
  });
});
