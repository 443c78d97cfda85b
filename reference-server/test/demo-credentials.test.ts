// The seed is the one source of the demo credentials; the reference profile (profiles/reference.json,
// the suite's view of this server) has to state them again, since a profile holds its secrets as
// values or environment variables. This keeps that copy equal to the seed.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { PACKAGE_ROOT } from '../src/config.ts';
import { demoClient, demoUser } from './demo-credentials.ts';

interface ProfileSecret {
  value?: string;
  env?: string;
}
interface ReferenceProfile {
  credentials: {
    clients: Record<string, { clientId: string; clientSecret: ProfileSecret }>;
    users: Record<string, { username: string; password: ProfileSecret }>;
  };
}

const profile = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'profiles', 'reference.json'), 'utf8')) as ReferenceProfile;

void describe('the reference profile and the seed', () => {
  void test("every client and user the reference profile names has the seed's secret", () => {
    const clients = Object.entries(profile.credentials.clients);
    const users = Object.entries(profile.credentials.users);
    assert.ok(clients.length > 0 && users.length > 0, 'setup: the profile names clients and users');
    for (const [name, client] of clients)
      assert.equal(client.clientSecret.value, demoClient(client.clientId).secret, `credentials.clients.${name}`);
    for (const [name, user] of users)
      assert.equal(user.password.value, demoUser(user.username).password, `credentials.users.${name}`);
  });
});
