// What only the SQLite store does: its file format (migrations, reopening). The behaviour every
// store shares is in store-contract.test.ts, which runs on SQLite too.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ServerStore } from '../../src/store/server-store.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';

void describe('SqliteStore', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tc-store-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  void test('migrates a new file to the latest schema; reopening keeps everything', async () => {
    const file = join(dir, 'persist.sqlite');
    const a = new SqliteStore(file);
    assert.equal(a.schemaVersion, 4);
    await a.saveClient({
      clientId: 'c1',
      secretHash: 'x',
      name: 'n',
      region: 'us',
      environment: 'sandbox',
      grants: ['password'],
      registration: { tenantId: 't', role: 'r' },
      active: true,
      createdAt: 5,
      managedByTenant: null,
      secretHint: null,
    });
    await a.putMetaIfAbsent('k', 'v');
    await a.close();
    const b = new SqliteStore(file);
    assert.equal(b.schemaVersion, 4);
    assert.equal((await b.findClient('c1'))?.registration?.role, 'r');
    assert.equal(await b.getMeta('k'), 'v');
    await b.close();
  });

  void test("reads of one decision see what another connection committed before the decision, and this store's own writes during it", async () => {
    const file = join(dir, 'decision-reads.sqlite');
    const [a, b] = [new SqliteStore(file), new SqliteStore(file)];
    try {
      const client = {
        clientId: 'c1',
        secretHash: 'x',
        name: 'n',
        region: 'us',
        environment: 'sandbox',
        grants: ['client_credentials'],
        registration: { tenantId: 't', role: 'people-reader' },
        active: true,
        createdAt: 5,
        managedByTenant: null,
        secretHint: null,
      } as const;
      const person = {
        identifier: 'E-1',
        tenantId: 't',
        givenName: 'A',
        familyName: 'Bee',
        email: 'a@b.example',
        employmentStatus: 'active',
        hireDate: '2020-01-01',
      } as const;
      await a.saveClient({ ...client, grants: [...client.grants] });
      await a.savePerson(person);
      const first = a.readsOfOneDecision();
      assert.equal((await first.findClient('c1'))?.active, true);
      assert.equal((await first.findPerson('E-1'))?.email, 'a@b.example');
      await b.saveClient({ ...client, grants: [...client.grants], active: false });
      await b.savePerson({ ...person, email: 'new@b.example' });
      const second = a.readsOfOneDecision();
      assert.equal(
        (await second.findClient('c1'))?.active,
        false,
        "another connection's deactivation before the decision",
      );
      assert.equal((await second.findPerson('E-1'))?.email, 'new@b.example');
      await a.saveClient({ ...client, grants: [...client.grants], registration: null });
      assert.equal((await second.findClient('c1'))?.registration, null, "this store's own write during the decision");
      const shared = await a.findClient('c1');
      assert.throws(
        () => {
          (shared as { active: boolean }).active = true;
        },
        TypeError,
        'a record every caller shares is frozen',
      );
    } finally {
      await a.close();
      await b.close();
    }
  });

  void test("failed attempts as last read: another connection's failure or lock is seen by the next decision, this store's own at once", async () => {
    const file = join(dir, 'failed-attempts.sqlite');
    const [a, b] = [new SqliteStore(file), new SqliteStore(file)];
    try {
      const principal = { kind: 'client', name: 'c1', source: '127.0.0.1' } as const;
      assert.equal(await a.readsOfOneDecision().findFailedAttempts(principal), undefined);
      assert.equal(await a.findFailedAttempts(principal), undefined, 'kept as none');
      await b.recordFailedAttempt(principal, 1000, 0);
      await b.lockPrincipal(principal, 9000);
      const seen = await a.readsOfOneDecision().findFailedAttempts(principal);
      assert.deepEqual(
        seen,
        { failures: 0, lastFailureAt: 1000, lockedUntil: 9000 },
        "another connection's lock before the decision",
      );
      await a.clearFailedAttempts(principal);
      assert.equal(await a.findFailedAttempts(principal), undefined, "this store's own write");
      const other = { ...principal, source: '127.0.0.2' };
      assert.equal((await a.recordFailedAttempt(other, 2000, 0)).failures, 1);
      assert.equal((await a.readsOfOneDecision().findFailedAttempts(other))?.failures, 1);
      assert.equal(await a.findFailedAttempts(principal), undefined, 'another source is another principal');
    } finally {
      await a.close();
      await b.close();
    }
  });

  void test('has no shared test clock: processes on one file keep their own, as before', async () => {
    const s = new SqliteStore(':memory:');
    assert.equal((s as ServerStore).sharedClock, undefined);
    await s.close();
  });
});
