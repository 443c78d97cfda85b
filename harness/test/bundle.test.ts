// The signed results bundle: keygen, bundle, verify (offline), tampering detected, the profile
// hash excludes secrets — and the proof that no secret or token enters a bundle: a run against the
// reference server with known secrets, bundled, and the bundle searched.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { bundleMain, keygenMain, verifyMain } from '../commands/bundle.command.ts';
import { runMain } from '../commands/run.command.ts';
import { profileSha256, type Bundle } from '../bundle/bundle.ts';
import { loadProfile } from '../../core/profile/load-profile.ts';
import { transcriptFileName } from '../reporter/conformance.reporter.ts';
import type { ConformanceReport } from '../reporter/report.schema.ts';
import { temporaryDirectory } from './support/temporary-directory.ts';

const root = join(import.meta.dirname, '..', '..');
const fixtures = join(import.meta.dirname, 'fixtures', 'gate');

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}

async function keys(dir: string) {
  const c = capture();
  const code = await keygenMain(['--private', join(dir, 'private.pem'), '--public', join(dir, 'public.pem')], c.io);
  assert.equal(code, 0, c.err.join('\n'));
  return { priv: join(dir, 'private.pem'), pub: join(dir, 'public.pem') };
}

async function verify(file: string, pub: string, extra: string[] = []) {
  const c = capture();
  return { code: await verifyMain([file, '--key', pub, ...extra], c.io), ...c };
}

void describe('bundle and verify', () => {
  void test('bundle → verify passes; any altered file, manifest or key fails verification', async () => {
    const dir = temporaryDirectory('tc-bundle-');
    const reports = join(dir, 'reports');
    mkdirSync(join(reports, 'transcripts'), { recursive: true });
    copyFileSync(join(fixtures, 'report-planted-fail.json'), join(reports, 'conformance.json'));
    writeFileSync(join(reports, 'traceability.html'), '<html>matrix</html>');
    writeFileSync(
      join(reports, 'transcripts', 'conformance--a.txt'),
      '# check: a\nPOST /token\nclient_secret=[REDACTED]\n',
    );
    writeFileSync(join(reports, 'junit.xml'), '<testsuites/>');
    const { priv, pub } = await keys(dir);
    const out = join(dir, 'bundle.json');
    const c = capture();
    assert.equal(
      await bundleMain(
        ['--reports', reports, '--key', priv, '--out', out, '--profile', join(root, 'profiles', 'reference.json')],
        c.io,
        {},
      ),
      0,
      c.err.join('\n'),
    );
    assert.match(
      c.out.at(-1)!,
      /^BUNDLE written: .* 3 files \(1 transcripts\), suite 0\.1\.0, target staging-us, verdict FAIL/,
    );
    const bundle = JSON.parse(readFileSync(out, 'utf8')) as Bundle;
    assert.deepEqual(
      bundle.manifest.files.map((f) => f.path),
      ['conformance.json', 'traceability.html', 'transcripts/conformance--a.txt'],
      'junit.xml and others are not bundled',
    );
    assert.equal(bundle.manifest.suiteVersion, '0.1.0');
    assert.equal(bundle.manifest.profileSha256, profileSha256(join(root, 'profiles', 'reference.json')));

    const ok = await verify(out, pub, ['--extract', join(dir, 'x')]);
    assert.equal(ok.code, 0, ok.err.join('\n'));
    assert.match(
      ok.out[0]!,
      /^VERIFIED: .* signature valid .* 3 files match their SHA-256; suite 0\.1\.0, target staging-us, verdict FAIL/,
    );
    assert.equal(readFileSync(join(dir, 'x', 'traceability.html'), 'utf8'), '<html>matrix</html>');

    const tamper = async (edit: (b: Bundle) => void) => {
      const b = JSON.parse(readFileSync(out, 'utf8')) as Bundle;
      edit(b);
      const f = join(dir, `tampered-${Math.random()}.json`);
      writeFileSync(f, JSON.stringify(b));
      return verify(f, pub);
    };
    const file = await tamper((b) => {
      b.files['conformance.json'] = b.files['conformance.json']!.replace('"FAIL"', '"PASS"');
    });
    assert.equal(file.code, 1);
    assert.match(file.err.join('\n'), /^NOT VERIFIED[\s\S]*conformance\.json: SHA-256 does not match the manifest/);
    const manifest = await tamper((b) => {
      b.manifest.verdict = 'PASS';
    });
    assert.equal(manifest.code, 1);
    assert.match(manifest.err.join('\n'), /signature invalid/);
    const added = await tamper((b) => {
      b.files['extra.txt'] = 'x';
    });
    assert.match(added.err.join('\n'), /extra\.txt: in the bundle but not in the signed manifest/);
    const removed = await tamper((b) => {
      delete b.files['traceability.html'];
    });
    assert.match(removed.err.join('\n'), /traceability\.html: listed in the manifest but missing/);

    const other = await keys(temporaryDirectory('tc-keys-'));
    const wrongKey = await verify(out, other.pub);
    assert.equal(wrongKey.code, 1);
    assert.match(wrongKey.err.join('\n'), /signed by key [0-9a-f]{16}…, this public key is [0-9a-f]{16}…/);
    assert.equal(
      (await verify(join(dir, 'nope.json'), pub)).code,
      2,
      'no bundle to verify is bad input (exit 2), as verify --help says',
    );
    assert.equal((await verify(out, priv.replace('private', 'missing'))).code, 2);
  });

  void test('keygen refuses to overwrite; bundle needs a conformance.json and an Ed25519 key', async () => {
    const dir = temporaryDirectory('tc-keygen-');
    const { priv } = await keys(dir);
    assert.equal(await keygenMain(['--private', priv, '--public', join(dir, 'p2.pem')], capture().io), 2);
    const c = capture();
    assert.equal(
      await bundleMain(['--reports', join(dir, 'empty'), '--key', priv, '--out', join(dir, 'b.json')], c.io, {}),
      2,
    );
    assert.match(c.err.join('\n'), /no conformance\.json/);
    assert.equal(await bundleMain(['--key', priv], capture().io, {}), 2);
  });

  void test('the profile hash excludes literal secret values but follows every other field', () => {
    const dir = temporaryDirectory('tc-profile-hash-');
    const profile = JSON.parse(readFileSync(join(root, 'profiles', 'reference.json'), 'utf8')) as {
      credentials: { clients: Record<string, { clientSecret: Record<string, string> }> };
      name: string;
    };
    const write = (name: string, p: unknown) => {
      writeFileSync(join(dir, name), JSON.stringify(p));
      return profileSha256(join(dir, name));
    };
    const base = write('a.json', profile);
    const client = Object.values(profile.credentials.clients)[0]!;
    const literal = 'value' in client.clientSecret;
    if (literal) client.clientSecret.value = 'a-completely-different-secret';
    assert.equal(write('b.json', profile), base, 'a different secret value gives the same hash');
    profile.name = 'renamed';
    assert.notEqual(write('c.json', profile), base);
  });
});

void describe('no secret or token enters a bundle (a run against the reference server)', () => {
  void test(
    'run with known secrets, bundle, search the bundle and every file it holds',
    { timeout: 180_000 },
    async () => {
      const dir = temporaryDirectory('tc-bundle-run-');
      const reports = join(dir, 'reports');
      const seen = join(dir, 'seen-tokens.txt');
      const lines: string[] = [];
      const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
      // Checks that send every kind of secret: client secrets, passwords, refresh and access tokens.
      const code = await runMain(
        [
          '--target',
          join(root, 'profiles', 'reference.json'),
          '--start-reference',
          '--reports',
          reports,
          '--keep-seen-tokens',
          seen,
          '--grep',
          '@GRANT-CC-00[12]|@GRANT-PW-00[1-3]|@GRANT-RT-00[1-3]|@BEARER-00[1-3]',
        ],
        io,
      );
      assert.ok(code === 0 || code === 1, `the run judged (exit ${code}):\n${lines.slice(-20).join('\n')}`);
      const { priv, pub } = await keys(dir);
      const out = join(dir, 'bundle.json');
      const c = capture();
      assert.equal(
        await bundleMain(
          ['--reports', reports, '--key', priv, '--out', out, '--profile', join(root, 'profiles', 'reference.json')],
          c.io,
          {},
        ),
        0,
        c.err.join('\n'),
      );
      assert.equal((await verify(out, pub)).code, 0);

      const bundle = JSON.parse(readFileSync(out, 'utf8')) as Bundle;
      assert.ok(bundle.manifest.transcripts >= 4, `transcripts bundled (${bundle.manifest.transcripts})`);
      const secrets = loadProfile(join(root, 'profiles', 'reference.json')).secrets.map((s) => s.value);
      assert.ok(secrets.length >= 10);
      const encoded = secrets
        .flatMap((s) => [
          new URLSearchParams({ v: s }).toString().slice(2),
          encodeURIComponent(s),
          Buffer.from(s).toString('base64'),
        ])
        .filter((s) => !secrets.includes(s));
      assert.ok(existsSync(seen), 'the run kept the tokens it saw');
      const tokens = readFileSync(seen, 'utf8')
        .split('\n')
        .map((t) => t.trim())
        .filter((t) => t.length >= 8);
      assert.ok(tokens.length > 0, 'tokens were issued during the run');
      const transcripts = Object.entries(bundle.files)
        .filter(([p]) => p.startsWith('transcripts/'))
        .map(([, t]) => t)
        .join('\n');
      assert.match(transcripts, /client_secret=\[REDACTED\]/, 'the transcripts show where secrets were');
      assert.match(transcripts, /"access_token":"\[REDACTED\]"/);
      // The bundle file as written, and every file it holds.
      const haystacks = [readFileSync(out, 'utf8'), ...Object.values(bundle.files)];
      for (const needle of [...secrets, ...encoded, ...tokens]) {
        for (const h of haystacks) assert.ok(!h.includes(needle), 'a secret or token entered the bundle');
      }
      const jwtShape = /eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]+/;
      for (const h of haystacks) assert.ok(!jwtShape.test(h), 'a JWT entered the bundle');
      assert.ok(!/Basic [A-Za-z0-9+/]{12,}/.test(haystacks.join('\n')), 'an HTTP Basic credential entered the bundle');
    },
  );
});

void describe('bundle: the settlement transcripts (issue 15)', () => {
  void test('each settlement is listed in the signed manifest with its requirements and the transcript of the check that settled it', async () => {
    const dir = temporaryDirectory('tc-bundle-settled-');
    const reports = join(dir, 'reports');
    mkdirSync(join(reports, 'transcripts'), { recursive: true });
    const report = JSON.parse(readFileSync(join(fixtures, 'report-pass.json'), 'utf8')) as ConformanceReport;
    const settled = {
      obligation: 'ob-1',
      recordedRun: 'run-1',
      recordedAt: '2026-11-24T01:00:00.000Z',
      settledAt: '2026-11-24T02:01:00.000Z',
      outcome: 'PASS' as const,
      reason: 'refused with 401',
    };
    const target = report.requirements[0]!;
    const check = {
      ...target.checks[0]!,
      title: 'specs/obligations/settle.spec.ts › settles ob-1',
      project: 'conformance',
      settled: [settled],
    };
    const voided = {
      ...target.checks[0]!,
      title: 'specs/obligations/settle.spec.ts › settles ob-2',
      project: 'conformance',
      verdict: 'SKIP' as const,
      settled: [{ ...settled, obligation: 'ob-2', outcome: 'VOID' as const, reason: 'revoked' }],
    };
    report.requirements[0] = {
      ...target,
      settled: [settled, voided.settled[0]!],
      checks: [...target.checks, check, voided],
    };
    writeFileSync(join(reports, 'conformance.json'), JSON.stringify(report));
    const transcript = `transcripts/${transcriptFileName('conformance', check.title)}`;
    writeFileSync(
      join(reports, transcript),
      '# check: settle\nGET /api/v1/me\nAuthorization: Bearer [REDACTED]\n\nHTTP 401\n',
    );
    const { priv, pub } = await keys(dir);
    const out = join(dir, 'bundle.json');
    const c = capture();
    assert.equal(await bundleMain(['--reports', reports, '--key', priv, '--out', out], c.io, {}), 0, c.err.join('\n'));
    assert.match(c.out.at(-1)!, /, 2 settlements \(1 with transcripts\), signed by key/);
    const bundle = JSON.parse(readFileSync(out, 'utf8')) as Bundle;
    assert.deepEqual(
      bundle.manifest.settlements?.map((st) => [
        st.obligation,
        st.outcome,
        st.requirements,
        st.transcript,
        st.recordedAt,
        st.settledAt,
      ]),
      [
        ['ob-1', 'PASS', [target.id], transcript, '2026-11-24T01:00:00.000Z', '2026-11-24T02:01:00.000Z'],
        ['ob-2', 'VOID', [target.id], undefined, '2026-11-24T01:00:00.000Z', '2026-11-24T02:01:00.000Z'],
      ],
    );
    assert.match(bundle.files[transcript]!, /HTTP 401/, 'the transcript that settled it is carried');
    assert.equal((await verify(out, pub)).code, 0);
    // A settlement pointing at a transcript the manifest does not list is refused (a hand-edited bundle).
    const edited = JSON.parse(readFileSync(out, 'utf8')) as Bundle;
    edited.manifest.settlements![1]!.transcript = 'transcripts/missing.txt';
    writeFileSync(out, JSON.stringify(edited));
    const bad = await verify(out, pub);
    assert.equal(bad.code, 1);
    assert.match(
      bad.err.join('\n'),
      /settlement of obligation ob-2: its transcript transcripts\/missing\.txt is not in the manifest/,
    );
  });
});
