// Three reference servers on one PostgreSQL behind HAProxy (support/deployment.ts): one truth.
//   - 100 concurrent refreshes of one refresh token, spread over the replicas: exactly 1 succeeds,
//     in every round;
//   - SIGKILL of one replica under refresh load: no acknowledged refresh token lost, no used one
//     revived (the accounting of test/reliability/crash.test.ts), and the others keep answering;
//   - a client deactivated in the shared store is refused by every replica at its next request;
//   - a replica started later serves the tokens the others issued, with the same signing key.
// A stage of its own (`npm test -- replicas`, scripts/test-stages.ts): it needs HAProxy and
// starts real processes. The whole conformance suite through the balancer: suite.check.ts.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { Agent } from 'undici';
import { agent, form, send, US_TOKEN } from '../reliability/support/server-process.ts';
import { haproxyAvailable, startDeployment, type Deployment } from './support/deployment.ts';

const client = { client_id: 'us-pw-client', client_secret: 'us-pw-secret.sandbox~0004' };
const users = [
  ['acme\\alice', 'Alice-pass-2024!'],
  ['acme\\carol', 'Carol-pass-2024!'],
  ['acme\\dave', 'Dave-pass-2024!'],
  ['acme\\erin', 'p+a&s=s%w rd é'],
] as const;
/** The gateway's per-client rate limits are per replica and not what this test is about. */
const SERVE = ['--rate-spike', '1000000', '--rate-quota', '100000000'];
const REPLICAS = 3;
const RACERS = 100;
const ROUNDS = 5;
const hash = (token: string) => createHash('sha256').update(token, 'utf8').digest('base64url');

void describe(
  'three replicas on one PostgreSQL behind HAProxy',
  { skip: !haproxyAvailable() && 'no HAProxy (apt-get install haproxy)' },
  () => {
    let d: Deployment;
    before(async () => {
      d = await startDeployment({ replicas: REPLICAS, serveArgs: SERVE });
    });
    after(() => d.stop());

    const passwordGrant = async (http: Agent, w = 0) => {
      const [username, password] = users[w % users.length]!;
      const g = await send(
        http,
        `${d.baseUrl}${US_TOKEN}`,
        form({ grant_type: 'password', ...client, username, password }),
      );
      assert.equal(g.status, 200, `setup: password grant: ${g.body}`);
      return { access: String(g.json?.access_token), refresh: String(g.json?.refresh_token) };
    };

    void test(`${RACERS} concurrent refreshes of one token over ${REPLICAS} replicas: exactly 1 success, ${ROUNDS} rounds`, async (t) => {
      const figures: string[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        const setupHttp = agent(1);
        const { refresh } = await passwordGrant(setupHttp, round);
        await setupHttp.close();
        // One connection per request: HAProxy deals the connections round-robin over the replicas.
        const http = new Agent({ connections: RACERS, pipelining: 1 });
        const before = await d.connectionsPerReplica();
        const answers = await Promise.all(
          Array.from({ length: RACERS }, () =>
            send(http, `${d.baseUrl}${US_TOKEN}`, {
              ...form({ grant_type: 'refresh_token', ...client, refresh_token: refresh }),
              timeoutMs: 60_000,
            }),
          ),
        );
        await http.close();
        const spread = (await d.connectionsPerReplica()).map((n, i) => n - before[i]!);
        assert.ok(
          spread.every((n) => n > 0),
          `setup: the refreshes reached every replica (${spread.join('/')})`,
        );
        const ok = answers.filter((a) => a.status === 200).length;
        const refused = answers.filter((a) => a.status === 400 && a.json?.error === 'invalid_grant').length;
        figures.push(
          `round ${round + 1}: ${ok} success, ${refused} invalid_grant, connections per replica ${spread.join('/')}`,
        );
        assert.equal(ok, 1, figures.at(-1));
        assert.equal(refused, RACERS - 1, `every other answer is invalid_grant: ${figures.at(-1)}`);
      }
      t.diagnostic(figures.join('; '));
    });

    void test('SIGKILL of one replica under refresh load: no refresh token lost or revived, the others keep answering', async (t) => {
      const WORKERS = 9;
      const REFRESHES_BEFORE_KILL = 30;
      const REFRESHES_AFTER_KILL = 5; // per worker
      const http = new Agent({ connections: WORKERS, pipelining: 1 });
      const issued = new Set<string>();
      const acknowledgedUsed = new Set<string>();
      /** Refreshes whose request was cut off by the kill: either outcome is correct. */
      const ambiguous = new Set<string>();
      let killedAt: number | undefined = undefined;
      let cutOff = 0;
      const afterKill = new Map<number, number>();
      let reached!: () => void;
      const loadReached = new Promise<void>((resolve) => {
        reached = resolve;
      });
      const worker = async (w: number) => {
        while ((afterKill.get(w) ?? 0) < REFRESHES_AFTER_KILL) {
          let current: string;
          try {
            current = (await passwordGrant(http, w)).refresh;
          } catch (error) {
            if (killedAt === undefined || !isTransportError(error)) throw error;
            cutOff += 1;
            continue;
          }
          issued.add(current);
          for (let i = 0; i < 3; i += 1) {
            const used = current;
            let r;
            try {
              r = await send(
                http,
                `${d.baseUrl}${US_TOKEN}`,
                form({ grant_type: 'refresh_token', ...client, refresh_token: used }),
              );
            } catch (error) {
              // Only the kill may cut a request off, and only the requests on the killed replica's connections.
              if (killedAt === undefined || !isTransportError(error)) throw error;
              ambiguous.add(used);
              cutOff += 1;
              break;
            }
            assert.equal(r.status, 200, `refresh answered ${r.status}: ${r.body}`);
            acknowledgedUsed.add(used);
            current = String(r.json?.refresh_token);
            issued.add(current);
            if (killedAt !== undefined) afterKill.set(w, (afterKill.get(w) ?? 0) + 1);
            else if (acknowledgedUsed.size >= REFRESHES_BEFORE_KILL) reached();
          }
        }
      };
      const load = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w))).then(
        () => undefined,
        (error: unknown) => error,
      );
      await Promise.race([loadReached, load]);
      const victim = d.replicas[0]!;
      const before = await d.connectionsPerReplica();
      t.diagnostic(`connections dealt per replica before the kill: ${before.join('/')}`);
      killedAt = acknowledgedUsed.size;
      await victim.kill();
      const failure = await load;
      if (failure !== undefined) throw failure instanceof Error ? failure : new Error(JSON.stringify(failure));
      assert.equal((await victim.exit).signal, 'SIGKILL');
      const after = await d.connectionsPerReplica();
      assert.ok(before[0]! > 0, 'setup: the killed replica had served connections');
      // The workers keep their connections busy: the kill meets the requests of those dealt to the victim.
      assert.ok(cutOff > 0, `setup: the kill met requests in flight (${cutOff})`);
      t.diagnostic(
        `${killedAt} refreshes acknowledged before the kill; ${cutOff} requests cut off by it (${ambiguous.size} refreshes in flight); ` +
          `${WORKERS * REFRESHES_AFTER_KILL} refreshes answered 200 after it by the other replicas; connections per replica after: ${after.map((n, i) => n - before[i]!).join('/')}`,
      );

      // The database: every acknowledged token is there; every acknowledged refresh stayed used.
      const db = new pg.Client({ connectionString: d.databaseUrl });
      await db.connect();
      try {
        const { rows } = await db.query<{ token_hash: string; used_at: string | null }>(
          'SELECT token_hash, used_at FROM refresh_tokens WHERE token_hash = ANY($1)',
          [[...issued].map(hash)],
        );
        const byHash = new Map(rows.map((r) => [r.token_hash, r]));
        const missing = [...issued].filter((token) => !byHash.has(hash(token)));
        assert.equal(missing.length, 0, `${missing.length} of ${issued.size} acknowledged refresh tokens were lost`);
        const revived = [...acknowledgedUsed].filter((token) => byHash.get(hash(token))?.used_at === null);
        assert.equal(
          revived.length,
          0,
          `${revived.length} of ${acknowledgedUsed.size} acknowledged refreshes were rolled back`,
        );
      } finally {
        await db.end();
      }
      // Over HTTP, through the balancer (the survivors): each unused acknowledged token works exactly once.
      const unused = [...issued].filter((token) => !acknowledgedUsed.has(token) && !ambiguous.has(token));
      assert.ok(unused.length > 0, 'setup: unused tokens to check');
      for (const token of unused) {
        const first = await send(
          http,
          `${d.baseUrl}${US_TOKEN}`,
          form({ grant_type: 'refresh_token', ...client, refresh_token: token }),
        );
        assert.equal(first.status, 200, `an acknowledged, unused refresh token works: ${first.body}`);
        const second = await send(
          http,
          `${d.baseUrl}${US_TOKEN}`,
          form({ grant_type: 'refresh_token', ...client, refresh_token: token }),
        );
        assert.equal(second.status, 400, 'and only once');
      }
      for (const token of [...acknowledgedUsed].slice(0, 20)) {
        const r = await send(
          http,
          `${d.baseUrl}${US_TOKEN}`,
          form({ grant_type: 'refresh_token', ...client, refresh_token: token }),
        );
        assert.equal(r.json?.error, 'invalid_grant', 'a used refresh token stays used');
      }
      await http.close();
    });

    void test('a client deactivated in the shared store is refused by every replica from its next request on (no replica keeps a copy)', async () => {
      const http = agent(2);
      const cc = {
        grant_type: 'client_credentials',
        client_id: 'us-cc-client',
        client_secret: 'us-cc-secret.sandbox~0001',
      };
      const g = await send(http, `${d.baseUrl}${US_TOKEN}`, form(cc));
      assert.equal(g.status, 200, `setup: client_credentials: ${g.body}`);
      const call = (replica: { baseUrl: string }) =>
        send(http, `${replica.baseUrl}/v1/people/er/E-1001`, {
          headers: { authorization: `Bearer ${String(g.json?.access_token)}`, accept: 'application/json' },
        });
      const setActive = async (active: boolean) => {
        const db = new pg.Client({ connectionString: d.databaseUrl });
        await db.connect();
        try {
          await db.query('UPDATE clients SET active = $1 WHERE client_id = $2', [active, cc.client_id]);
        } finally {
          await db.end();
        }
      };
      // The replicas still running: the SIGKILL test before this one leaves one dead.
      const running = d.replicas.filter((r) => r.alive());
      assert.ok(running.length >= 2, `setup: at least two replicas running (${running.length})`);
      try {
        for (const replica of running)
          assert.equal((await call(replica)).status, 200, 'setup: every replica serves the client (and has read it)');
        await setActive(false);
        for (const replica of running)
          assert.equal(
            (await call(replica)).json?.code,
            '000-5002',
            `${replica.baseUrl} refuses the deactivated client at once`,
          );
        await setActive(true);
        for (const replica of running)
          assert.equal((await call(replica)).status, 200, `${replica.baseUrl} serves the reactivated client at once`);
      } finally {
        await setActive(true);
        await http.close();
      }
    });

    void test('a replica started later serves the tokens the others issued, with the same key', async () => {
      const http = agent(2);
      const { access, refresh } = await passwordGrant(http);
      const late = await d.startReplica();
      const [jwksLate, jwksBalancer] = await Promise.all([
        send(http, `${late.baseUrl}/.well-known/jwks.json`),
        send(http, `${d.baseUrl}/.well-known/jwks.json`),
      ]);
      assert.equal(jwksLate.status, 200);
      assert.deepEqual(jwksLate.json, jwksBalancer.json, 'one signing key');
      const people = await send(http, `${late.baseUrl}/v1/people/er/E-1001`, {
        headers: { authorization: `Bearer ${access}`, accept: 'application/json' },
      });
      assert.equal(people.status, 200, `the late replica accepts an access token issued by another: ${people.body}`);
      const r = await send(
        http,
        `${late.baseUrl}${US_TOKEN}`,
        form({ grant_type: 'refresh_token', ...client, refresh_token: refresh }),
      );
      assert.equal(r.status, 200, `the late replica refreshes a token issued by another: ${r.body}`);
      const reuse = await send(
        http,
        `${d.baseUrl}${US_TOKEN}`,
        form({ grant_type: 'refresh_token', ...client, refresh_token: refresh }),
      );
      assert.equal(reuse.json?.error, 'invalid_grant', 'and the others know it is used');
      const health = await send(http, `${late.baseUrl}/readyz`);
      assert.deepEqual([health.status, health.json], [200, { status: 'ready' }]);
      await http.close();
    });
  },
);

function isTransportError(error: unknown): boolean {
  const code = (error as { code?: string }).code ?? '';
  return ['UND_ERR_SOCKET', 'ECONNRESET', 'UND_ERR_CLOSED', 'EPIPE', 'ECONNREFUSED'].includes(code);
}
