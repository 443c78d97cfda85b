// A deliberately broken target for trying the CI gate by hand: the bundled reference server behind
// the self-validation's fault-injecting proxy (self-validation/proxy.ts) with ONE fault of
// its catalogue (self-validation/faults/). It writes a local profile pointing at the proxy,
// prints one line when ready and runs until Ctrl-C.
//
//   node --import tsx examples/broken-target/serve-broken-target.ts --fault get-answered-404 --profile /tmp/broken.json
//   npx token-conformance run --target /tmp/broken.json --grep @token-requests --reports reports/planted
//
// The profile holds the reference seed's public demo secrets (it is marked local, written 0600).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../../core/catalogue/catalogue.ts';
import { loadProfile } from '../../core/profile/load-profile.ts';
import type { TargetProfile } from '../../core/profile/profile.schema.ts';
import { applyListening, startReferenceServers } from '../../harness/reference/start-reference.ts';
import type { FaultEnv } from '../../self-validation/fault.ts';
import { faults } from '../../self-validation/faults/index.ts';
import { startProxy } from '../../self-validation/proxy.ts';

const usage = `Usage: node --import tsx examples/broken-target/serve-broken-target.ts --fault ID --profile FILE

  --fault ID      a fault of self-validation/faults (--list shows them)
  --profile FILE  where to write the profile of the broken target
  --list          list the faults and exit`;

/** The reference profile with every address of the upstream origin replaced by the proxy's. */
export function brokenTargetProfile(
  base: TargetProfile,
  upstream: string,
  proxyUrl: string,
  caFile: string,
  faultId: string,
): TargetProfile {
  const swap = (url: string | undefined) =>
    url && new URL(url).origin === upstream ? `${proxyUrl}${url.slice(upstream.length)}` : url;
  const p: TargetProfile = structuredClone(base);
  p.name = `reference-with-fault-${faultId}`;
  for (const key of ['authUrlUs', 'authUrlEu', 'baseUrl'] as const) if (p[key]) p[key] = swap(p[key]);
  if (p.capabilities.clockControlUrl) p.capabilities.clockControlUrl = swap(p.capabilities.clockControlUrl);
  if (p.capabilities.faultControlUrl) p.capabilities.faultControlUrl = swap(p.capabilities.faultControlUrl);
  delete p.plainHttpUrl;
  p.caFile = caFile;
  return p;
}

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { fault: { type: 'string' }, profile: { type: 'string' }, list: { type: 'boolean', default: false } },
  });
  if (values.list) {
    for (const f of faults) console.log(`${f.id.padEnd(40)} ${f.title} (breaks ${f.breaks.join(' ')})`);
    return 0;
  }
  const fault = faults.find((f) => f.id === values.fault);
  if (!fault || !values.profile) {
    console.error(!values.profile ? usage : `unknown fault '${values.fault}' (--list shows them)\n\n${usage}`);
    return 2;
  }
  const loaded = loadProfile(join(repoRoot, 'profiles', 'reference.json'));
  const temp = mkdtempSync(join(tmpdir(), 'token-conformance-broken-'));
  const servers = await startReferenceServers({ logDir: temp, profile: loaded.profile });
  const listening = servers.server.listening;
  const upstream = new URL(listening.authUrlUs).origin;
  const secret = (path: string) => loaded.secrets.find((s) => s.path === path)?.value ?? '';
  const env: FaultEnv = {
    clients: Object.fromEntries(
      Object.entries(loaded.profile.credentials.clients)
        .filter(([, c]) => c)
        .map(([n, c]) => [n, { clientId: c.clientId, clientSecret: secret(`credentials.clients.${n}.clientSecret`) }]),
    ),
    users: Object.fromEntries(
      Object.entries(loaded.profile.credentials.users)
        .filter(([, u]) => u)
        .map(([n, u]) => [n, { username: u.username, password: secret(`credentials.users.${n}.password`) }]),
    ),
    ...(servers.otherEnvironmentToken ? { otherEnvironmentToken: servers.otherEnvironmentToken } : {}),
  };
  const proxy = await startProxy({
    upstream,
    ...(listening.caFile ? { upstreamCa: readFileSync(listening.caFile, 'utf8') } : {}),
    fault: fault.create(env),
    dir: temp,
  });
  const profile = brokenTargetProfile(
    applyListening(loaded.profile, listening),
    upstream,
    proxy.url,
    proxy.caFile,
    fault.id,
  );
  const file = resolve(values.profile);
  writeFileSync(file, `${JSON.stringify(profile, null, 2)}\n`, { mode: 0o600 });
  console.log(
    JSON.stringify({ event: 'ready', fault: fault.id, breaks: fault.breaks, proxy: proxy.url, profile: file }),
  );
  await new Promise<void>((done) => {
    process.once('SIGINT', () => done());
    process.once('SIGTERM', () => done());
  });
  await proxy.close();
  await servers.stop();
  rmSync(temp, { recursive: true, force: true });
  rmSync(file, { force: true });
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = await main(process.argv.slice(2));
