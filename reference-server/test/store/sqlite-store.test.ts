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
  before(() => { dir = mkdtempSync(join(tmpdir(), 'tc-store-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  void test('migrates a new file to the latest schema; reopening keeps everything', async () => {
    const file = join(dir, 'persist.sqlite');
    const a = new SqliteStore(file);
    assert.equal(a.schemaVersion, 4);
    await a.saveClient({ clientId: 'c1', secretHash: 'x', name: 'n', region: 'us', environment: 'sandbox', grants: ['password'], registration: { tenantId: 't', role: 'r' }, active: true, createdAt: 5, managedByTenant: null, secretHint: null });
    await a.putMetaIfAbsent('k', 'v');
    await a.close();
    const b = new SqliteStore(file);
    assert.equal(b.schemaVersion, 4);
    assert.equal((await b.findClient('c1'))?.registration?.role, 'r');
    assert.equal(await b.getMeta('k'), 'v');
    await b.close();
  });

  void test('has no shared test clock: processes on one file keep their own, as before', async () => {
    const s = new SqliteStore(':memory:');
    assert.equal((s as ServerStore).sharedClock, undefined);
    await s.close();
  });
});
