import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SignJWT, decodeProtectedHeader } from 'jose';
import { generateKeyPairSync } from 'node:crypto';
import { ManualClock } from '../../src/clock/test-clock.ts';
import { JoseAccessTokenSigner, JoseAccessTokenVerifier, SigningKey } from '../../src/crypto/access-tokens.ts';
import { nodeRandom } from '../../src/crypto/random.ts';
import type { AccessTokenClaims } from '../../src/domain/ports.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';

const identity = { issuer: 'urn:test:issuer', audience: 'urn:test:aud' };
const claims: AccessTokenClaims = {
  sub: 'us-cc-client',
  client_id: 'us-cc-client',
  region: 'us',
  env: 'sandbox',
  grant: 'client_credentials',
};
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0, 500);

async function setup() {
  const store = new SqliteStore(':memory:');
  const clock = new ManualClock(T0);
  const key = await SigningKey.loadOrCreate(store, T0);
  return {
    store,
    clock,
    key,
    signer: new JoseAccessTokenSigner(key, identity, nodeRandom),
    verifier: new JoseAccessTokenVerifier(key, identity, clock, 'sandbox'),
  };
}

void describe('access tokens (EdDSA JWT)', () => {
  void test('signed with EdDSA, typ at+jwt, kid of the JWKS key; verifies with all claims', async () => {
    const { store, signer, verifier, key } = await setup();
    const signed = await signer.sign(claims, T0, 3600);
    const header = decodeProtectedHeader(signed.token);
    assert.deepEqual(header, { alg: 'EdDSA', typ: 'at+jwt', kid: key.kid });
    assert.deepEqual(
      key.jwks().keys.map((k) => [k.kty, k.crv, k.alg, k.use, k.kid]),
      [['OKP', 'Ed25519', 'EdDSA', 'sig', key.kid]],
    );
    assert.equal('d' in (key.jwks().keys[0] ?? {}), false, 'no private part in the JWKS');
    const result = await verifier.verify(signed.token);
    assert.ok(result.ok, 'verifies');
    assert.equal(result.token.client_id, 'us-cc-client');
    assert.equal(result.token.jti, signed.jti);
    assert.equal(result.token.exp - result.token.iat, 3600);
    assert.equal(signed.expiresAt, Math.floor(T0 / 1000) * 1000 + 3_600_000);
    await store.close();
  });

  void test('expiry follows the injected clock: valid 1 s before exp, expired at exp', async () => {
    const { store, signer, verifier, clock } = await setup();
    const signed = await signer.sign(claims, T0, 3600);
    clock.set(signed.expiresAt - 1);
    assert.equal((await verifier.verify(signed.token)).ok, true);
    clock.set(signed.expiresAt);
    assert.deepEqual(await verifier.verify(signed.token), { ok: false, reason: 'expired' });
    await store.close();
  });

  void test('failure reasons', async () => {
    const { store, signer, verifier, clock, key } = await setup();
    const signed = await signer.sign(claims, T0, 3600);
    const [h, p, sig] = signed.token.split('.') as [string, string, string];
    const reason = async (token: string) => {
      const r = await verifier.verify(token);
      return r.ok ? 'ok' : r.reason;
    };
    for (const bad of [
      '',
      'abc',
      'a.b',
      'a.b.c.d',
      `${h}.${p}`,
      `${h}.${p}.${sig}=`,
      'e30.e30.',
      `${h}.!!!.${sig}`,
      'eyJhbGciOiJ.eyJz.c2ln',
    ]) {
      assert.equal(await reason(bad), 'malformed', bad);
    }
    const flipped = `${h}.${p}.${sig.startsWith('A') ? 'B' : 'A'}${sig.slice(1)}`;
    assert.equal(await reason(flipped), 'invalid-signature');
    const other = generateKeyPairSync('ed25519').privateKey;
    const foreign = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt' })
      .setIssuer(identity.issuer)
      .setAudience(identity.audience)
      .setIssuedAt()
      .setExpirationTime('1h')
      .setJti('x')
      .sign(other);
    assert.equal(await reason(foreign), 'invalid-signature');
    const wrongAud = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt' })
      .setIssuer(identity.issuer)
      .setAudience('urn:other')
      .setIssuedAt(Math.floor(T0 / 1000))
      .setExpirationTime(Math.floor(T0 / 1000) + 60)
      .setJti('x')
      .sign(key.privateKey);
    assert.equal(await reason(wrongAud), 'wrong-audience');
    const prod = await signer.sign({ ...claims, env: 'production' }, T0, 3600);
    assert.equal(await reason(prod.token), 'wrong-environment');
    const future = await signer.sign(claims, T0 + 120_000, 3600);
    assert.equal(await reason(future.token), 'not-yet-valid');
    clock.set(T0 + 120_000);
    assert.equal(await reason(future.token), 'ok');
    await store.close();
  });

  void test('the key is stored: a second load (a restart) verifies earlier tokens', async () => {
    const { store, signer, clock } = await setup();
    const signed = await signer.sign(claims, T0, 3600);
    const again = await SigningKey.loadOrCreate(store, T0 + 1000);
    const verifier = new JoseAccessTokenVerifier(again, identity, clock, 'sandbox');
    assert.equal((await verifier.verify(signed.token)).ok, true);
    await store.close();
  });
});
