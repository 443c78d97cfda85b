// Crash safety: a server under bounded loopback load (password grants, refresh chains, protected
// calls) is killed with SIGKILL and restarted on the same data file. Nothing it acknowledged is
// lost and nothing it consumed comes back:
//   - every refresh token the client saw a 200 for is in the store;
//   - every refresh token whose refresh was acknowledged (200) is recorded used, and is refused;
//   - every other acknowledged refresh token still works exactly once (200, then invalid_grant);
//   - the registrations (clients, their Data Services role, users) are all there and still work.
// Tokens whose request was in flight at the kill are ambiguous (either outcome is correct) and
// only checked to be in the store.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { describe, test } from 'node:test';
import { clientFields, seed } from '../demo-credentials.ts';
import { agent, form, seededStoreFile, send, startServer, US_TOKEN } from './support/server-process.ts';

const client = clientFields(seed.usPw);
const users = [seed.alice, seed.carol, seed.dave, seed.erin].map((u) => [u.username, u.password] as const);
const WORKERS = 8;
/**
 * The kill comes when the load has produced these events, not after a stretch of wall-clock time
 * (a busy machine serves fewer calls per second; the count of events does not depend on it):
 * every worker has had a refresh acknowledged (so each holds an unused token), this many refreshes
 * were acknowledged in all, and a refresh has just been sent (so the kill meets one on its way).
 */
const REFRESHES_BEFORE_KILL = 24;
/** The gateway's per-client rate limits are not what this test is about. */
const SERVE = ['--rate-spike', '1000000', '--rate-quota', '100000000'];
const CHAIN = 3;

const hash = (token: string) => createHash('sha256').update(token, 'utf8').digest('base64url');

void describe('SIGKILL under load, restart on the same data', () => {
  void test('no acknowledged refresh token or registration lost, no used refresh token revived', async (t) => {
    const store = await seededStoreFile();
    const http = agent(WORKERS * 2);
    const issued = new Set<string>();
    const acknowledgedUsed = new Set<string>();
    const inFlight = new Set<string>();
    let server = await startServer(['--data', store.file, ...SERVE]);
    try {
      const before = new Database(store.file, { readonly: true });
      const registrations = before
        .prepare(
          'SELECT client_id, secret_hash, registration_tenant_id, registration_role, active FROM clients ORDER BY client_id',
        )
        .all();
      const userRows = before
        .prepare('SELECT tenant, user_name, password_hash FROM users ORDER BY tenant, user_name')
        .all();
      before.close();

      let killed = false;
      let calls = 0;
      /** Requests sent and not yet answered, as the client sees them. */
      let outstanding = 0;
      const call = async (url: string, options: Parameters<typeof send>[2]) => {
        outstanding += 1;
        try {
          return await send(http, url, options);
        } finally {
          outstanding -= 1;
        }
      };
      const refreshedBy = new Set<number>();
      let reached!: () => void;
      const loadReached = new Promise<void>((resolve) => {
        reached = resolve;
      });
      const worker = async (w: number) => {
        const [username, password] = users[w % users.length]!;
        while (!killed) {
          let current: string | undefined;
          try {
            const g = await call(
              `${server.baseUrl}${US_TOKEN}`,
              form({ grant_type: 'password', ...client, username, password }),
            );
            calls += 1;
            assert.equal(g.status, 200, g.body);
            current = String(g.json?.refresh_token);
            issued.add(current);
            const people = await call(`${server.baseUrl}/v1/people/er/E-1001`, {
              headers: { authorization: `Bearer ${String(g.json?.access_token)}`, accept: 'application/json' },
            });
            calls += 1;
            assert.equal(people.status, 200, people.body);
            for (let i = 0; i < CHAIN && !killed; i += 1) {
              const used: string = current;
              inFlight.add(used);
              const pending = call(
                `${server.baseUrl}${US_TOKEN}`,
                form({ grant_type: 'refresh_token', ...client, refresh_token: used }),
              );
              if (refreshedBy.size === WORKERS && acknowledgedUsed.size >= REFRESHES_BEFORE_KILL) reached();
              const r = await pending;
              calls += 1;
              assert.equal(r.status, 200, r.body);
              inFlight.delete(used);
              acknowledgedUsed.add(used);
              current = String(r.json?.refresh_token);
              issued.add(current);
              refreshedBy.add(w);
            }
          } catch (error) {
            if (killed) return; // the request the kill cut off: its token stays in inFlight
            throw error;
          }
        }
      };
      // A worker's failure before the kill is the test's failure (kept, not left unhandled).
      const load = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w))).then(
        () => undefined,
        (error: unknown) => error,
      );
      // Killed as soon as the load has reached its events (or at once, when a worker failed first).
      await Promise.race([loadReached, load]);
      killed = true;
      const outstandingAtKill = outstanding;
      const refreshesInFlightAtKill = inFlight.size;
      await server.kill();
      const failure = await load;
      if (failure !== undefined) throw failure instanceof Error ? failure : new Error(JSON.stringify(failure));
      assert.equal((await server.exit).signal, 'SIGKILL');
      // Under load: the kill met requests on their way (sent by a worker, not yet answered), so the
      // process dies mid-traffic and not between calls.
      assert.ok(outstandingAtKill > 0, `setup: the kill met requests in flight (${outstandingAtKill})`);
      assert.ok(refreshesInFlightAtKill > 0, `setup: the kill met refreshes in flight (${refreshesInFlightAtKill})`);
      assert.ok(
        acknowledgedUsed.size >= REFRESHES_BEFORE_KILL,
        `setup: refreshes were acknowledged (${acknowledgedUsed.size})`,
      );

      t.diagnostic(
        `before the kill: ${calls} calls, ${outstandingAtKill} requests in flight, ${issued.size} refresh tokens acknowledged, ${acknowledgedUsed.size} refreshes acknowledged, ${inFlight.size} in flight`,
      );
      server = await startServer(['--data', store.file, ...SERVE]);
      const db = new Database(store.file, { readonly: true });
      try {
        const row = db.prepare('SELECT used_at, revoked_at FROM refresh_tokens WHERE token_hash = ?');
        const missing = [...issued].filter((token) => row.get(hash(token)) === undefined);
        assert.deepEqual(
          missing.length,
          0,
          `${missing.length} of ${issued.size} acknowledged refresh tokens were lost`,
        );
        const revived = [...acknowledgedUsed].filter(
          (token) => (row.get(hash(token)) as { used_at: number | null }).used_at === null,
        );
        assert.equal(
          revived.length,
          0,
          `${revived.length} of ${acknowledgedUsed.size} acknowledged refreshes were rolled back`,
        );
        assert.deepEqual(
          db
            .prepare(
              'SELECT client_id, secret_hash, registration_tenant_id, registration_role, active FROM clients ORDER BY client_id',
            )
            .all(),
          registrations,
        );
        assert.deepEqual(
          db.prepare('SELECT tenant, user_name, password_hash FROM users ORDER BY tenant, user_name').all(),
          userRows,
        );
      } finally {
        db.close();
      }

      // Over HTTP: each unused acknowledged token works exactly once.
      const unused = [...issued].filter((token) => !acknowledgedUsed.has(token) && !inFlight.has(token));
      assert.ok(unused.length >= WORKERS - inFlight.size, `setup: unused tokens to check (${unused.length})`);
      for (const token of unused) {
        const first = await send(
          http,
          `${server.baseUrl}${US_TOKEN}`,
          form({ grant_type: 'refresh_token', ...client, refresh_token: token }),
        );
        assert.equal(first.status, 200, `an acknowledged, unused refresh token works after the restart: ${first.body}`);
        const second = await send(
          http,
          `${server.baseUrl}${US_TOKEN}`,
          form({ grant_type: 'refresh_token', ...client, refresh_token: token }),
        );
        assert.equal(second.status, 400, 'and only once');
      }
      // A sample of the used ones, end to end.
      for (const token of [...acknowledgedUsed].slice(0, 20)) {
        const r = await send(
          http,
          `${server.baseUrl}${US_TOKEN}`,
          form({ grant_type: 'refresh_token', ...client, refresh_token: token }),
        );
        assert.equal(r.status, 400, 'a used refresh token stays used');
        assert.equal(r.json?.error, 'invalid_grant');
      }
      // The registrations work: a client_credentials token and a call the registration authorizes.
      const cc = await send(
        http,
        `${server.baseUrl}${US_TOKEN}`,
        form({ grant_type: 'client_credentials', ...clientFields(seed.usCc) }),
      );
      assert.equal(cc.status, 200, cc.body);
      const people = await send(http, `${server.baseUrl}/v1/people/er/E-1001`, {
        headers: { authorization: `Bearer ${String(cc.json?.access_token)}`, accept: 'application/json' },
      });
      assert.equal(people.status, 200, people.body);
    } finally {
      await http.close();
      await server.stop();
      store.remove();
    }
  });
});
