// The broken target of the README's worked example (examples/broken-target/serve-broken-target.ts):
// its profile sends every call through the fault-injecting proxy, trusting the proxy's CA.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { brokenTargetProfile } from '../../examples/broken-target/serve-broken-target.ts';
import { repoRoot } from '../../core/catalogue/catalogue.ts';
import { loadProfile, validateProfile } from '../../core/profile/load-profile.ts';
import { applyListening } from '../reference/start-reference.ts';
import { faults } from '../../self-validation/faults/index.ts';

void describe('examples/broken-target: the profile of the broken target', () => {
  void test('every address and control URL of the reference server is replaced by the proxy; its CA is trusted; the profile is valid', () => {
    const upstream = 'https://127.0.0.1:41234';
    const base = applyListening(loadProfile(join(repoRoot, 'profiles', 'reference.json')).profile, {
      event: 'listening',
      authUrlUs: upstream,
      authUrlEu: upstream,
      baseUrl: upstream,
      testControls: true,
    });
    const p = brokenTargetProfile(base, upstream, 'https://127.0.0.1:50000', '/tmp/proxy-ca.pem', 'get-answered-404');
    assert.equal(p.name, 'reference-with-fault-get-answered-404');
    for (const url of [
      p.authUrlUs,
      p.authUrlEu,
      p.baseUrl,
      p.capabilities.clockControlUrl,
      p.capabilities.faultControlUrl,
    ])
      assert.match(url ?? '', /^https:\/\/127\.0\.0\.1:50000(\/|$)/);
    assert.equal(p.capabilities.clockControlUrl, 'https://127.0.0.1:50000/__test/clock');
    assert.equal(p.caFile, '/tmp/proxy-ca.pem');
    assert.equal(p.plainHttpUrl, undefined, 'no plain-HTTP address: the proxy listens on HTTPS only');
    assert.equal(base.authUrlUs, upstream, 'the base profile is not changed');
    assert.doesNotThrow(() => validateProfile({ ...p, caFile: undefined }, 'broken.json'));
  });

  void test('the fault of the worked example exists and breaks TOKEN-REQ-001', () => {
    assert.deepEqual(faults.find((f) => f.id === 'get-answered-404')?.breaks, ['TOKEN-REQ-001']);
  });
});
