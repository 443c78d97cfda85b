// Concurrency against real processes over loopback HTTP: of 100 parallel uses of one refresh token
// exactly one succeeds, with one server process and with two processes sharing one data file
// (the single conditional UPDATE of the store decides, not the process). The brute-force counts
// live in that file too: failures spread over both processes lock a user and a client on both.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Agent } from 'undici';
import { clientFields, seed } from '../demo-credentials.ts';
import {
  agent,
  form,
  seededStoreFile,
  send,
  startServer,
  US_TOKEN,
  type Answer,
  type ServerProcess,
} from './support/server-process.ts';

const client = clientFields(seed.usPw);
const PARALLEL = 100;

void describe('100 parallel refreshes of one refresh token', () => {
  let store: Awaited<ReturnType<typeof seededStoreFile>>;
  let a: ServerProcess;
  let b: ServerProcess;
  let http: Agent;
  before(async () => {
    store = await seededStoreFile();
    const lockout = ['--lockout-user', '4', '--lockout-client', '4'];
    [a, b] = await Promise.all([
      startServer(['--data', store.file, ...lockout]),
      startServer(['--data', store.file, ...lockout]),
    ]);
    http = agent(PARALLEL + 8);
  });
  after(async () => {
    await http.close();
    await Promise.all([a.stop(), b.stop()]);
    store.remove();
  });

  async function passwordGrant(server: ServerProcess, username: string, password: string): Promise<string> {
    const r = await send(
      http,
      `${server.baseUrl}${US_TOKEN}`,
      form({ grant_type: 'password', ...client, username, password }),
    );
    assert.equal(r.status, 200, r.body);
    return String(r.json?.refresh_token);
  }

  function assertExactlyOne(answers: Answer[]): Answer {
    const statuses = new Map<number, number>();
    for (const r of answers) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    assert.deepEqual([...statuses.keys()].sort(), [200, 400], `statuses: ${JSON.stringify([...statuses])}`);
    assert.equal(statuses.get(200), 1, 'exactly one success');
    for (const r of answers.filter((x) => x.status === 400)) assert.equal(r.json?.error, 'invalid_grant', r.body);
    return answers.find((r) => r.status === 200)!;
  }

  void test('one process: exactly one 200, 99 invalid_grant', async () => {
    const rt = await passwordGrant(a, seed.dave.username, seed.dave.password);
    const answers = await Promise.all(
      Array.from({ length: PARALLEL }, () =>
        send(http, `${a.baseUrl}${US_TOKEN}`, form({ grant_type: 'refresh_token', ...client, refresh_token: rt })),
      ),
    );
    const winner = assertExactlyOne(answers);
    assert.equal(typeof winner.json?.refresh_token, 'string');
  });

  void test('two processes sharing one data file: exactly one 200 across both', async () => {
    // Warm the secret cache of B (A's is warm from the grant) so that the race is the refresh itself.
    assert.equal(
      (await send(http, `${b.baseUrl}${US_TOKEN}`, form({ grant_type: 'client_credentials', ...client }))).status,
      200,
    );
    const rt = await passwordGrant(a, seed.alice.username, seed.alice.password);
    const answers = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) =>
        send(
          http,
          `${(i % 2 === 0 ? a : b).baseUrl}${US_TOKEN}`,
          form({ grant_type: 'refresh_token', ...client, refresh_token: rt }),
        ),
      ),
    );
    const winner = assertExactlyOne(answers);
    // The winner's new refresh token is in the shared file: the other process honours it.
    const next = await send(
      http,
      `${b.baseUrl}${US_TOKEN}`,
      form({ grant_type: 'refresh_token', ...client, refresh_token: String(winner.json?.refresh_token) }),
    );
    assert.equal(
      next.status,
      400,
      "the reuse of the raced token revoked the whole family, including the winner's new token (OI-4)",
    );
    assert.equal(next.json?.error, 'invalid_grant');
  });

  void test('brute force: failures spread over both processes lock a user and a client on both (429, Retry-After)', async () => {
    const user = seed.hank;
    for (let i = 0; i < 4; i += 1) {
      const r = await send(
        http,
        `${(i % 2 === 0 ? a : b).baseUrl}${US_TOKEN}`,
        form({ grant_type: 'password', ...client, username: user.username, password: `wrong-${i}` }),
      );
      assert.equal(r.status, 400, r.body);
    }
    for (const server of [a, b]) {
      const r = await send(http, `${server.baseUrl}${US_TOKEN}`, form({ grant_type: 'password', ...client, ...user }));
      assert.equal(r.status, 429, 'even the right password is refused while locked');
      assert.deepEqual(r.json, {
        error: 'invalid_grant',
        error_description: 'Too many failed attempts; try again later.',
      });
      assert.match(String(r.headers['retry-after']), /^\d+$/);
    }
    const cc = { grant_type: 'client_credentials', client_id: 'us-cc-only-client' };
    for (let i = 0; i < 4; i += 1) {
      const r = await send(
        http,
        `${(i % 2 === 0 ? b : a).baseUrl}${US_TOKEN}`,
        form({ ...cc, client_secret: `wrong-${i}` }),
      );
      assert.equal(r.status, 400, r.body);
    }
    for (const server of [a, b]) {
      const r = await send(http, `${server.baseUrl}${US_TOKEN}`, form({ ...cc, client_secret: seed.usCcOnly.secret }));
      assert.equal(r.status, 429);
      assert.deepEqual(r.json, {
        error: 'invalid_client',
        error_description: 'Too many failed attempts; try again later.',
      });
    }
    const other = await send(
      http,
      `${a.baseUrl}${US_TOKEN}`,
      form({ grant_type: 'client_credentials', ...clientFields(seed.usCc) }),
    );
    assert.equal(other.status, 200, 'another client is not affected');
  });
});
