// Deactivating and reactivating an account: from the next request on, the token endpoint refuses a
// deactivated user's password and refresh grants (invalid_grant) and a deactivated client
// (invalid_client, its refresh tokens too); reactivation restores issuance; an unknown account is
// reported missing and nothing is written.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { setAccountActive } from '../../src/domain/account-state.ts';
import { attempt, cc, issued, outcome, pw, rt, seed, testServices, type TestServices } from '../helpers.ts';

void describe('account state at the token endpoint', () => {
  let s: TestServices;
  beforeEach(async () => {
    s = await testServices();
  });
  afterEach(() => s.store.close());

  const dave = { kind: 'user', tenant: 'acme', userName: 'dave' } as const;

  void test("a deactivated user's refresh and password grants are invalid_grant; reactivated, both issue again", async () => {
    const first = issued(await attempt(s, pw(seed.usPw, seed.dave)));
    const second = issued(await attempt(s, rt(seed.usPw, first.refresh_token!)));
    assert.deepEqual(await setAccountActive(s.store, dave, false), { found: true, account: dave, active: false });
    assert.equal(outcome(await attempt(s, rt(seed.usPw, second.refresh_token!))), 'invalid_grant');
    assert.equal(outcome(await attempt(s, pw(seed.usPw, seed.dave))), 'invalid_grant');
    await setAccountActive(s.store, dave, true);
    issued(await attempt(s, rt(seed.usPw, second.refresh_token!)));
    issued(await attempt(s, pw(seed.usPw, seed.dave)));
  });

  void test('a deactivated client is invalid_client for client_credentials and for its refresh tokens; reactivated, it is served', async () => {
    const ccOnly = { kind: 'client', clientId: seed.usCcOnly.id } as const;
    const pw2 = { kind: 'client', clientId: seed.usPw2.id } as const;
    const family = issued(await attempt(s, pw(seed.usPw2, seed.alice)));
    await setAccountActive(s.store, ccOnly, false);
    await setAccountActive(s.store, pw2, false);
    assert.equal(outcome(await attempt(s, cc(seed.usCcOnly))), 'invalid_client');
    assert.equal(outcome(await attempt(s, rt(seed.usPw2, family.refresh_token!))), 'invalid_client');
    await setAccountActive(s.store, ccOnly, true);
    await setAccountActive(s.store, pw2, true);
    issued(await attempt(s, cc(seed.usCcOnly)));
    issued(await attempt(s, rt(seed.usPw2, family.refresh_token!)));
  });

  void test('an unknown account is reported missing, and nothing is written', async () => {
    const ghost = { kind: 'user', tenant: 'acme', userName: 'nobody' } as const;
    assert.deepEqual(await setAccountActive(s.store, ghost, false), { found: false, account: ghost });
    assert.equal(await s.store.findUser('acme', 'nobody'), undefined);
    assert.deepEqual(await setAccountActive(s.store, { kind: 'client', clientId: 'no-such' }, false), {
      found: false,
      account: { kind: 'client', clientId: 'no-such' },
    });
  });
});
