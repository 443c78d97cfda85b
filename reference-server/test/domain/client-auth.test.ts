import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { InvalidClient } from '../../src/domain/errors.ts';
import { attempt, cc, issued, outcome, pw, rt, seed, testServices, type TestServices } from '../helpers.ts';

void describe('client authentication', () => {
  let s: TestServices;
  before(async () => {
    s = await testServices();
  });
  after(() => s.store.close());

  const basicAuth = (client: { id: string; secret: string }) => ({
    kind: 'basic' as const,
    clientId: client.id,
    clientSecret: client.secret,
  });

  void test('form fields and HTTP Basic both authenticate', async () => {
    issued(await attempt(s, cc(seed.usCc)));
    issued(await attempt(s, { grant_type: 'client_credentials' }, { authorization: basicAuth(seed.usCc) }));
    issued(
      await attempt(
        s,
        { grant_type: 'client_credentials', client_id: seed.usCc.id },
        { authorization: basicAuth(seed.usCc) },
      ),
    );
  });

  void test('failures are invalid_client: 400 for form fields, 401 with a challenge for the Authorization header', async () => {
    const form = await attempt(s, cc({ ...seed.usCc, secret: 'wrong-secret-value' }));
    assert.ok(!form.ok && form.error instanceof InvalidClient, 'form: invalid_client');
    assert.equal(form.error.status, 400);
    assert.equal(form.error.challenge, false);
    const header = await attempt(
      s,
      { grant_type: 'client_credentials' },
      { authorization: basicAuth({ ...seed.usCc, secret: 'wrong-secret-value' }) },
    );
    assert.ok(!header.ok && header.error instanceof InvalidClient, 'basic: invalid_client');
    assert.equal(header.error.status, 401);
    assert.equal(header.error.challenge, true);
    const unusable = await attempt(s, cc(seed.usCc), { authorization: { kind: 'unusable' } });
    assert.ok(
      !unusable.ok && unusable.error instanceof InvalidClient && unusable.error.status === 401,
      'unusable header: 401',
    );
  });

  void test('unknown client, wrong secret, case change, trailing space, deactivated, other region, other environment: the same answer', async () => {
    const cases = [
      { id: 'no-such-client', secret: 'whatever-secret-1' },
      { ...seed.usCc, secret: 'wrong-secret-value' },
      { ...seed.usCc, secret: seed.usCc.secret.toUpperCase() },
      { ...seed.usCc, secret: `${seed.usCc.secret} ` },
      seed.usInactive,
      seed.eu,
      seed.usProd,
    ];
    const descriptions = new Set<string>();
    for (const client of cases) {
      const a = await attempt(s, cc(client));
      assert.equal(outcome(a), 'invalid_client', client.id);
      if (!a.ok) descriptions.add(a.error.description);
    }
    assert.equal(descriptions.size, 1);
    assert.equal(outcome(await attempt(s, cc(seed.usCc), { region: 'eu' })), 'invalid_client', 'US credentials at EU');
  });

  void test('missing credentials are invalid_client (OI-13); empty values count as missing', async () => {
    assert.equal(outcome(await attempt(s, { grant_type: 'client_credentials' })), 'invalid_client');
    assert.equal(
      outcome(await attempt(s, { grant_type: 'client_credentials', client_id: seed.usCc.id })),
      'invalid_client',
    );
    assert.equal(
      outcome(await attempt(s, { grant_type: 'client_credentials', client_secret: seed.usCc.secret })),
      'invalid_client',
    );
    assert.equal(outcome(await attempt(s, cc({ ...seed.usCc, secret: '' }))), 'invalid_client');
  });

  void test('Basic plus a body client_secret, or a different body client_id, is invalid_request', async () => {
    assert.equal(outcome(await attempt(s, cc(seed.usCc), { authorization: basicAuth(seed.usCc) })), 'invalid_request');
    assert.equal(
      outcome(
        await attempt(
          s,
          { grant_type: 'client_credentials', client_id: seed.usPw.id },
          { authorization: basicAuth(seed.usCc) },
        ),
      ),
      'invalid_request',
    );
  });

  void test('one client never speaks for another: a body client_id naming another client than Basic on every grant, another client secret as form fields or by Basic', async () => {
    const refreshToken = issued(await attempt(s, pw(seed.usPw, seed.alice))).refresh_token!;
    const mismatches: { basicAs: { id: string; secret: string }; params: Record<string, string> }[] = [
      { basicAs: seed.usCc, params: { grant_type: 'client_credentials', client_id: seed.usCcOnly.id } },
      {
        basicAs: seed.usPw,
        params: {
          grant_type: 'password',
          client_id: seed.usPw2.id,
          username: seed.alice.username,
          password: seed.alice.password,
        },
      },
      {
        basicAs: seed.usPw2,
        params: { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: seed.usPw.id },
      },
    ];
    for (const { basicAs, params } of mismatches)
      assert.equal(
        outcome(await attempt(s, params, { authorization: basicAuth(basicAs) })),
        'invalid_request',
        params.grant_type,
      );
    assert.equal(
      outcome(
        await attempt(
          s,
          { grant_type: 'client_credentials', client_id: seed.eu.id },
          { region: 'eu', authorization: basicAuth(seed.usCc) },
        ),
      ),
      'invalid_request',
      'at EU',
    );
    const crossed = { id: seed.usCcOnly.id, secret: seed.usCc.secret };
    assert.equal(outcome(await attempt(s, cc(crossed))), 'invalid_client', 'form fields');
    const byBasic = await attempt(s, { grant_type: 'client_credentials' }, { authorization: basicAuth(crossed) });
    assert.ok(!byBasic.ok && byBasic.error instanceof InvalidClient && byBasic.error.status === 401, 'by Basic: 401');
    // The refresh token is still its client's: none of the above spent it.
    issued(await attempt(s, rt(seed.usPw, refreshToken)));
  });

  void test('a grant the client may not use is unauthorized_client', async () => {
    assert.equal(outcome(await attempt(s, pw(seed.usCcOnly, seed.alice))), 'unauthorized_client');
    assert.equal(outcome(await attempt(s, rt(seed.usCcOnly, 'x'))), 'unauthorized_client');
    assert.equal(outcome(await attempt(s, cc(seed.usPw2))), 'unauthorized_client');
  });
});
