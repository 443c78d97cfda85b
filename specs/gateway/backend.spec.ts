// Gateway codes of the backend behind the gateway: 000-5001 (identifier not well formed), 000-5002
// (the token's user or client was deactivated after issuance), 000-5003 (no record), 000-5004 (a
// route the backend does not implement). Triggers and statuses: OI-14 (each check names its trigger).
import { needs, requirement, test } from '../../fixtures/index.ts';
import { pickTrigger } from '../../fixtures/support/gateway/gateway-trigger.ts';
import { routePath } from '../../fixtures/support/gateway/route-path.ts';

test.describe('gateway: backend answers', () => {
  test(
    'ERR-GW-5001 a protected call with an identifier that is not well formed gets 000-5001',
    requirement('ERR-GW-5001', needs('people', 'person:malformed')),
    async ({ target, api, wire }, testInfo) => {
      const picked = pickTrigger(target, testInfo, '000-5001', 'malformed-identifier');
      const token = await wire.token();
      await picked.answeredWithCode(await api.person('malformed', { token }));
    },
  );

  test(
    'ERR-GW-5003 a protected call with a well-formed identifier that has no record gets 000-5003',
    requirement('ERR-GW-5003', needs('people', 'person:missing')),
    async ({ target, api, wire }, testInfo) => {
      const picked = pickTrigger(target, testInfo, '000-5003', 'missing-identifier');
      const token = await wire.token();
      await picked.answeredWithCode(await api.person('missing', { token }));
    },
  );

  test(
    'ERR-GW-5004 a protected call to a route the backend does not implement gets 000-5004',
    requirement('ERR-GW-5004', needs('people')),
    async ({ target, api, wire }, testInfo) => {
      const picked = pickTrigger(target, testInfo, '000-5004', 'unimplemented-route');
      const token = await wire.token();
      const route = target.profile.resources.unimplementedRoute!;
      await picked.answeredWithCode(await api.request(routePath(target, route), { method: route.method, token }));
    },
  );
});

test.describe('gateway: principal deactivated after issuance (000-5002)', () => {
  test(
    'ERR-GW-5002 a protected call with a password-grant token whose user was deactivated after issuance gets 000-5002',
    requirement('ERR-GW-5002', needs('us', 'people', 'user:burnableUser')),
    async ({ target, tokenClient, api, principals, control }, testInfo) => {
      const picked = pickTrigger(target, testInfo, '000-5002', 'deactivated-user');
      const token = (await tokenClient.obtain.password({ user: 'burnableUser' })).access_token;
      const plain = await api.person('existing', { token });
      control.answered(plain.status === 200, plain.describe(), {
        what: 'the token is accepted while its user is active',
        by: 'BEARER-001',
      });
      await principals.deactivate({ user: 'burnableUser' });
      await picked.answeredWithCode(await api.person('existing', { token }));
    },
  );

  test(
    'ERR-GW-5002 a protected call with a client_credentials token whose client was deactivated after issuance gets 000-5002',
    requirement('ERR-GW-5002', needs('us', 'people', 'client:usCcOnlyClient')),
    async ({ target, tokenClient, api, principals, control }, testInfo) => {
      const picked = pickTrigger(target, testInfo, '000-5002', 'deactivated-client');
      const token = (await tokenClient.obtain.clientCredentials({ client: 'usCcOnlyClient' })).access_token;
      const plain = await api.person('existing', { token });
      control.answered(plain.status === 200, plain.describe(), {
        what: 'the token is accepted while its client is active',
        by: 'BEARER-001',
      });
      await principals.deactivate({ client: 'usCcOnlyClient' });
      await picked.answeredWithCode(await api.person('existing', { token }));
    },
  );
});
