// Used stays used across a restart (CVE-2026-9802, keycloak #49426: rotated refresh tokens valid
// again after a restart), on both stores: a refresh token is used, the server is stopped (SIGTERM,
// as a redeploy stops it) and started again on the same store; the used token is refused, and the
// unused one that replaced it still refreshes (the restart lost nothing). The suite's
// STATE-RT-USED-003 asks the same of any target; crash.test.ts and the replicas stage do it under
// SIGKILL and load.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { clientFields, seed } from '../demo-credentials.ts';
import { startTestPostgres, type TestPostgres } from '../store/support/embedded-postgres.ts';
import { agent, form, seededStoreFile, send, startServer, US_TOKEN } from './support/server-process.ts';

const client = clientFields(seed.usPw);

async function usedThenRestarted(data: string): Promise<void> {
  const http = agent(2);
  let server = await startServer(['--data', data]);
  try {
    const granted = await send(
      http,
      `${server.baseUrl}${US_TOKEN}`,
      form({ grant_type: 'password', ...client, username: seed.alice.username, password: seed.alice.password }),
    );
    assert.equal(granted.status, 200, `setup: password grant: ${granted.body}`);
    const used = String(granted.json?.refresh_token);
    const refreshed = await send(
      http,
      `${server.baseUrl}${US_TOKEN}`,
      form({ grant_type: 'refresh_token', ...client, refresh_token: used }),
    );
    assert.equal(refreshed.status, 200, `setup: the first refresh: ${refreshed.body}`);
    const unused = String(refreshed.json?.refresh_token);

    await server.stop();
    server = await startServer(['--data', data]);

    const control = await send(
      http,
      `${server.baseUrl}${US_TOKEN}`,
      form({ grant_type: 'refresh_token', ...client, refresh_token: unused }),
    );
    assert.equal(control.status, 200, `the unused refresh token still refreshes after the restart: ${control.body}`);
    const replay = await send(
      http,
      `${server.baseUrl}${US_TOKEN}`,
      form({ grant_type: 'refresh_token', ...client, refresh_token: used }),
    );
    assert.equal(replay.status, 400, `the used refresh token is refused after the restart: ${replay.body}`);
    assert.equal(replay.json?.error, 'invalid_grant');
  } finally {
    await server.stop();
    await http.close();
  }
}

void describe('a used refresh token stays used across a restart on the same store', () => {
  void test('SQLite file', async () => {
    const store = await seededStoreFile();
    try {
      await usedThenRestarted(store.file);
    } finally {
      store.remove();
    }
  });

  void describe('PostgreSQL', () => {
    let postgres: TestPostgres | undefined;
    before(async () => {
      postgres = await startTestPostgres();
    });
    after(async () => {
      await postgres?.stop();
    });
    void test('PostgreSQL database', async () => {
      await usedThenRestarted(await postgres!.createDatabase('restart_used'));
    });
  });
});
