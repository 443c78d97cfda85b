// Brute-force protection (LIMIT-RATE-003; RFC 6749 §2.3.1 for client secrets): consecutive failures per username and per
// client_id lock that principal for the lock window of the injected clock; while locked even the
// right credentials are refused (TooManyAttempts: 429); a verified credential ends the run.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { AttemptThrottle } from '../../src/domain/attempt-throttle.ts';
import { TooManyAttempts } from '../../src/domain/errors.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { attempt, cc, issued, outcome, pw, seed, testServices, type Attempt, type TestServices } from '../helpers.ts';

const wrong = (user: { username: string; password: string }, i = 0) => ({
  username: user.username,
  password: `${user.password}-wrong-${i}`,
});

function locked(a: Attempt): TooManyAttempts {
  assert.ok(
    !a.ok && a.error instanceof TooManyAttempts,
    `expected a lock, got ${a.ok ? 'a token' : `${a.error.error} (${a.error.detail ?? ''})`}`,
  );
  return a.error;
}

async function failPasswords(
  s: TestServices,
  user: { username: string; password: string },
  n: number,
): Promise<string[]> {
  const outcomes: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const a = await attempt(s, pw(seed.usPw, wrong(user, i)));
    outcomes.push(!a.ok && a.error instanceof TooManyAttempts ? 'locked' : outcome(a));
  }
  return outcomes;
}

void describe('AttemptThrottle (pure, over a store)', () => {
  void test('locks at the threshold, for the window, with Retry-After rounded up; the kinds keep their own thresholds', async () => {
    const store = new SqliteStore(':memory:');
    const throttle = new AttemptThrottle(store, {
      userFailures: 3,
      clientFailures: 5,
      lockSeconds: 60,
      sourceFailures: 1000,
    });
    const user = { kind: 'user', name: 'acme\\x' } as const;
    const client = { kind: 'client', name: 'c' } as const;
    assert.deepEqual(
      [
        await throttle.recordFailure(user, 1000),
        await throttle.recordFailure(user, 2000),
        await throttle.recordFailure(user, 3000),
      ],
      [false, false, true],
    );
    assert.deepEqual(
      [
        await throttle.recordFailure(client, 1000),
        await throttle.recordFailure(client, 2000),
        await throttle.recordFailure(client, 3000),
      ],
      [false, false, false],
    );
    await assert.rejects(
      () => throttle.assertNotLocked(user, 3000),
      (e: unknown) =>
        e instanceof TooManyAttempts && e.status === 429 && e.error === 'invalid_grant' && e.retryAfterSeconds === 60,
    );
    await assert.rejects(
      () => throttle.assertNotLocked(user, 62_500),
      (e: unknown) => e instanceof TooManyAttempts && e.retryAfterSeconds === 1,
    );
    await throttle.assertNotLocked(user, 63_000); // the lock ends at exactly now + window
    await throttle.assertNotLocked(client, 3000);
    await store.close();
  });

  void test('a client lock is invalid_client', async () => {
    const store = new SqliteStore(':memory:');
    const throttle = new AttemptThrottle(store, {
      userFailures: 3,
      clientFailures: 2,
      lockSeconds: 60,
      sourceFailures: 1000,
    });
    const client = { kind: 'client', name: 'c' } as const;
    await throttle.recordFailure(client, 0);
    await throttle.recordFailure(client, 0);
    await assert.rejects(
      () => throttle.assertNotLocked(client, 1),
      (e: unknown) => e instanceof TooManyAttempts && e.error === 'invalid_client',
    );
    await store.close();
  });
});

void describe('brute-force locks at the token endpoint (domain)', () => {
  let s: TestServices;
  beforeEach(async () => {
    s = await testServices({ throttle: { userFailures: 10, clientFailures: 5, lockSeconds: 900 } });
  });
  afterEach(() => s.store.close());

  void test('10 wrong passwords lock the user: the 11th attempt is refused even with the right password, and not verified', async () => {
    assert.deepEqual(
      await failPasswords(s, seed.dave, 10),
      Array<string>(10).fill('invalid_grant'),
      'the failures themselves are ordinary invalid_grant',
    );
    const refused = locked(await attempt(s, pw(seed.usPw, seed.dave)));
    assert.equal(refused.error, 'invalid_grant');
    assert.equal(refused.status, 429);
    assert.equal(refused.retryAfterSeconds, 900);
    assert.deepEqual(refused.toJSON(), {
      error: 'invalid_grant',
      error_description: 'Too many failed attempts; try again later.',
    });
  });

  void test('LIMIT-RATE-003: after 50 consecutive wrong passwords the right one is refused (429)', async () => {
    const outcomes = await failPasswords(s, seed.dave, 50);
    assert.ok(
      outcomes.every((o) => o === 'invalid_grant' || o === 'locked'),
      outcomes.join(),
    );
    assert.equal(outcomes.filter((o) => o === 'locked').length, 40);
    assert.equal(locked(await attempt(s, pw(seed.usPw, seed.dave))).status, 429);
  });

  void test('the lock ends after the window on the injected clock; the count then starts again', async () => {
    await failPasswords(s, seed.dave, 10);
    s.manual.advance(899);
    assert.equal(locked(await attempt(s, pw(seed.usPw, seed.dave))).retryAfterSeconds, 1);
    s.manual.advance(1);
    issued(await attempt(s, pw(seed.usPw, seed.dave)));
    await failPasswords(s, seed.dave, 9);
    issued(await attempt(s, pw(seed.usPw, seed.dave)));
  });

  void test('a success resets the count: 9 failures, a success, 9 failures do not lock', async () => {
    await failPasswords(s, seed.dave, 9);
    issued(await attempt(s, pw(seed.usPw, seed.dave)));
    await failPasswords(s, seed.dave, 9);
    issued(await attempt(s, pw(seed.usPw, seed.dave)));
  });

  void test('failures spread out more than the window apart never add up to a lock', async () => {
    for (let i = 0; i < 12; i += 1) {
      assert.deepEqual(await failPasswords(s, seed.dave, 1), ['invalid_grant']);
      s.manual.advance(901);
    }
    issued(await attempt(s, pw(seed.usPw, seed.dave)));
  });

  void test('per user: a locked user leaves other users, and the client, alone', async () => {
    await failPasswords(s, seed.dave, 10);
    locked(await attempt(s, pw(seed.usPw, seed.dave)));
    locked(await attempt(s, pw(seed.usPw2, seed.dave)));
    issued(await attempt(s, pw(seed.usPw, seed.alice)));
    issued(await attempt(s, cc(seed.usPw)));
  });

  void test('unknown users lock like real ones (no account enumeration); a name that cannot be a username is refused alike, without a record', async () => {
    const ghost = { username: 'acme\\nobody', password: 'x' };
    const bare = { username: 'dave', password: 'x' };
    assert.deepEqual(await failPasswords(s, ghost, 11), [...Array<string>(10).fill('invalid_grant'), 'locked']);
    // No tenant prefix: no such user can exist, so refusing it without a count reveals nothing.
    assert.deepEqual(await failPasswords(s, bare, 11), Array<string>(11).fill('invalid_grant'));
    assert.equal(await s.store.findFailedAttempts({ kind: 'user', name: 'dave' }), undefined);
    issued(await attempt(s, pw(seed.usPw, seed.dave)));
  });

  void test('an expired or deactivated user with the right password counts as a verified password (no failure)', async () => {
    await failPasswords(s, seed.bobExpired, 9);
    assert.equal(outcome(await attempt(s, pw(seed.usPw, seed.bobExpired))), 'invalid_grant');
    assert.deepEqual(await failPasswords(s, seed.bobExpired, 9), Array<string>(9).fill('invalid_grant'));
  });

  void test('client secrets: 5 failures lock the client_id (invalid_client, 429), even with the right secret; other clients work', async () => {
    for (let i = 0; i < 5; i += 1) {
      assert.equal(outcome(await attempt(s, cc({ id: seed.usCc.id, secret: `wrong-${i}` }))), 'invalid_client');
    }
    const refused = locked(await attempt(s, cc(seed.usCc)));
    assert.equal(refused.error, 'invalid_client');
    assert.equal(refused.status, 429);
    issued(await attempt(s, cc(seed.usPw)));
    s.manual.advance(900);
    issued(await attempt(s, cc(seed.usCc)));
  });

  void test('a locked client is refused before the grant is looked at; a right secret resets its count', async () => {
    for (let i = 0; i < 4; i += 1) await attempt(s, cc({ id: seed.usCc.id, secret: `wrong-${i}` }));
    issued(await attempt(s, cc(seed.usCc)));
    for (let i = 0; i < 4; i += 1) await attempt(s, cc({ id: seed.usCc.id, secret: `wrong-${i}` }));
    issued(await attempt(s, cc(seed.usCc)));
    for (let i = 0; i < 5; i += 1) await attempt(s, cc({ id: seed.usCc.id, secret: `wrong-${i}` }));
    locked(await attempt(s, { ...cc(seed.usCc), grant_type: 'password', username: 'acme\\alice', password: 'x' }));
  });

  void test('two services sharing one store file share the counts and the lock', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-throttle-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'shared.sqlite');
    const a = await testServices({ store: new SqliteStore(file), throttle: { userFailures: 4 } });
    const b = await testServices({ store: new SqliteStore(file), throttle: { userFailures: 4 } });
    try {
      await failPasswords(a, seed.dave, 2);
      await failPasswords(b, seed.dave, 2);
      locked(await attempt(a, pw(seed.usPw, seed.dave)));
      locked(await attempt(b, pw(seed.usPw, seed.dave)));
    } finally {
      await a.store.close();
      await b.store.close();
    }
  });
});

void describe('strangers cannot turn the locks against a client or user (per source)', () => {
  let s: TestServices;
  const stranger = '203.0.113.7';
  const owner = '198.51.100.20';
  beforeEach(async () => {
    s = await testServices({
      throttle: { userFailures: 10, clientFailures: 50, lockSeconds: 900, sourceFailures: 200 },
    });
  });
  afterEach(() => s.store.close());

  void test('1,000 wrong secrets for a client id from a stranger: the stranger is locked out of it, the client keeps getting tokens', async () => {
    const outcomes = new Map<string, number>();
    for (let i = 0; i < 1000; i += 1) {
      const a = await attempt(s, cc({ id: seed.usCc.id, secret: `guess-${i}` }), { source: stranger });
      const o = !a.ok && a.error instanceof TooManyAttempts ? 'locked' : outcome(a);
      outcomes.set(o, (outcomes.get(o) ?? 0) + 1);
      if (i % 100 === 0) issued(await attempt(s, cc(seed.usCc), { source: owner }));
    }
    assert.deepEqual(Object.fromEntries(outcomes), { invalid_client: 50, locked: 950 });
    issued(await attempt(s, cc(seed.usCc), { source: owner }));
    assert.equal(
      locked(await attempt(s, cc(seed.usCc), { source: stranger })).status,
      429,
      "from the stranger's source even the right secret is refused",
    );
  });

  void test('wrong passwords for a user from a stranger: the user signs in from elsewhere (password grant)', async () => {
    for (let i = 0; i < 30; i += 1) await attempt(s, pw(seed.usPw, wrong(seed.dave, i)), { source: stranger });
    locked(await attempt(s, pw(seed.usPw, seed.dave), { source: stranger }));
    issued(await attempt(s, pw(seed.usPw, seed.dave), { source: owner }));
  });

  void test('a source that spent its failures on many principals gets 429 for every principal, before any hashing; others do not', async () => {
    let verifications = 0;
    const verify = s.hasher.verify.bind(s.hasher);
    s.hasher.verify = async (secret, hash) => {
      verifications += 1;
      return verify(secret, hash);
    };
    for (let i = 0; i < 200; i += 1) {
      assert.equal(
        outcome(await attempt(s, cc({ id: `ghost-${i}`, secret: 'x' }), { source: stranger })),
        'invalid_client',
      );
    }
    assert.equal(verifications, 200, 'an unknown client costs one verification, like a known one');
    const refused = locked(await attempt(s, cc({ id: 'ghost-x', secret: 'x' }), { source: stranger }));
    assert.equal(refused.error, 'invalid_client');
    assert.ok(
      refused.retryAfterSeconds >= 1 && refused.retryAfterSeconds <= 5,
      `Retry-After ${refused.retryAfterSeconds}: one failure's refill (900 s / 200)`,
    );
    locked(await attempt(s, cc(seed.usCc), { source: stranger }));
    assert.equal(verifications, 200, 'refused before any hashing');
    issued(await attempt(s, cc(seed.usCc), { source: owner }));
    s.manual.advance(5);
    assert.equal(
      outcome(await attempt(s, cc({ id: 'ghost-y', secret: 'x' }), { source: stranger })),
      'invalid_client',
      'the budget refills over the window',
    );
  });

  void test('input that cannot be a client id or username: refused like an unknown one, with no lookup, hashing or record', async () => {
    let verifications = 0;
    const verify = s.hasher.verify.bind(s.hasher);
    s.hasher.verify = async (secret, hash) => {
      verifications += 1;
      return verify(secret, hash);
    };
    const long = 'a'.repeat(60_000);
    for (const id of [long, 'a'.repeat(129), 'with space', 'ümlaut', 'semi;colon', 'nul\u0000']) {
      const a = await attempt(s, cc({ id, secret: 'x' }), { source: stranger });
      assert.equal(outcome(a), 'invalid_client', JSON.stringify(id.slice(0, 20)));
    }
    for (const username of [`acme\\${long}`, 'dave', 'acme\\', '\\dave', 'a\\b\\c', 'acme\\da\u0007ve']) {
      assert.equal(
        outcome(await attempt(s, pw(seed.usPw, { username, password: 'x' }), { source: stranger })),
        'invalid_grant',
        JSON.stringify(username.slice(0, 20)),
      );
    }
    // The client's own verification (us-pw-client) for the password grants, and nothing else.
    assert.equal(verifications, 6);
    assert.equal(await s.store.findFailedAttempts({ kind: 'client', name: long, source: stranger }), undefined);
    assert.equal(await (s.store as SqliteStore).trimFailedAttempts(0), 0, 'no failed-attempt row at all');
  });
});
