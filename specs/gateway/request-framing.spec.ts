// Gateway codes of the request line and framing: 000-1000 (a message the gateway cannot frame),
// 000-1001 (Host), 000-1002 (request-target form). These requests cannot be sent by an HTTP
// client, so they are written to the socket as bytes. Each check's trigger is the target's choice
// (OI-14 `triggers`).
import { needs, requirement, test } from '../../fixtures/index.ts';
import { pickTrigger } from '../../fixtures/support/gateway/gateway-trigger.ts';

const personPath = (existing: string) => `/v1/people/er/${encodeURIComponent(existing)}`;

test.describe('gateway: framing (000-1000)', () => {
  test(
    'ERR-GW-1000 a protected GET that carries a body gets 000-1000',
    requirement('ERR-GW-1000', needs('people')),
    async ({ target, wire }, testInfo) => {
      const picked = pickTrigger(target, testInfo, '000-1000', 'get-with-body');
      const token = await wire.token();
      const res = await wire.send({
        requestTarget: personPath(target.profile.resources.people!.existing),
        headers: [
          ['Authorization', `Bearer ${token}`],
          ['Accept', 'application/json'],
          ['Content-Type', 'application/json'],
        ],
        body: '{"conformance":true}',
      });
      await picked.answeredWithCode(res);
    },
  );

  test(
    'ERR-GW-1000 a protected call whose Content-Length values disagree with each other and the body gets 000-1000',
    requirement('ERR-GW-1000', needs('people')),
    async ({ target, wire }, testInfo) => {
      const picked = pickTrigger(target, testInfo, '000-1000', 'conflicting-content-length');
      const token = await wire.token();
      const res = await wire.send({
        requestTarget: personPath(target.profile.resources.people!.existing),
        headers: [
          ['Authorization', `Bearer ${token}`],
          ['Accept', 'application/json'],
          ['Content-Length', '2'],
          ['Content-Length', '7'],
        ],
        body: 'abcd',
      });
      await picked.answeredWithCode(res);
    },
  );
});

test.describe('gateway: Host (000-1001)', () => {
  test(
    'ERR-GW-1001 a protected call without a Host header gets 000-1001',
    requirement('ERR-GW-1001', needs('people')),
    async ({ target, wire }, testInfo) => {
      const picked = pickTrigger(target, testInfo, '000-1001', 'missing-host');
      const token = await wire.token();
      const res = await wire.send({
        requestTarget: personPath(target.profile.resources.people!.existing),
        host: null,
        headers: [
          ['Authorization', `Bearer ${token}`],
          ['Accept', 'application/json'],
        ],
      });
      await picked.answeredWithCode(res);
    },
  );

  test(
    'ERR-GW-1001 a protected call whose Host names a host the gateway does not serve gets 000-1001',
    requirement('ERR-GW-1001', needs('people')),
    async ({ target, control: checkControl, wire }, testInfo) => {
      const picked = pickTrigger(target, testInfo, '000-1001', 'unserved-host');
      const token = await wire.token();
      const control = await wire.send({
        requestTarget: personPath(target.profile.resources.people!.existing),
        headers: [
          ['Authorization', `Bearer ${token}`],
          ['Accept', 'application/json'],
        ],
      });
      checkControl.answered(control.status === 200, control.describe(), {
        what: 'the same call with the Host of {base_url}',
        by: 'BEARER-001',
      });
      const res = await wire.send({
        requestTarget: personPath(target.profile.resources.people!.existing),
        host: 'not-served.conformance.invalid',
        headers: [
          ['Authorization', `Bearer ${token}`],
          ['Accept', 'application/json'],
        ],
      });
      await picked.answeredWithCode(res);
    },
  );
});

test.describe('gateway: request-target (000-1002)', () => {
  test(
    'ERR-GW-1002 a protected call with the asterisk-form request-target (OPTIONS *) gets 000-1002',
    requirement('ERR-GW-1002'),
    async ({ target, wire }, testInfo) => {
      const picked = pickTrigger(target, testInfo, '000-1002', 'asterisk-form');
      const token = await wire.token();
      const res = await wire.send({
        method: 'OPTIONS',
        requestTarget: '*',
        headers: [
          ['Authorization', `Bearer ${token}`],
          ['Accept', 'application/json'],
        ],
      });
      await picked.answeredWithCode(res);
    },
  );

  test(
    'ERR-GW-1002 a protected call with an absolute-form request-target naming a foreign host gets 000-1002',
    requirement('ERR-GW-1002', needs('people')),
    async ({ target, wire }, testInfo) => {
      const picked = pickTrigger(target, testInfo, '000-1002', 'absolute-form-foreign-host');
      const token = await wire.token();
      const foreign = new URL(target.apiUrl(personPath(target.profile.resources.people!.existing)));
      foreign.host = 'foreign.conformance.invalid';
      const res = await wire.send({
        requestTarget: foreign.toString(),
        headers: [
          ['Authorization', `Bearer ${token}`],
          ['Accept', 'application/json'],
        ],
      });
      await picked.answeredWithCode(res);
    },
  );
});
