// A client secret longer than 72 characters is compared in full (AUTH-CLI-011): servers that hash
// secrets with bcrypt compare only the first 72 bytes, so a secret that differs after them passes.
// Needs a client with such a secret (credentials.clients.usLongSecretClient); SKIP without one.
import { choiceLabel, expect, judgedOn, needs, requirement, test } from '../../fixtures/index.ts';

const bcryptLimit = 72;

test.describe('client authentication: a long secret', () => {
  test(
    'AUTH-CLI-011 a client_secret equal to the registered one in its first 72 characters but different after them is refused with invalid_client',
    requirement('AUTH-CLI-011', needs('us', 'client:usLongSecretClient')),
    async ({ tokenClient, target, control }) => {
      const status = target.choice('invalidClientStatus');
      const client = tokenClient.credentials('usLongSecretClient');
      expect(
        client.clientSecret.length,
        `setup: usLongSecretClient's secret is longer than ${bcryptLimit} characters`,
      ).toBeGreaterThan(bcryptLimit);
      await test.step('the registered secret authenticates the client', async () => {
        control.issued(await tokenClient.clientCredentials({ region: 'us', client }), {
          what: 'the long secret as registered',
        });
      });
      // The last character changed (letters and digits stay within the form's unreserved set).
      const last = client.clientSecret.at(-1)!;
      const altered = `${client.clientSecret.slice(0, -1)}${last === 'x' ? 'y' : 'x'}`;
      for (const [label, clientSecret] of [
        ['its last character changed', altered],
        [`cut to its first ${bcryptLimit} characters`, client.clientSecret.slice(0, bcryptLimit)],
      ] as const) {
        await test.step(`the secret ${label}`, async () => {
          const res = await tokenClient.clientCredentials({
            region: 'us',
            client: { clientId: client.clientId, clientSecret },
          });
          await expect(res, `a secret equal in its first ${bcryptLimit} characters, ${label}`).toBeTokenError(
            'invalid_client',
          );
          await judgedOn(status, () =>
            expect(res.status, `${label} (${choiceLabel(status)}) — ${res.describe()}`).toBe(status.value),
          );
        });
      }
    },
  );
});
