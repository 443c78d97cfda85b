// The demo credentials of the bundled seed (fixtures/reference-seed.json, the one place they are
// written): tests and their helpers look a client's secret or a user's password up by client id or
// user name, never copy it. A name the seed does not have fails the test file as it loads.
import { readFileSync } from 'node:fs';
import { BUNDLED_SEED } from '../src/config.ts';
import { seedFileSchema, type SeedFile } from '../src/store/seed.ts';

export interface DemoClient {
  id: string;
  secret: string;
}

export interface DemoUser {
  username: string;
  password: string;
}

/** The bundled seed as the server reads it (validated by the same schema). */
export const bundledSeed: SeedFile = seedFileSchema.parse(JSON.parse(readFileSync(BUNDLED_SEED, 'utf8')));

export function demoClient(clientId: string): DemoClient {
  const client = bundledSeed.clients.find((c) => c.clientId === clientId);
  if (!client) throw new Error(`setup: the bundled seed has no client ${clientId}`);
  return { id: client.clientId, secret: client.clientSecret };
}

/** `username` as in the seed: tenant\user. */
export function demoUser(username: string): DemoUser {
  const user = bundledSeed.users.find((u) => u.username === username);
  if (!user) throw new Error(`setup: the bundled seed has no user ${username}`);
  return { username: user.username, password: user.password };
}

/** A client as token-request form fields. */
export const clientFields = (client: DemoClient): { client_id: string; client_secret: string } => ({
  client_id: client.id,
  client_secret: client.secret,
});

/** The seed's clients and users the tests use, by role. */
export const seed = {
  usCc: demoClient('us-cc-client'),
  usReporting: demoClient('us-reporting-client'),
  usUnregistered: demoClient('us-unregistered-client'),
  usPw: demoClient('us-pw-client'),
  usPw2: demoClient('us-pw-client-2'),
  usCcOnly: demoClient('us-cc-only-client'),
  eu: demoClient('eu-cc-client'),
  usProd: demoClient('us-prod-client'),
  usInactive: demoClient('us-inactive-client'),
  alice: demoUser('acme\\alice'),
  bobExpired: demoUser('acme\\bob-expired'),
  carol: demoUser('acme\\carol'),
  dave: demoUser('acme\\dave'),
  erin: demoUser('acme\\erin'),
  gina: demoUser('acme\\gina-inactive'),
  hank: demoUser('acme\\hank-lockable'),
  olivia: demoUser('acme\\olivia-admin'),
  paul: demoUser('acme\\paul-portal'),
  ivy: demoUser('acme\\ivy-portal-lockable'),
} as const;
