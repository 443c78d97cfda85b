// The demo credentials of the reference server, read from its bundled seed
// (fixtures/reference-seed.json, the one place they are written): the bench, the soak and the fuzz
// stage look a secret up by client id or user name. bench/ never imports reference-server/, so this
// reads the file itself; a name the seed does not have fails at load.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface SeedShape {
  clients: { clientId: string; clientSecret: string }[];
  users: { username: string; password: string }[];
}

const seedFile = join(import.meta.dirname, '..', '..', 'fixtures', 'reference-seed.json');
const seed = JSON.parse(readFileSync(seedFile, 'utf8')) as SeedShape;

/** A seed client as token-request form fields. */
export function seedClient(clientId: string): { client_id: string; client_secret: string } {
  const client = seed.clients.find((c) => c.clientId === clientId);
  if (!client) throw new Error(`${seedFile} has no client ${clientId}`);
  return { client_id: client.clientId, client_secret: client.clientSecret };
}

/** A seed user (`tenant\user`) as password-grant form fields. */
export function seedUser(username: string): { username: string; password: string } {
  const user = seed.users.find((u) => u.username === username);
  if (!user) throw new Error(`${seedFile} has no user ${username}`);
  return { username: user.username, password: user.password };
}
