// Learning the deployment: what it demands of each client's token request, from one token request
// per client whose secret is set now.
import { learnClient, probedGrants, type ClientProbe, type Learned } from '../../init/learn-deployment.ts';
import type { ClientTokenParameters } from '../../init/token-parameters-flag.ts';
import { tokenPoster, tokenUrl } from '../../preflight/token-post.ts';
import type { CommandIo } from '../command-io.ts';
import type { InitDeps } from './init-deps.ts';
import { screaming, type ProfileAnswers } from './render-profile.ts';

/**
 * What the deployment demands of each client's token request (init/learn-deployment.ts): one token
 * request per client whose secret (and, for the password grant, the user's password) is set now.
 */
export async function learnDeployment(
  base: ProfileAnswers,
  declared: Map<string, ClientTokenParameters>,
  io: CommandIo,
  deps: InitDeps,
): Promise<Map<string, Learned>> {
  const env = deps.env ?? process.env;
  const learned = new Map<string, Learned>();
  const unprobed: string[] = [];
  const probes: ClientProbe[] = [];
  for (const [name, clientId] of base.clients) {
    const spec = probedGrants[name];
    const address = spec?.region === 'eu' ? base.authUrlEu : base.authUrlUs;
    const secretVar = `${base.envPrefix}${screaming(name)}_SECRET`;
    const passwordVar = `${base.envPrefix}USER_PASSWORD`;
    const username = base.users.get('user');
    const lacking = !env[secretVar]
      ? `$${secretVar} is not set`
      : spec?.grant === 'password' && (!username || !env[passwordVar])
        ? `the password grant needs --user user=… and $${passwordVar}`
        : undefined;
    if (!spec || !address || lacking !== undefined) {
      if (declared.has(name))
        unprobed.push(
          `  ${name}: tokenParameters written as given, not verified (${lacking ?? 'init asks no token of this client'})`,
        );
      continue;
    }
    probes.push({
      name,
      clientId,
      clientSecret: env[secretVar]!,
      grant: spec.grant,
      tokenUrl: tokenUrl(address, spec.region),
      ...(spec.grant === 'password' ? { user: { username: username!, password: env[passwordVar]! } } : {}),
      ...(declared.has(name) ? { declared: declared.get(name)! } : {}),
    });
  }
  if (probes.length === 0 && unprobed.length === 0) return learned;
  io.out('asked the target for a token per client, as the suite will (what the deployment demands):');
  const poster = (deps.poster ?? ((caFile) => tokenPoster(caFile !== undefined ? { caFile } : {})))(base.caFile);
  try {
    for (const probe of probes) {
      let result: Learned;
      try {
        result = await learnClient(probe, poster, deps.ask);
      } catch (error) {
        result = {
          ...(probe.declared ? { parameters: probe.declared } : {}),
          verified: false,
          lines: [`  ${probe.name}: no answer (${(error as Error).name}): nothing learned`],
        };
      }
      for (const l of result.lines) io.out(l);
      learned.set(probe.name, result);
    }
  } finally {
    await poster.close();
  }
  for (const l of unprobed) io.out(l);
  return learned;
}
