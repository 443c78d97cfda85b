// `init`'s command line: its usage, its flags, and the answers they give before the target is asked
// anything. A usage mistake ends `init` here (exit 2), before a request is sent or a file written.
import { existsSync } from 'node:fs';
import { clientNames, userNames } from '../../../core/profile/profile.schema.ts';
import { parseTokenParameterFlags, type ClientTokenParameters } from '../../init/token-parameters-flag.ts';
import type { CommandIo } from '../command-io.ts';
import { parseCommand } from '../parse-command.ts';
import { screaming, type ProfileAnswers } from './render-profile.ts';

const usage = `Usage: token-conformance init --out FILE --name NAME [--auth-url-us URL] [--auth-url-eu URL] [options]

Writes a commented target profile, validates it and prints the \`export\` lines it needs. With no
flags on a terminal it asks for each of them.

  --out FILE             where to write the profile (JSONC); refused if it exists unless --force
  --name NAME            the target's short name (shown in reports)
  --auth-url-us URL      origin of the US token server (no path: the suite appends the token path)
  --auth-url-eu URL      origin of the EU token server
  --base-url URL         origin of the protected APIs behind the gateway
  --ca-file FILE         PEM of a private CA that signs the target's certificate
  --environment ENV      sandbox or production: the environment the credentials belong to
  --local                a local throw-away target (allows http:// addresses)
  --client NAME=ID       a client that exists on the target (repeatable); NAME is one of
                         ${clientNames.join(', ')}
  --user NAME=USERNAME   a user that exists on the target (repeatable, tenant\\user); NAME is one of
                         ${userNames.join(', ')}
  --burnable-user USERNAME
                         a user whose refresh tokens the suite may burn (family revocation, rotation,
                         the lifecycle model); without one those checks SKIP (the outlook names them)
  --token-parameter CLIENT.NAME=VALUE
                         an extra form parameter the deployment demands on CLIENT's token requests
                         (repeatable; CLIENT.GRANT.NAME=VALUE for one grant), e.g.
                         usClient.scope=people.read: written as the client's tokenParameters, tried
                         first on the target for each client whose secret is set (verified or not,
                         the output says)
  --person-existing ID   an identifier GET /v1/people/er/{identifier} answers 200 for (with
                         --find-people: a comma-separated list of candidates)
  --person-missing ID    a well-formed identifier with no record (000-5003); optional
  --person-malformed ID  an identifier that is not well formed (000-5001); optional
  --find-people          ask the target: keep the first --person-existing candidate it answers
                         200 for, and derive a missing and a malformed one it answers as the spec
                         says (needs --auth-url-us, --base-url, the usClient and its secret set);
                         a token it refuses is diagnosed (a scope it demands, say) before giving up
  --cc-lifetime SECONDS  expires_in client_credentials tokens must have (expectations.ccLifetime)
  --pw-lifetime SECONDS  expires_in password tokens must have (expectations.pwLifetime)
  --basic                the token endpoints take HTTP Basic client authentication
  --rate-limit S/Q/W     the gateway's rate limits, if known: S calls per second, Q per window of W
                         seconds (e.g. 50/1000/60), or only the numbers known, as spike=S,
                         quota=Q, window=W (e.g. spike=5, or quota=100,window=60; a check that
                         needs one left out SKIPs naming it); also allows load-like checks
  --allow-load           allow load-like checks (bursts within capabilities.load)
  --allow-destructive    allow checks that may lock the lockable user (give one with --user)
  --state FILE           keep obligations between runs in FILE (encrypted): without clock control,
                         the time-dependent checks record what must hold later and a later run
                         settles it (relative to the profile)
  --state-key-env VAR    the environment variable holding the state file's key (default
                         PREFIX + STATE_KEY)
  --env-prefix PREFIX    prefix of the secrets' environment variable names (default: the name in
                         upper case, e.g. STAGING_US_)
  --no-outlook           do not list what the profile will verify (it lists the suite's checks)
  --force                overwrite --out
  --help

Each secret is an environment variable reference ({"env": "PREFIX_<NAME>_SECRET"}); set them
before \`token-conformance run --target FILE\` (or check the profile first with --check-profile).
Interpretations are not declared: the run checks the reference server's choice where the spec is
silent; declare the target's own choices under "interpretations" (profiles/README.md).`;

/** NAME=VALUE pairs of a repeatable flag, each NAME one of `allowed`. */
function pairs(flag: string, values: string[] | undefined, allowed: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const v of values ?? []) {
    const at = v.indexOf('=');
    const name = at < 0 ? v : v.slice(0, at);
    const value = at < 0 ? '' : v.slice(at + 1);
    if (!allowed.includes(name))
      throw new Error(`--${flag} ${v}: '${name}' is not one of ${allowed.join(', ')} (see profiles/README.md)`);
    if (value === '') throw new Error(`--${flag} ${v}: give NAME=${flag === 'client' ? 'CLIENT_ID' : 'USERNAME'}`);
    out.set(name, value);
  }
  return out;
}

const positiveInt = (flag: string, value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(value)) throw new Error(`${flag} must be a positive whole number of seconds (got '${value}')`);
  return Number(value);
};

const rateLimitKeys = { spike: 'spikePerSecond', quota: 'quotaPerWindow', window: 'windowSeconds' } as const;

/** SPIKE/QUOTA/WINDOW, or the numbers known on their own: `spike=5`, `quota=100,window=60`. */
function rateLimitOf(value: string | undefined): ProfileAnswers['rateLimit'] {
  if (value === undefined) return undefined;
  const usage = `--rate-limit must be SPIKE/QUOTA/WINDOW (e.g. 50/1000/60) or any of spike=S, quota=Q, window=W, comma-separated (e.g. spike=5), each a positive whole number (got '${value}')`;
  const m = /^([1-9]\d*)\/([1-9]\d*)\/([1-9]\d*)$/.exec(value);
  if (m) return { spikePerSecond: Number(m[1]), quotaPerWindow: Number(m[2]), windowSeconds: Number(m[3]) };
  const limit: NonNullable<ProfileAnswers['rateLimit']> = {};
  for (const part of value.split(',')) {
    const known = /^\s*(spike|quota|window)=([1-9]\d*)\s*$/.exec(part);
    const field = known ? rateLimitKeys[known[1] as keyof typeof rateLimitKeys] : undefined;
    if (!known || field === undefined || limit[field] !== undefined) throw new Error(usage);
    limit[field] = Number(known[2]);
  }
  return limit;
}

/** Prints `token-conformance init: <message>` to stderr; the exit of a usage mistake (2). */
export const failure =
  (io: CommandIo) =>
  (m: string): number => {
    io.err(`token-conformance init: ${m}`);
    return 2;
  };

/** The parsed flags, and the profile's answers they give (the deployment and the people are asked later). */
export function parseInitArgs(args: string[], io: CommandIo) {
  const fail = failure(io);
  const parsed = parseCommand(
    args,
    {
      out: { type: 'string' },
      name: { type: 'string' },
      'auth-url-us': { type: 'string' },
      'auth-url-eu': { type: 'string' },
      'base-url': { type: 'string' },
      'ca-file': { type: 'string' },
      environment: { type: 'string' },
      local: { type: 'boolean', default: false },
      client: { type: 'string', multiple: true },
      user: { type: 'string', multiple: true },
      'env-prefix': { type: 'string' },
      'burnable-user': { type: 'string' },
      'token-parameter': { type: 'string', multiple: true },
      'person-existing': { type: 'string' },
      'person-missing': { type: 'string' },
      'person-malformed': { type: 'string' },
      'find-people': { type: 'boolean', default: false },
      'cc-lifetime': { type: 'string' },
      'pw-lifetime': { type: 'string' },
      basic: { type: 'boolean', default: false },
      'rate-limit': { type: 'string' },
      'allow-load': { type: 'boolean', default: false },
      'allow-destructive': { type: 'boolean', default: false },
      state: { type: 'string' },
      'state-key-env': { type: 'string' },
      'no-outlook': { type: 'boolean', default: false },
      force: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    usage,
    'init',
    io,
    { allowPositionals: false },
  );
  if (typeof parsed === 'number') return parsed;
  const v = parsed.values;
  if (!v.out) return fail('--out FILE is required (where to write the profile)');
  if (!v.name) return fail("--name NAME is required (the target's short name)");
  if (existsSync(v.out) && !v.force) return fail(`--out: ${v.out} exists; choose another file or add --force`);
  const envPrefix = v['env-prefix'] ?? `${screaming(v.name)}_`;
  let clients: Map<string, string>;
  let users: Map<string, string>;
  let declaredParameters: Map<string, ClientTokenParameters>;
  let answers: Omit<ProfileAnswers, 'name' | 'local' | 'clients' | 'users' | 'envPrefix'>;
  try {
    clients = pairs('client', v.client, clientNames);
    users = pairs('user', v.user, userNames);
    declaredParameters = parseTokenParameterFlags(v['token-parameter']);
    for (const client of declaredParameters.keys())
      if (!clients.has(client))
        throw new Error(`--token-parameter names ${client}, which no --client gives (add --client ${client}=ID)`);
    if (v['burnable-user'] !== undefined) users.set('burnableUser', v['burnable-user']);
    const ccLifetime = positiveInt('--cc-lifetime', v['cc-lifetime']);
    const pwLifetime = positiveInt('--pw-lifetime', v['pw-lifetime']);
    const rateLimit = rateLimitOf(v['rate-limit']);
    answers = {
      ...(ccLifetime !== undefined ? { ccLifetime } : {}),
      ...(pwLifetime !== undefined ? { pwLifetime } : {}),
      ...(rateLimit ? { rateLimit } : {}),
      supportsBasic: v.basic,
      allowLoad: v['allow-load'],
      allowDestructive: v['allow-destructive'],
      ...(v.state !== undefined
        ? { state: { file: v.state, keyEnv: v['state-key-env'] ?? `${envPrefix}STATE_KEY` } }
        : {}),
    };
  } catch (error) {
    return fail((error as Error).message);
  }
  if (v['find-people'] && v['person-existing'] === undefined)
    return fail('--find-people needs --person-existing (candidates for an identifier that exists)');
  if (v['allow-destructive'] && !users.has('lockableUser'))
    io.err(
      'token-conformance init: note: --allow-destructive without a lockableUser (--user lockableUser=…): the lockout check SKIPs all the same',
    );
  const base: ProfileAnswers = {
    name: v.name,
    local: v.local,
    clients,
    users,
    envPrefix,
    ...answers,
    ...(v['auth-url-us'] !== undefined ? { authUrlUs: v['auth-url-us'] } : {}),
    ...(v['auth-url-eu'] !== undefined ? { authUrlEu: v['auth-url-eu'] } : {}),
    ...(v['base-url'] !== undefined ? { baseUrl: v['base-url'] } : {}),
    ...(v['ca-file'] !== undefined ? { caFile: v['ca-file'] } : {}),
    ...(v.environment !== undefined ? { environment: v.environment } : {}),
  };
  return { values: v, out: v.out, base, declaredParameters };
}
