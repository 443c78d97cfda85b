// grant_type=client_credentials (spec §2.2, §3 row 1, §4 rows 1-2, §5.2-5.4; RFC 6749 §4.4).
// Every client, address and interpretation comes from the target profile through the fixtures.
import { choiceLabel, expect, judgedOn, needs, requirement, test } from '../../fixtures/index.ts';

/** A scope value no target grants (RFC 6749 §3.3 scope-token syntax). */
const unknownScope = 'token-conformance.unknown-scope';

test.describe('grant_type=client_credentials', () => {
  test(
    'GRANT-CC-001 a US client_credentials request gets a token without refresh_token or scope',
    requirement('GRANT-CC-001', needs('us', 'client:usClient')),
    async ({ tokenClient }) => {
      // The spec's request exactly: a deployment's declared tokenParameters are its deviation from §4 row 1.
      const res = await tokenClient.clientCredentials({ region: 'us', client: 'usClient', specShaped: true });
      await expect(
        res,
        tokenClient.declaredShapingNote('usClient', 'client_credentials', '§4 row 1'),
      ).toBeTokenIssued();
      await expect(res).toSatisfy('GRANT-CC-001');
    },
  );

  test(
    'GRANT-CC-002 an EU client_credentials request gets a token whose scope is exactly empty_default, without refresh_token',
    requirement('GRANT-CC-002', needs('eu', 'client:euClient')),
    async ({ tokenClient }) => {
      const res = await tokenClient.clientCredentials({ region: 'eu', client: 'euClient', specShaped: true });
      await expect(
        res,
        tokenClient.declaredShapingNote('euClient', 'client_credentials', '§4 row 2'),
      ).toBeTokenIssued();
      await expect(res).toSatisfy('GRANT-CC-002');
    },
  );

  test(
    'GRANT-CC-006 a client not registered with Data Services gets the declared outcome (token refused by the gateway, or unauthorized_client)',
    requirement('GRANT-CC-006', needs('us')),
    async ({ tokenClient, api, target, control }) => {
      const declared = target.choice('unregisteredClient');
      if (declared.value !== 'unauthorized_client')
        control.issued(await tokenClient.clientCredentials({ region: 'us', client: 'usClient' }), {
          what: 'the same request by the registered usClient',
        });
      const res = await tokenClient.clientCredentials({ region: 'us', client: 'usUnregisteredClient' });
      if (declared.value === 'unauthorized_client') {
        await judgedOn(declared, () => expect(res, choiceLabel(declared)).toBeTokenError('unauthorized_client'));
        return;
      }
      await test.step(`a token is issued (${choiceLabel(declared)})`, async () => {
        await judgedOn(declared, () => expect(res).toBeTokenIssued());
      });
      // OI-14: a target that declares 000-1100 not produced still refuses the token (§5.3), with a code of its own.
      const notProduced = target.gatewayCodeNotProduced('000-1100');
      await test.step(
        notProduced
          ? 'the gateway refuses the token (000-1100 declared not produced)'
          : 'the gateway refuses the token with 000-1100',
        async () => {
          const call = await api.person('existing', { token: res.accessToken! });
          if (!notProduced) {
            await expect(call).toBeGatewayError('000-1100');
            return;
          }
          expect(
            call.status,
            `the token of an unregistered client is refused (4xx; ${notProduced}) — got ${call.describe()}`,
          ).toBeGreaterThanOrEqual(400);
          expect(
            call.status,
            `the token of an unregistered client is refused (4xx; ${notProduced}) — got ${call.describe()}`,
          ).toBeLessThan(500);
        },
      );
    },
  );

  test(
    'GRANT-CC-007 an EU client_credentials request with an unknown scope value is refused with invalid_scope',
    requirement('GRANT-CC-007', needs('eu', 'client:euClient')),
    async ({ tokenClient }) => {
      const res = await tokenClient.clientCredentials({
        region: 'eu',
        client: 'euClient',
        extra: { scope: unknownScope },
      });
      await expect(res).toBeTokenError('invalid_scope');
    },
  );

  test(
    'GRANT-CC-008 a US client_credentials request with a scope parameter gets the declared outcome (ignored, or invalid_scope)',
    requirement('GRANT-CC-008', needs('us', 'client:usClient')),
    async ({ tokenClient, target, control }) => {
      const declared = target.choice('usClientCredentialsScope');
      const knownScope = target.interpretation('passwordScopes')[0];
      expect(knownScope, 'setup: the target declares at least one scope value (passwordScopes)').toBeTruthy();
      if (declared.value !== 'invalid_scope')
        control.issued(await tokenClient.clientCredentials({ region: 'us', client: 'usClient' }), {
          what: 'the same request without a scope parameter',
        });
      for (const [label, scope] of [
        ['a scope value the target knows', knownScope!],
        ['an unknown scope value', unknownScope],
      ] as const) {
        await test.step(`scope=${label} (${choiceLabel(declared)})`, async () => {
          const res = await tokenClient.clientCredentials({ region: 'us', client: 'usClient', extra: { scope } });
          await judgedOn(declared, async () => {
            if (declared.value === 'invalid_scope') {
              await expect(res).toBeTokenError('invalid_scope');
              return;
            }
            await expect(res).toBeTokenIssued();
            expect(res.body, `the response has no scope — got ${res.describe()}`).not.toHaveProperty('scope');
          });
        });
      }
    },
  );

  test(
    'GRANT-CC-009 credentials of a client registered in the other environment are refused with invalid_client',
    requirement('GRANT-CC-009', needs('us')),
    async ({ tokenClient, target }) => {
      const status = target.choice('invalidClientStatus');
      const res = await tokenClient.clientCredentials({ region: 'us', client: 'otherEnvironmentClient' });
      await expect(res, 'credentials of the other environment').toBeTokenError('invalid_client');
      await judgedOn(status, () => expect(res.status, `${choiceLabel(status)} — ${res.describe()}`).toBe(status.value));
    },
  );

  test(
    "GRANT-CC-010 client credentials of one region at the other region's token endpoint get the declared outcome (invalid_client, or accepted)",
    requirement('GRANT-CC-010', needs('us', 'eu', 'client:usClient', 'client:euClient')),
    async ({ tokenClient, target, control }) => {
      const declared = target.choice('crossRegionCredentials');
      const cases = [
        { label: 'US client credentials at the EU endpoint', region: 'eu', client: 'usClient' },
        { label: 'EU client credentials at the US endpoint', region: 'us', client: 'euClient' },
      ] as const;
      for (const { label, region, client } of cases) {
        await test.step(`${label} (${choiceLabel(declared)})`, async () => {
          if (declared.value === 'accepted')
            control.issued(await tokenClient.clientCredentials({ region }), {
              what: `the same request at ${region.toUpperCase()} with that region's own client`,
              region,
            });
          const res = await tokenClient.clientCredentials({ region, client });
          await judgedOn(declared, async () => {
            if (declared.value === 'accepted') await expect(res).toBeTokenIssued();
            else await expect(res).toBeTokenError('invalid_client');
          });
        });
      }
    },
  );
});
