// One gateway decision reads the principal's client (and user) once: authorization and the
// backend's identity check share the reading (request-lookups.ts); a protected call costs one
// client lookup and one person lookup.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LookupsOfOneDecision, type DecisionLookups } from '../../src/gateway/request-lookups.ts';
import type { Client, PersonRecord, User } from '../../src/domain/model.ts';
import { attempt, cc, issued, pw, seed, testApp, testServices } from '../helpers.ts';

function counting(store: DecisionLookups): DecisionLookups & { calls: Record<string, number> } {
  const calls: Record<string, number> = { findClient: 0, findUser: 0, findPerson: 0 };
  return {
    calls,
    findClient: (id: string): Promise<Client | undefined> => {
      calls.findClient! += 1;
      return store.findClient(id);
    },
    findUser: (t: string, u: string): Promise<User | undefined> => {
      calls.findUser! += 1;
      return store.findUser(t, u);
    },
    findPerson: (id: string): Promise<PersonRecord | undefined> => {
      calls.findPerson! += 1;
      return store.findPerson(id);
    },
  };
}

void describe('LookupsOfOneDecision', () => {
  void test('the same client or user is read once; another one is read', async () => {
    const services = await testServices();
    try {
      const store = counting(services.store);
      const lookups = new LookupsOfOneDecision(store);
      assert.equal((await lookups.findClient('us-cc-client'))?.clientId, 'us-cc-client');
      assert.equal((await lookups.findClient('us-cc-client'))?.clientId, 'us-cc-client');
      assert.equal(await lookups.findClient('no-such-client'), undefined);
      assert.equal(await lookups.findClient('no-such-client'), undefined);
      assert.equal(store.calls.findClient, 2);
      assert.equal((await lookups.findUser('acme', 'alice'))?.userName, 'alice');
      assert.equal((await lookups.findUser('acme', 'alice'))?.userName, 'alice');
      assert.equal((await lookups.findUser('acme', 'bob-expired'))?.userName, 'bob-expired');
      assert.equal(store.calls.findUser, 2);
    } finally {
      await services.store.close();
    }
  });

  void test('a person or client changed in the store is answered as changed from the next call on (nothing served from a stale copy)', async () => {
    const testing = await testApp();
    const { app, services } = testing;
    try {
      const token = issued(await attempt(services, cc(seed.usCc))).access_token;
      const get = () =>
        app.inject({
          method: 'GET',
          url: '/v1/people/er/E-1001',
          headers: { authorization: `Bearer ${token}`, host: '127.0.0.1' },
        });
      const first = await get();
      assert.equal(first.statusCode, 200, first.body);
      assert.deepEqual(JSON.parse((await get()).body), JSON.parse(first.body));
      const person = (await services.store.findPerson('E-1001'))!;
      assert.ok(person, 'setup: the seeded person');
      await services.store.savePerson({ ...person, email: 'changed@example.com' });
      assert.equal((JSON.parse((await get()).body) as { email: string }).email, 'changed@example.com');
      const client = (await services.store.findClient(seed.usCc.id))!;
      assert.ok(client, 'setup: the seeded client');
      await services.store.saveClient({ ...client, active: false });
      assert.equal((JSON.parse((await get()).body) as { code: string }).code, '000-5002');
      await services.store.saveClient({ ...client, registration: { tenantId: 'acme', role: 'reporting' } });
      assert.equal((JSON.parse((await get()).body) as { code: string }).code, '000-1101');
    } finally {
      await testing.close();
    }
  });

  void test('a protected call reads its client once and its person once', async () => {
    const testing = await testApp();
    const { app, services } = testing;
    const reads = { findClient: 0, findUser: 0, findPerson: 0, readsOfOneDecision: 0 };
    const count = (target: object): void => {
      const methods = target as Record<string, (...args: string[]) => unknown>;
      for (const name of ['findClient', 'findUser', 'findPerson'] as const) {
        const original = methods[name]!.bind(target);
        methods[name] = (...args: string[]) => {
          reads[name] += 1;
          return original(...args);
        };
      }
    };
    // The SQLite store hands the gateway the reads of one decision (one check for other
    // processes' changes); they are counted like the store's own.
    count(services.store);
    const store = services.store as unknown as { readsOfOneDecision(): object };
    const decisionReads = store.readsOfOneDecision.bind(store);
    store.readsOfOneDecision = () => {
      reads.readsOfOneDecision += 1;
      const view = { ...decisionReads() };
      count(view);
      return view;
    };
    try {
      for (const [grant, userReads] of [
        [cc(seed.usCc), 0],
        [pw(seed.usPw, seed.alice), 1],
      ] as const) {
        const token = issued(await attempt(services, grant)).access_token;
        Object.assign(reads, { findClient: 0, findUser: 0, findPerson: 0, readsOfOneDecision: 0 });
        const res = await app.inject({
          method: 'GET',
          url: '/v1/people/er/E-1001',
          headers: { authorization: `Bearer ${token}`, host: '127.0.0.1' },
        });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(reads, { findClient: 1, findUser: userReads, findPerson: 1, readsOfOneDecision: 1 });
      }
    } finally {
      await testing.close();
    }
  });
});
