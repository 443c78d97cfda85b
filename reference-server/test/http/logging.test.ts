// Logs of a full flow (every grant, Basic, failures, credentials in the query) contain no secret,
// password or token.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { createLogger } from '../../src/http/logging.ts';
import { US_TOKEN_PATH } from '../../src/http/token-routes.ts';
import { basic, cc, json, pw, rt, seed, testApp } from '../helpers.ts';

void describe('logs', () => {
  void test('never contain a secret, a password or a token', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const t = await testApp({ logger: createLogger({ level: 'trace', destination: sink }) });
    const secrets: string[] = [
      seed.usPw.secret,
      seed.usCc.secret,
      seed.alice.password,
      'wrong-secret-value',
      'wrong-password-xyz',
    ];
    try {
      const first = json(await t.token(pw(seed.usPw, seed.alice))) as { access_token: string; refresh_token: string };
      const second = json(await t.token(rt(seed.usPw, first.refresh_token))) as {
        access_token: string;
        refresh_token: string;
      };
      await t.token(rt(seed.usPw, first.refresh_token)); // reuse: refused
      const third = json(
        await t.token(
          { grant_type: 'client_credentials' },
          { headers: { authorization: basic(seed.usCc.id, seed.usCc.secret) } },
        ),
      ) as { access_token: string };
      await t.token(cc({ ...seed.usCc, secret: 'wrong-secret-value' }));
      await t.token(pw(seed.usPw, { ...seed.alice, password: 'wrong-password-xyz' }));
      const query = new URLSearchParams({ client_secret: seed.usCc.secret }).toString();
      await t.app.inject({
        method: 'POST',
        url: `${US_TOKEN_PATH}?${query}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=client_credentials',
      });
      await t.app.inject({
        method: 'GET',
        url: '/v1/people/er/E-1001',
        headers: { host: '127.0.0.1', authorization: `Bearer ${third.access_token}`, accept: 'application/json' },
      });
      secrets.push(
        first.access_token,
        first.refresh_token,
        second.access_token,
        second.refresh_token,
        third.access_token,
        basic(seed.usCc.id, seed.usCc.secret).slice(6),
      );
    } finally {
      await t.close();
    }
    const log = lines.join('');
    assert.ok(log.includes('token issued'), 'setup: the flow was logged');
    assert.ok(log.includes('"client_id":"us-pw-client"'), 'client_id may be logged');
    for (const secret of secrets) {
      assert.equal(log.includes(secret), false, `a secret of length ${secret.length} leaked into the logs`);
      assert.equal(log.includes(encodeURIComponent(secret)), false, 'an encoded secret leaked into the logs');
    }
  });
});
