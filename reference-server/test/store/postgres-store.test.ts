// What only the PostgreSQL store does: migrations that replicas run at once, the shared test clock,
// readiness when the database goes away. The behaviour every store shares is in store-contract.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TestClock } from '../../src/clock/test-clock.ts';
import { sharedCertificate } from '../../src/crypto/shared-certificate.ts';
import { PostgresStore } from '../../src/store/postgres-store.ts';
import { startTestPostgres, type TestPostgres } from './support/embedded-postgres.ts';

void describe('PostgresStore', () => {
  let pg: TestPostgres;
  before(async () => {
    pg = await startTestPostgres();
  });
  after(() => pg.stop());

  void test('five replicas starting at once on a new database: each migration applied once, all at the latest version', async () => {
    const url = await pg.createDatabase('migrate_race');
    const stores = await Promise.all(Array.from({ length: 5 }, () => PostgresStore.open(url)));
    try {
      assert.deepEqual(await Promise.all(stores.map((s) => s.schemaVersion())), [1, 1, 1, 1, 1]);
      const again = await PostgresStore.open(url);
      assert.equal(await again.schemaVersion(), 1, 'a later start finds the schema current');
      await again.close();
    } finally {
      for (const s of stores) await s.close();
    }
  });

  void test('the test clock moves for every replica at once', async () => {
    const url = await pg.createDatabase('shared_clock');
    const [a, b] = await Promise.all([PostgresStore.open(url), PostgresStore.open(url)]);
    try {
      const base = { now: () => 1_000_000 };
      const clockA = new TestClock(base, a.sharedClock);
      const clockB = new TestClock(base, b.sharedClock);
      await Promise.all([clockA.refresh(), clockB.refresh()]);
      assert.equal(clockB.now(), 1_000_000);
      await clockA.apply({ advanceSeconds: 60 });
      await clockB.apply({ advanceSeconds: 30 });
      await clockA.refresh();
      assert.deepEqual([clockA.now(), clockB.now()], [1_090_000, 1_090_000], 'moves add up across replicas');
      await clockB.apply({ setToMs: 5_000_000 });
      await clockA.refresh();
      assert.equal(clockA.now(), 5_000_000);
      await clockA.apply({ reset: true });
      await clockB.refresh();
      assert.equal(clockB.now(), 1_000_000);
    } finally {
      await a.close();
      await b.close();
    }
  });

  void test('the fault switch and the HTTPS certificate are one for every replica', async () => {
    const url = await pg.createDatabase('shared_settings');
    const [a, b] = await Promise.all([PostgresStore.open(url), PostgresStore.open(url)]);
    try {
      assert.equal(await b.sharedFault.read(), null);
      await a.sharedFault.set('unavailable');
      assert.equal(await b.sharedFault.read(), 'unavailable');
      await b.sharedFault.set(null);
      assert.equal(await a.sharedFault.read(), null);
      const now = new Date();
      const [ca, cb] = await Promise.all([
        sharedCertificate(a, '127.0.0.1', now),
        sharedCertificate(b, '127.0.0.1', now),
      ]);
      assert.equal(ca.cert, cb.cert, 'one certificate');
      assert.equal([ca.generated, cb.generated].filter(Boolean).length, 1, 'created by one replica');
      await ca.dispose();
      await cb.dispose();
    } finally {
      await a.close();
      await b.close();
    }
  });

  void test("an unreachable database: open fails with the driver's error, ping rejects once the database is gone", async () => {
    await assert.rejects(() => PostgresStore.open(pg.url('no_such_database')), /no_such_database/);
    const url = await pg.createDatabase('goes_away');
    const store = await PostgresStore.open(url);
    await store.ping();
    const admin = await PostgresStore.open(pg.url('postgres'));
    await admin.close();
    await store.close();
    await assert.rejects(() => store.ping());
  });
});
