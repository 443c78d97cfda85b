// Scope rules and the password policy, as plain functions.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isPasswordExpired, passwordExpiresAt } from '../../src/domain/password-policy.ts';
import { narrowScope, parseScope } from '../../src/domain/scope.ts';

void describe('scope', () => {
  void test('absent or empty means no request', () => {
    assert.equal(parseScope(undefined), undefined);
    assert.equal(parseScope(''), undefined);
  });
  void test('space-separated, de-duplicated; malformed values are invalid_scope', () => {
    assert.deepEqual(parseScope('email profile email'), ['email', 'profile']);
    for (const bad of [' email', 'email ', 'a  b', 'a"b', 'a\\b', 'é'])
      assert.throws(() => parseScope(bad), { error: 'invalid_scope' } as object, bad);
  });
  void test('narrowing keeps the granted order; anything beyond is invalid_scope', () => {
    assert.deepEqual(narrowScope(['email', 'openid', 'profile'], ['profile', 'email']), ['email', 'profile']);
    assert.deepEqual(narrowScope(['a', 'b'], undefined), ['a', 'b']);
    assert.throws(() => narrowScope(['a'], ['a', 'b']), { error: 'invalid_scope' } as object);
    assert.throws(() => narrowScope(['a'], ['A']), { error: 'invalid_scope' } as object, 'case-sensitive');
  });
});

void describe('password policy (45 days)', () => {
  const changed = { passwordChangedAt: 1_000_000 };
  const day = 86_400_000;
  void test('valid for 45 days, expired at the boundary', () => {
    assert.equal(passwordExpiresAt(changed), 1_000_000 + 45 * day);
    assert.equal(isPasswordExpired(changed, 1_000_000 + 45 * day - 1), false);
    assert.equal(isPasswordExpired(changed, 1_000_000 + 45 * day), true);
  });
  void test('the maximum age is a parameter', () => {
    assert.equal(isPasswordExpired(changed, 1_000_000 + 2 * day, 1), true);
  });
});
