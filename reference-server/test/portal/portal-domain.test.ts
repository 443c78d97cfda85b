// The portal's use cases without HTTP: sign-in and its lock, sessions, the 45-day countdown, the
// password policy and change, sandbox self-registration and the operator's registration.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { changeOwnPassword } from '../../src/domain/portal/change-own-password.ts';
import { registerClientByOperator } from '../../src/domain/portal/operator-registration.ts';
import { passwordStatus } from '../../src/domain/portal/password-status.ts';
import { PortalRefusal } from '../../src/domain/portal/portal-errors.ts';
import {
  deleteSandboxClient,
  findSandboxClient,
  listSandboxClients,
  registerSandboxClient,
  rotateSandboxClientSecret,
  type SandboxClientForm,
} from '../../src/domain/portal/sandbox-clients.ts';
import { csrfTokenMatches, endSession, resumeSession, startSession } from '../../src/domain/portal/sessions.ts';
import { signIn } from '../../src/domain/portal/sign-in.ts';
import { DAY_MS, passwordPolicyProblems } from '../../src/domain/password-policy.ts';
import type { User } from '../../src/domain/model.ts';
import { DAY, T0, attempt, cc, issued, outcome, pw, rt, seed, testServices, type TestServices } from '../helpers.ts';

async function refusal(promise: Promise<unknown> | (() => unknown)): Promise<PortalRefusal> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    if (error instanceof PortalRefusal) return error;
    throw error;
  }
  throw new Error('expected a PortalRefusal');
}

const user = async (s: TestServices, tenant: string, userName: string): Promise<User> => {
  const found = await s.store.findUser(tenant, userName);
  assert.ok(found, `setup: ${tenant}\\${userName} exists`);
  return found;
};

const form = (extra: Partial<SandboxClientForm> = {}): SandboxClientForm => ({
  name: 'HR sync',
  region: 'us',
  clientCredentials: true,
  password: false,
  role: 'people-reader',
  ...extra,
});

let s: TestServices;
beforeEach(async () => {
  s = await testServices({ throttle: { userFailures: 3 } });
});
afterEach(() => s.store.close());

void describe('portal sign-in', () => {
  void test('signs in with tenant\\user and the password; every failure reads the same', async () => {
    assert.equal((await signIn(s.portal, seed.alice.username, seed.alice.password)).userName, 'alice');
    const messages = new Set<string>();
    for (const [username, password] of [
      [seed.alice.username, 'wrong-password'],
      ['acme\\nobody', 'whatever-pass'],
      ['alice', seed.alice.password],
      [seed.gina.username, seed.gina.password],
    ] as const) {
      const r = await refusal(signIn(s.portal, username, password));
      assert.equal(r.reason, 'invalid-credentials');
      messages.add(r.message);
    }
    assert.equal(messages.size, 1);
  });

  void test('an expired password still signs in (to change it)', async () => {
    assert.equal((await signIn(s.portal, seed.bobExpired.username, seed.bobExpired.password)).userName, 'bob-expired');
  });

  void test("shares the password grant's lock: failures at either count, and the lock refuses the right password at both", async () => {
    await refusal(signIn(s.portal, seed.ivy.username, 'wrong-1'));
    assert.equal(outcome(await attempt(s, pw(seed.usPw, { ...seed.ivy, password: 'wrong-2' }))), 'invalid_grant');
    await refusal(signIn(s.portal, seed.ivy.username, 'wrong-3'));
    const locked = await refusal(signIn(s.portal, seed.ivy.username, seed.ivy.password));
    assert.equal(locked.reason, 'locked');
    assert.equal(locked.retryAfterSeconds, 900);
    const grant = await attempt(s, pw(seed.usPw, seed.ivy));
    assert.equal(grant.ok ? 'issued' : grant.error.status, 429);
    assert.equal(
      (await signIn(s.portal, seed.alice.username, seed.alice.password)).userName,
      'alice',
      'other users are not affected',
    );
    s.manual.advance(900);
    assert.equal((await signIn(s.portal, seed.ivy.username, seed.ivy.password)).userName, 'ivy-portal-lockable');
  });
});

void describe('portal sessions', () => {
  void test("the store keeps the digest of the id, never the id; the CSRF token is the session's", async () => {
    const { sessionId, session } = await startSession(s.portal, { tenant: 'acme', userName: 'alice' });
    assert.match(sessionId, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(await s.store.findSession(sessionId), undefined);
    assert.equal((await resumeSession(s.portal, sessionId))?.userName, 'alice');
    assert.equal(csrfTokenMatches(s.portal, session, session.csrfToken), true);
    assert.equal(csrfTokenMatches(s.portal, session, `${session.csrfToken}x`), false);
    assert.equal(csrfTokenMatches(s.portal, session, ''), false);
    assert.equal(csrfTokenMatches(s.portal, session, undefined), false);
    const other = await startSession(s.portal, { tenant: 'acme', userName: 'alice' });
    assert.notEqual(other.session.csrfToken, session.csrfToken);
    assert.equal(csrfTokenMatches(s.portal, session, other.session.csrfToken), false);
  });

  void test('ends after 15 idle minutes, after 8 hours in any case, when the clock goes back, and at sign-out', async () => {
    const idle = await startSession(s.portal, { tenant: 'acme', userName: 'alice' });
    s.manual.advance(899);
    assert.ok(await resumeSession(s.portal, idle.sessionId), 'used within the idle window');
    s.manual.advance(899);
    assert.ok(await resumeSession(s.portal, idle.sessionId), 'each use restarts the idle window');
    s.manual.advance(900);
    assert.equal(await resumeSession(s.portal, idle.sessionId), undefined);

    const busy = await startSession(s.portal, { tenant: 'acme', userName: 'alice' });
    for (let i = 0; i < 32; i += 1) {
      s.manual.advance(899);
      assert.ok(await resumeSession(s.portal, busy.sessionId), `use ${i}`);
    }
    s.manual.advance(100); // 32 × 899 + 100 = 28 868 s > 8 h
    assert.equal(await resumeSession(s.portal, busy.sessionId), undefined);

    const back = await startSession(s.portal, { tenant: 'acme', userName: 'alice' });
    s.manual.advance(-60);
    assert.equal(await resumeSession(s.portal, back.sessionId), undefined);

    const out = await startSession(s.portal, { tenant: 'acme', userName: 'alice' });
    await endSession(s.portal, out.sessionId);
    assert.equal(await resumeSession(s.portal, out.sessionId), undefined);
  });
});

void describe('the 45-day countdown', () => {
  void test('days left round up, the warning starts 7 days before, expired at exactly 45 days', () => {
    const at = (daysAgo: number) => passwordStatus({ passwordChangedAt: T0 - daysAgo * DAY_MS }, T0, 45, 7);
    assert.deepEqual(at(0), { expiresAt: T0 + 45 * DAY_MS, expired: false, daysLeft: 45, warning: false });
    assert.equal(at(1).daysLeft, 44);
    assert.equal(at(37.5).daysLeft, 8);
    assert.equal(at(37.5).warning, false);
    assert.equal(at(38).daysLeft, 7);
    assert.equal(at(38).warning, true);
    assert.equal(at(44.99).daysLeft, 1);
    assert.deepEqual(at(45), { expiresAt: T0, expired: true, daysLeft: 0, warning: true });
  });
});

void describe('the password policy', () => {
  const ctx = { userName: 'alice', currentPassword: seed.alice.password };
  void test('accepts a long password of three kinds', () => {
    assert.deepEqual(passwordPolicyProblems('Correct horse 42', ctx), []);
    assert.deepEqual(passwordPolicyProblems('éléphant-ROSE-lune', ctx), []);
  });
  void test('names each broken rule', () => {
    assert.equal(passwordPolicyProblems('Short-1', ctx).length, 1);
    assert.match(passwordPolicyProblems('alllowercaseletters', ctx)[0] ?? '', /1 kind/);
    assert.match(passwordPolicyProblems(`Aa1-${'x'.repeat(130)}`, ctx)[0] ?? '', /longer than 128/);
    assert.match(passwordPolicyProblems('My-ALICE-pass-99', ctx)[0] ?? '', /user name/);
    assert.match(
      passwordPolicyProblems(seed.alice.password, { ...ctx, userName: 'x' })[0] ?? '',
      /same as the current/,
    );
  });
});

void describe("changing one's own password", () => {
  void test('an expired password: the grant refuses it; after the change the grant takes the new one, refresh tokens are revoked, other sessions end', async () => {
    const fresh = issued(await attempt(s, pw(seed.usPw, seed.paul)));
    s.manual.advance(5 * DAY + 1); // 40 days old in the seed: now just over 45
    assert.equal(outcome(await attempt(s, pw(seed.usPw, seed.paul))), 'invalid_grant');
    const paul = await user(s, 'acme', 'paul-portal');
    const mine = await startSession(s.portal, paul);
    const other = await startSession(s.portal, paul);
    const result = await changeOwnPassword(
      s.portal,
      paul,
      { currentPassword: seed.paul.password, newPassword: 'Paul-new-pass-2026', confirmation: 'Paul-new-pass-2026' },
      mine.session.idHash,
    );
    assert.deepEqual(result, { revokedRefreshTokens: 1, endedOtherSessions: 1 });
    assert.ok(await resumeSession(s.portal, mine.sessionId));
    assert.equal(await resumeSession(s.portal, other.sessionId), undefined);
    assert.equal(outcome(await attempt(s, rt(seed.usPw, fresh.refresh_token ?? ''))), 'invalid_grant');
    assert.equal(outcome(await attempt(s, pw(seed.usPw, seed.paul))), 'invalid_grant');
    issued(await attempt(s, pw(seed.usPw, { ...seed.paul, password: 'Paul-new-pass-2026' })));
    assert.equal(passwordStatus(await user(s, 'acme', 'paul-portal'), s.clock.now(), 45, 7).daysLeft, 45);
  });

  void test('refuses a wrong current password (counted towards the lock), a policy breach and a mistyped confirmation, changing nothing', async () => {
    const carol = await user(s, 'acme', 'carol');
    const keep = (await startSession(s.portal, carol)).session.idHash;
    const wrong = await refusal(
      changeOwnPassword(
        s.portal,
        carol,
        { currentPassword: 'nope', newPassword: 'Carol-new-pass-1', confirmation: 'Carol-new-pass-1' },
        keep,
      ),
    );
    assert.deepEqual(wrong.problems, ['The current password is wrong.']);
    assert.equal((await s.store.findFailedAttempts({ kind: 'user', name: 'acme\\carol' }))?.failures, 1);
    const weak = await refusal(
      changeOwnPassword(
        s.portal,
        carol,
        { currentPassword: seed.carol.password, newPassword: 'short', confirmation: 'other' },
        keep,
      ),
    );
    assert.equal(weak.reason, 'invalid-input');
    assert.ok(weak.problems.some((p) => p.includes('shorter')));
    assert.ok(weak.problems.includes('The two new passwords differ.'));
    assert.equal((await user(s, 'acme', 'carol')).passwordHash, carol.passwordHash);
    issued(await attempt(s, pw(seed.usPw, seed.carol)));
  });
});

void describe('sandbox self-registration', () => {
  void test('a tenant administrator registers a client that gets tokens and is registered with Data Services for the tenant', async () => {
    const admin = await user(s, 'acme', 'olivia-admin');
    const { client, clientSecret } = await registerSandboxClient(s.portal, admin, form());
    assert.match(client.clientId, /^sandbox-[A-Za-z0-9_-]{16}$/);
    assert.match(clientSecret, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(client.secretHint, `…${clientSecret.slice(-4)}`);
    assert.deepEqual(client.registration, { tenantId: 'acme', role: 'people-reader' });
    assert.equal(client.environment, 'sandbox');
    assert.equal((await s.store.findClient(client.clientId))?.secretHash.startsWith('scrypt$'), true);
    issued(await attempt(s, cc({ id: client.clientId, secret: clientSecret })));
    assert.deepEqual(
      (await listSandboxClients(s.portal, admin)).map((c) => c.clientId),
      [client.clientId],
    );
  });

  void test('password and refresh_token come together; EU clients are client_credentials only', async () => {
    const admin = await user(s, 'acme', 'olivia-admin');
    const { client } = await registerSandboxClient(s.portal, admin, form({ password: true, clientCredentials: false }));
    assert.deepEqual(client.grants, ['password', 'refresh_token']);
    const eu = await refusal(registerSandboxClient(s.portal, admin, form({ region: 'eu', password: true })));
    assert.ok(eu.problems.some((p) => p.includes('EU')));
  });

  void test("the form's mistakes are all listed", async () => {
    const admin = await user(s, 'acme', 'olivia-admin');
    const r = await refusal(
      registerSandboxClient(s.portal, admin, {
        name: ' ',
        region: 'mars',
        clientCredentials: false,
        password: false,
        role: 'root',
      }),
    );
    assert.equal(r.reason, 'invalid-input');
    assert.equal(r.problems.length, 4);
    assert.equal(
      (await refusal(registerSandboxClient(s.portal, admin, form({ name: 'x'.repeat(81) })))).problems.length,
      1,
    );
    assert.equal(
      (await refusal(registerSandboxClient(s.portal, admin, form({ name: 'a\u0007b' })))).problems.length,
      1,
    );
  });

  void test('only tenant administrators, only on a sandbox server, at most 20 per tenant', async () => {
    assert.equal(
      (await refusal(registerSandboxClient(s.portal, await user(s, 'acme', 'alice'), form()))).reason,
      'forbidden',
    );
    assert.equal(
      (
        await refusal(
          registerSandboxClient(
            { ...s.portal, environment: 'production' },
            await user(s, 'acme', 'olivia-admin'),
            form(),
          ),
        )
      ).reason,
      'production-closed',
    );
    const admin = await user(s, 'acme', 'olivia-admin');
    for (let i = 0; i < 20; i += 1) await registerSandboxClient(s.portal, admin, form({ name: `app ${i}` }));
    assert.equal((await refusal(registerSandboxClient(s.portal, admin, form()))).reason, 'limit-reached');
  });

  void test('rotation: the old secret stops working, the new one works; delete: the client is gone', async () => {
    const admin = await user(s, 'acme', 'olivia-admin');
    const first = await registerSandboxClient(s.portal, admin, form());
    const rotated = await rotateSandboxClientSecret(s.portal, admin, first.client.clientId);
    assert.notEqual(rotated.clientSecret, first.clientSecret);
    assert.equal(rotated.client.secretHint, `…${rotated.clientSecret.slice(-4)}`);
    assert.equal(
      outcome(await attempt(s, cc({ id: first.client.clientId, secret: first.clientSecret }))),
      'invalid_client',
    );
    issued(await attempt(s, cc({ id: first.client.clientId, secret: rotated.clientSecret })));
    await deleteSandboxClient(s.portal, admin, first.client.clientId);
    assert.equal(await s.store.findClient(first.client.clientId), undefined);
    assert.equal(
      outcome(await attempt(s, cc({ id: first.client.clientId, secret: rotated.clientSecret }))),
      'invalid_client',
    );
  });

  void test('another tenant\'s client, a seeded client and a missing one are all "not found"', async () => {
    const acme = await user(s, 'acme', 'olivia-admin');
    const globexAdmin: User = { ...acme, tenant: 'globex', userName: 'gus-admin' };
    await s.store.saveUser(globexAdmin);
    const { client } = await registerSandboxClient(s.portal, acme, form());
    for (const id of [client.clientId, seed.usCc.id, 'sandbox-missing']) {
      assert.equal((await refusal(rotateSandboxClientSecret(s.portal, globexAdmin, id))).reason, 'not-found');
      assert.equal((await refusal(() => deleteSandboxClient(s.portal, globexAdmin, id))).reason, 'not-found');
      assert.equal((await refusal(() => findSandboxClient(s.portal, globexAdmin, id))).reason, 'not-found');
    }
    assert.equal((await refusal(rotateSandboxClientSecret(s.portal, acme, seed.usCc.id))).reason, 'not-found');
    assert.deepEqual(await listSandboxClients(s.portal, globexAdmin), []);
    assert.ok(await s.store.findClient(client.clientId));
  });
});

void describe("the operator's registration", () => {
  void test('registers a production client with its tenant id and role; the id must be free', async () => {
    const { client, clientSecret } = await registerClientByOperator(s.portal, {
      clientId: 'acme-hr-prod',
      name: 'Acme HR',
      region: 'us',
      environment: 'production',
      grants: ['client_credentials'],
      tenantId: 'acme',
      role: 'people-reader',
    });
    assert.equal(client.environment, 'production');
    assert.equal(client.managedByTenant, null);
    assert.deepEqual((await s.store.findClient('acme-hr-prod'))?.registration, {
      tenantId: 'acme',
      role: 'people-reader',
    });
    assert.equal(
      await s.hasher.verify(clientSecret, (await s.store.findClient('acme-hr-prod'))?.secretHash ?? ''),
      true,
    );
    // A sandbox server refuses a production client (invalid_client), as for the seeded ones.
    assert.equal(outcome(await attempt(s, cc({ id: 'acme-hr-prod', secret: clientSecret }))), 'invalid_client');
    const taken = await refusal(
      registerClientByOperator(s.portal, {
        clientId: 'acme-hr-prod',
        name: 'x',
        region: 'us',
        environment: 'production',
        grants: ['client_credentials'],
        tenantId: 'acme',
        role: 'r',
      }),
    );
    assert.match(taken.problems[0] ?? '', /already exists/);
    const bad = await refusal(
      registerClientByOperator(s.portal, {
        clientId: 'a b',
        name: '',
        region: 'eu',
        environment: 'production',
        grants: ['password'],
        tenantId: '',
        role: '',
      }),
    );
    assert.equal(bad.problems.length, 6);
  });
});

void describe('the session purge', () => {
  void test('deletes sessions unused since before the cut-off, at most the limit at a time', async () => {
    const a = await startSession(s.portal, { tenant: 'acme', userName: 'alice' });
    s.manual.advance(60);
    const b = await startSession(s.portal, { tenant: 'acme', userName: 'carol' });
    assert.equal(await s.store.purgePortalSessions(s.clock.now() - 30_000, 10), 1);
    assert.equal(await resumeSession(s.portal, a.sessionId), undefined);
    assert.ok(await resumeSession(s.portal, b.sessionId));
    assert.equal(await s.store.purgePortalSessions(s.clock.now() + 1, 0), 0, 'the limit holds');
  });
});
