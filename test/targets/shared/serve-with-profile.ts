// Starts an independent target and hands a run what it needs, for a process that may not import
// test/targets/ (the bench): the committed profile with this start's addresses and CA, written to
// DIR/profile.json, and the started secrets under the profile's variable names. Prints one line
//   {"event":"ready","profileFile":"…","env":{NAME:secret,…}}
// (the secrets go to the reading process only, through the pipe), then keeps the target up until
// SIGTERM/SIGINT, when it stops it. Usage:
//   node --import tsx test/targets/shared/serve-with-profile.ts oidc-provider|jmondi-oauth2-server DIR [--behind-proxy]
// (--behind-proxy is handed to the target's start.ts: its gateway is reached through a proxy.)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root, startedProfile, startTarget } from './suite-run.ts';

const [name, dir, ...startArgs] = process.argv.slice(2);
if (!['oidc-provider', 'jmondi-oauth2-server'].includes(name ?? '') || dir === undefined) {
  console.error('usage: serve-with-profile.ts oidc-provider|jmondi-oauth2-server DIR');
  process.exit(2);
}
const here = join(root, 'test', 'targets', name!);
const target = await startTarget(join(here, 'start.ts'), startArgs);
const { profile, env } = startedProfile(join(here, 'profile.jsonc'), target.listening);
const profileFile = join(dir, 'profile.json');
writeFileSync(profileFile, JSON.stringify(profile, null, 2), { mode: 0o600 });
// Only the variables the profile names: the reading process has the rest of its environment.
const names = [
  ...Object.values(profile.credentials.clients).map((c) => c.clientSecret.env),
  ...Object.values(profile.credentials.users).map((u) => u.password.env),
];
const stop = () => void target.stop().finally(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
process.stdout.write(
  `${JSON.stringify({ event: 'ready', profileFile, env: Object.fromEntries(names.map((n) => [n, env[n]])) })}\n`,
);
