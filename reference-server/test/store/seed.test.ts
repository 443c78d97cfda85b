import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BUNDLED_SEED } from '../../src/config.ts';
import { ScryptSecretHasher, testScryptCost } from '../../src/crypto/scrypt-hasher.ts';
import { SeedFileError, readSeedFile, seedRecords } from '../../src/store/seed.ts';

void describe('seed file', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tc-seed-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  void test('the bundled seed is valid and has the documented fixtures', async () => {
    const seed = await readSeedFile(BUNDLED_SEED);
    const ids = seed.clients.map((c) => c.clientId);
    for (const id of [
      'us-cc-client',
      'us-reporting-client',
      'us-unregistered-client',
      'us-pw-client',
      'us-pw-client-2',
      'us-cc-only-client',
      'us-ratelimit-client',
      'eu-cc-client',
      'us-prod-client',
    ]) {
      assert.ok(ids.includes(id), id);
    }
    assert.ok(
      seed.users.some((u) => u.passwordChangedDaysAgo > 45),
      'a user with an expired password',
    );
    assert.ok(seed.people.length >= 5);
  });

  void test('records: secrets hashed, password ages anchored at now', async () => {
    const seed = await readSeedFile(BUNDLED_SEED);
    const now = Date.UTC(2026, 0, 1);
    const records = await seedRecords(seed, new ScryptSecretHasher(testScryptCost), now);
    const bob = records.users.find((u) => u.userName === 'bob-expired');
    assert.equal(bob?.tenant, 'acme');
    assert.equal(bob?.passwordChangedAt, now - 50 * 86_400_000);
    const json = JSON.stringify(records);
    for (const c of seed.clients) assert.ok(!json.includes(c.clientSecret), 'no plain secret');
  });

  void test('a bad seed file is refused with a message naming the file and the problem', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({
        clients: [
          {
            clientId: 'bad id!',
            clientSecret: 'short',
            name: 'x',
            region: 'us',
            environment: 'sandbox',
            grants: [],
            registration: null,
          },
        ],
        users: [],
        people: [],
      }),
    );
    await assert.rejects(readSeedFile(file), (error: Error) => {
      assert.ok(error instanceof SeedFileError);
      assert.match(error.message, /bad\.json/);
      assert.match(error.message, /clients\.0\.clientId/);
      return true;
    });
    writeFileSync(file, '{ not json');
    await assert.rejects(readSeedFile(file), SeedFileError);
  });
});
