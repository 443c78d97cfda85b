// nodeRandom.token hands out bytes of a pooled CSPRNG draw: every token has the asked length, no
// bytes are handed out twice (no repeated token across pool refills), and large requests bypass
// the pool.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { nodeRandom } from '../../src/crypto/random.ts';

void describe('nodeRandom.token', () => {
  void test('tokens of every size are distinct across many pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i += 1) {
      const bytes = [16, 32, 1, 7][i % 4]!;
      const token = nodeRandom.token(bytes);
      assert.equal(Buffer.from(token, 'base64url').length, bytes);
      if (bytes >= 16) {
        assert.ok(!seen.has(token), `token ${i} repeated`);
        seen.add(token);
      }
    }
  });

  void test('consecutive 16-byte tokens share no bytes (no slice handed out twice)', () => {
    const a = Buffer.from(nodeRandom.token(16), 'base64url');
    const b = Buffer.from(nodeRandom.token(16), 'base64url');
    assert.notDeepEqual(a, b);
  });

  void test('a request larger than the pool share is drawn on its own', () => {
    assert.equal(Buffer.from(nodeRandom.token(5000), 'base64url').length, 5000);
  });
});
