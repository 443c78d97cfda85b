import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CachingSecretHasher, ScryptSecretHasher, testScryptCost } from '../../src/crypto/scrypt-hasher.ts';
import type { SecretHasher } from '../../src/domain/ports.ts';

void describe('secret hashing', () => {
  const hasher = new ScryptSecretHasher(testScryptCost);

  void test('salted: two hashes of one secret differ; both verify; nothing of the secret is in them', async () => {
    const a = await hasher.hash('s3cret-value');
    const b = await hasher.hash('s3cret-value');
    assert.notEqual(a, b);
    assert.match(a, /^scrypt\$4\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    assert.equal(await hasher.verify('s3cret-value', a), true);
    assert.equal(await hasher.verify('s3cret-value', b), true);
    assert.equal(a.includes('s3cret'), false);
  });

  void test('wrong, case-changed, padded secrets and malformed hashes fail', async () => {
    const h = await hasher.hash('s3cret-value');
    for (const wrong of ['S3cret-value', 's3cret-value ', '', 's3cret-valu'])
      assert.equal(await hasher.verify(wrong, h), false, wrong);
    for (const bad of ['', 'plain', 'scrypt$4$8$1$x', 'scrypt$99$8$1$AAAA$AAAA', h.slice(0, -2)])
      assert.equal(await hasher.verify('s3cret-value', bad), false, bad);
  });

  void test('hashes made with another cost still verify (the cost is in the hash)', async () => {
    const cheap = await new ScryptSecretHasher({ log2N: 2, r: 1, p: 1 }).hash('x-secret');
    assert.equal(await hasher.verify('x-secret', cheap), true);
  });

  void test('the cache remembers successes only, and is bounded', async () => {
    let calls = 0;
    const counting: SecretHasher = {
      hash: (s) => hasher.hash(s),
      verify: async (s, h) => {
        calls += 1;
        return hasher.verify(s, h);
      },
    };
    const cached = new CachingSecretHasher(counting, 2);
    const h = await hasher.hash('good-secret');
    assert.equal(await cached.verify('good-secret', h), true);
    assert.equal(await cached.verify('good-secret', h), true);
    assert.equal(calls, 1);
    assert.equal(await cached.verify('bad-secret', h), false);
    assert.equal(await cached.verify('bad-secret', h), false);
    assert.equal(calls, 3, 'failures are not cached');
    const h2 = await hasher.hash('second');
    const h3 = await hasher.hash('third');
    await cached.verify('second', h2);
    await cached.verify('third', h3);
    calls = 0;
    await cached.verify('good-secret', h);
    assert.equal(calls, 1, 'the oldest entry was evicted');
  });

  void test('concurrent verifications of one secret share one computation; a failure is not remembered after it', async () => {
    let calls = 0;
    const counting: SecretHasher = {
      hash: (s) => hasher.hash(s),
      verify: async (s, h) => {
        calls += 1;
        return hasher.verify(s, h);
      },
    };
    const cached = new CachingSecretHasher(counting);
    const h = await hasher.hash('good-secret');
    assert.deepEqual(await Promise.all([1, 2, 3, 4].map(() => cached.verify('good-secret', h))), [
      true,
      true,
      true,
      true,
    ]);
    assert.equal(calls, 1, 'one computation for four concurrent requests');
    assert.deepEqual(
      await Promise.all([cached.verify('bad-secret', h), cached.verify('bad-secret', h), cached.verify('other', h)]),
      [false, false, false],
    );
    assert.equal(calls, 3, 'the two identical wrong secrets shared one computation, the other secret had its own');
    assert.equal(await cached.verify('bad-secret', h), false);
    assert.equal(calls, 4, 'a failure is computed again later');
  });
});
