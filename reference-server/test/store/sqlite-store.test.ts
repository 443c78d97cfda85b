import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { RefreshTokenRecord } from '../../src/domain/model.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';

const record = (over: Partial<RefreshTokenRecord> = {}): RefreshTokenRecord => ({
  tokenHash: 'h1', familyId: 'f1', clientId: 'c1', tenant: 'acme', userName: 'alice', scope: 'email',
  issuedAt: 1000, expiresAt: 10_000, usedAt: null, revokedAt: null, ...over,
});

void describe('SqliteStore', () => {
  let dir: string;
  before(() => { dir = mkdtempSync(join(tmpdir(), 'tc-store-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  void test('migrates a new file to the latest schema; reopening keeps everything', () => {
    const file = join(dir, 'persist.sqlite');
    const a = new SqliteStore(file);
    assert.equal(a.schemaVersion, 4);
    a.saveClient({ clientId: 'c1', secretHash: 'x', name: 'n', region: 'us', environment: 'sandbox', grants: ['password'], registration: { tenantId: 't', role: 'r' }, active: true, createdAt: 5, managedByTenant: null, secretHint: null });
    a.saveUser({ tenant: 'acme', userName: 'alice', passwordHash: 'p', passwordChangedAt: 7, role: 'people-reader', active: true, tenantAdmin: false });
    a.saveRefreshToken(record());
    a.savePerson({ identifier: 'E-1', tenantId: 't', givenName: 'A', familyName: 'B', email: 'a@b.example', employmentStatus: 'active', hireDate: '2020-01-01' });
    a.putMetaIfAbsent('k', 'v');
    a.close();
    const b = new SqliteStore(file);
    assert.equal(b.findClient('c1')?.registration?.role, 'r');
    assert.deepEqual(b.findClient('c1')?.grants, ['password']);
    assert.equal(b.findUser('acme', 'alice')?.passwordChangedAt, 7);
    assert.deepEqual(b.findRefreshToken('h1'), record());
    assert.equal(b.findPerson('E-1')?.familyName, 'B');
    assert.deepEqual(b.searchPeople('b', 10).map((p) => p.identifier), ['E-1']);
    assert.equal(b.getMeta('k'), 'v');
    b.close();
  });

  void test('consume: once; then already-used; wrong client and expiry leave the token as it is', () => {
    const s = new SqliteStore(':memory:');
    s.saveRefreshToken(record());
    assert.equal(s.consumeRefreshToken('h1', 'other', 2000).outcome, 'wrong-client');
    assert.equal(s.consumeRefreshToken('h1', 'c1', 10_000).outcome, 'expired');
    assert.equal(s.consumeRefreshToken('nope', 'c1', 2000).outcome, 'unknown');
    const first = s.consumeRefreshToken('h1', 'c1', 2000);
    assert.equal(first.outcome, 'consumed');
    assert.equal(first.outcome === 'consumed' && first.record.usedAt, 2000);
    assert.equal(s.consumeRefreshToken('h1', 'c1', 2001).outcome, 'already-used');
    s.close();
  });

  void test('family revocation covers existing tokens and tokens saved later in the family', () => {
    const s = new SqliteStore(':memory:');
    s.saveRefreshToken(record({ tokenHash: 'a' }));
    s.saveRefreshToken(record({ tokenHash: 'b', usedAt: 1500 }));
    assert.equal(s.revokeFamily('f1', 3000), 2);
    assert.equal(s.isFamilyRevoked('f1'), true);
    s.saveRefreshToken(record({ tokenHash: 'c' }));
    assert.equal(s.consumeRefreshToken('a', 'c1', 4000).outcome, 'revoked');
    assert.equal(s.consumeRefreshToken('c', 'c1', 4000).outcome, 'revoked');
    s.close();
  });

  void test('revokeUserTokens revokes the outstanding tokens of one user only', () => {
    const s = new SqliteStore(':memory:');
    s.saveRefreshToken(record({ tokenHash: 'a' }));
    s.saveRefreshToken(record({ tokenHash: 'b', familyId: 'f2' }));
    s.saveRefreshToken(record({ tokenHash: 'c', familyId: 'f3', userName: 'bob' }));
    assert.equal(s.revokeUserTokens('acme', 'alice', 2000), 2);
    assert.equal(s.consumeRefreshToken('c', 'c1', 2000).outcome, 'consumed');
    s.close();
  });

  void test('revokeUserTokens marks every family of the user revoked (its access tokens are refused), not those of others', () => {
    const s = new SqliteStore(':memory:');
    s.saveRefreshToken(record({ tokenHash: 'a' }));
    s.saveRefreshToken(record({ tokenHash: 'b', familyId: 'f2', usedAt: 1500 }));
    s.saveRefreshToken(record({ tokenHash: 'c', familyId: 'f3', userName: 'bob' }));
    s.revokeUserTokens('acme', 'alice', 2000);
    assert.equal(s.isFamilyRevoked('f1'), true);
    assert.equal(s.isFamilyRevoked('f2'), true, 'also a family whose latest token is used');
    assert.equal(s.isFamilyRevoked('f3'), false);
    s.close();
  });

  void test('failed attempts: counted per principal, restarted after a quiet period, locked, cleared, purged', () => {
    const s = new SqliteStore(':memory:');
    const alice = { kind: 'user', name: 'acme\\alice' } as const;
    const sameNameClient = { kind: 'client', name: 'acme\\alice' } as const;
    assert.equal(s.findFailedAttempts(alice), undefined);
    assert.deepEqual(s.recordFailedAttempt(alice, 1000, 0), { failures: 1, lastFailureAt: 1000, lockedUntil: null });
    assert.equal(s.recordFailedAttempt(alice, 2000, 0).failures, 2);
    assert.equal(s.recordFailedAttempt(sameNameClient, 2000, 0).failures, 1, 'kinds are counted apart');
    assert.equal(s.recordFailedAttempt(alice, 9000, 2001).failures, 1, 'last failure before restartBefore: a new run');
    s.lockPrincipal(alice, 60_000);
    assert.deepEqual(s.findFailedAttempts(alice), { failures: 0, lastFailureAt: 9000, lockedUntil: 60_000 });
    assert.equal(s.purgeFailedAttempts(50_000, 10), 1, 'the client state (last failure 2000) goes; the lock is kept');
    assert.equal(s.purgeFailedAttempts(70_000, 10), 1, 'the ended lock goes');
    s.recordFailedAttempt(alice, 80_000, 0);
    s.clearFailedAttempts(alice);
    assert.equal(s.findFailedAttempts(alice), undefined);
    s.close();
  });

  void test('failed attempts are counted atomically by two connections on one file', () => {
    const file = join(dir, 'attempts.sqlite');
    const a = new SqliteStore(file);
    const b = new SqliteStore(file);
    const p = { kind: 'user', name: 'acme\\dave' } as const;
    for (let i = 0; i < 5; i += 1) {
      a.recordFailedAttempt(p, 1000 + i, 0);
      b.recordFailedAttempt(p, 1000 + i, 0);
    }
    assert.equal(a.findFailedAttempts(p)?.failures, 10);
    a.close();
    b.close();
  });

  void test('purge deletes expired tokens in batches of at most `limit`', () => {
    const s = new SqliteStore(':memory:');
    for (let i = 0; i < 25; i += 1) s.saveRefreshToken(record({ tokenHash: `e${i}`, familyId: `f${i}`, expiresAt: 100 }));
    s.saveRefreshToken(record({ tokenHash: 'live', expiresAt: 1_000_000 }));
    assert.equal(s.purgeExpired(500, 10), 10);
    assert.equal(s.purgeExpired(500, 10), 10);
    assert.equal(s.purgeExpired(500, 10), 5);
    assert.equal(s.purgeExpired(500, 10), 0);
    assert.ok(s.findRefreshToken('live'), 'unexpired token kept');
    s.close();
  });

  void test('two connections on one file: exactly one consume wins', () => {
    const file = join(dir, 'shared.sqlite');
    const a = new SqliteStore(file);
    const b = new SqliteStore(file);
    a.saveRefreshToken(record());
    const outcomes = [a.consumeRefreshToken('h1', 'c1', 2000).outcome, b.consumeRefreshToken('h1', 'c1', 2000).outcome];
    assert.deepEqual(outcomes, ['consumed', 'already-used']);
    a.close();
    b.close();
  });

  void test('putMetaIfAbsent keeps the first value', () => {
    const s = new SqliteStore(':memory:');
    assert.equal(s.putMetaIfAbsent('k', 'first'), 'first');
    assert.equal(s.putMetaIfAbsent('k', 'second'), 'first');
    s.close();
  });

  void test('seedIfNew seeds once and never overwrites', () => {
    const s = new SqliteStore(':memory:');
    const user = { tenant: 'acme', userName: 'alice', passwordHash: 'p1', passwordChangedAt: 1, role: 'r', active: true, tenantAdmin: false };
    assert.equal(s.seedIfNew({ clients: [], users: [user], people: [] }, 'now'), true);
    s.saveUser({ ...user, passwordHash: 'changed' });
    assert.equal(s.seedIfNew({ clients: [], users: [user], people: [] }, 'later'), false);
    assert.equal(s.findUser('acme', 'alice')?.passwordHash, 'changed');
    s.close();
  });
});
