// `npx token-conformance init --out FILE --name NAME --auth-url-us URL … --client usClient=ID …`:
// writes a commented target profile from flags (non-interactive, for CI and scripts) or from the
// answers to its questions (on a terminal), validates what it wrote with the same loader `run`
// uses, prints the `export` lines of the secrets it references, and ends with what the profile
// will let a run verify and what it will SKIP, and why (init/profile-outlook.ts). Everything a full
// run needs or benefits from is asked: people identifiers (which `--find-people` asks the target
// for), lifetimes, Basic support, a burnable user, the state file and its key, rate limits.
// Interpretations are left out: the profile declares nothing it was not told.
// Exit codes: 0 written, 2 bad arguments or a profile that would not load.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseCommand } from './parse-command.ts';
import { clientNames, userNames } from '../../core/profile/profile.schema.ts';
import { ProfileError, validateProfile } from '../../core/profile/load-profile.ts';
import { parseJsonc } from '../../core/profile/jsonc.ts';
import { processIo, type CommandIo } from './command-io.ts';
import { listChecks, type ListedCheck } from './run-selection.ts';
import { loadCatalogue } from '../../core/catalogue/catalogue.ts';
import { outlookLines, profileOutlook } from '../init/profile-outlook.ts';
import { findPeople, type PeopleFound, type PeopleTarget } from '../init/find-people.ts';
import { learnClient, probedGrants, type AskLine, type ClientProbe, type Learned } from '../init/learn-deployment.ts';
import {
  parametersFor,
  parseTokenParameterFlags,
  tokenParametersJson,
  type ClientTokenParameters,
} from '../init/token-parameters-flag.ts';
import { tokenPoster, tokenUrl, type TokenPoster } from '../preflight/token-post.ts';

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

const screaming = (s: string): string =>
  s
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase()
    .replace(/^_+|_+$/g, '');

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

export interface InitResult {
  text: string;
  exports: string[];
}

/** The profile text and the variables it references, from parsed flags. */
export interface ProfileAnswers {
  name: string;
  authUrlUs?: string;
  authUrlEu?: string;
  baseUrl?: string;
  caFile?: string;
  environment?: string;
  local: boolean;
  clients: Map<string, string>;
  users: Map<string, string>;
  envPrefix: string;
  /** Per client: the parameters to write, and whether the target issued a token with them. */
  tokenParameters?: Map<string, { parameters: ClientTokenParameters; verified: boolean }>;
  people?: { existing: string; missing?: string; malformed?: string };
  ccLifetime?: number;
  pwLifetime?: number;
  supportsBasic?: boolean;
  rateLimit?: { spikePerSecond?: number; quotaPerWindow?: number; windowSeconds?: number };
  allowLoad?: boolean;
  allowDestructive?: boolean;
  state?: { file: string; keyEnv: string };
}

export function renderProfile(v: ProfileAnswers): InitResult {
  const exports: string[] = [];
  const secret = (name: string, kind: string): string => {
    const variable = `${v.envPrefix}${screaming(name)}_${kind}`;
    exports.push(variable);
    return JSON.stringify({ env: variable });
  };
  const secretOf = (variable: string): string => {
    exports.push(variable);
    return JSON.stringify({ env: variable });
  };
  const line = (key: string, value: string | undefined, comment: string): string =>
    value === undefined
      ? `  // "${key}": "…",  ${comment}`
      : `  ${JSON.stringify(key)}: ${JSON.stringify(value)},  ${comment}`;
  const clients = [...v.clients].map(([n, id]) => {
    const shaped = v.tokenParameters?.get(n);
    const parameters = shaped ? `, "tokenParameters": ${JSON.stringify(tokenParametersJson(shaped.parameters))}` : '';
    const why = shaped
      ? `      // ${n}: tokenParameters ${shaped.verified ? 'verified by init (the target issued a token with them)' : 'as given, not verified by init'}\n`
      : '';
    return `${why}      ${JSON.stringify(n)}: { "clientId": ${JSON.stringify(id)}, "clientSecret": ${secret(n, 'SECRET')}${parameters} }`;
  });
  const users = [...v.users].map(
    ([n, u]) =>
      `      ${JSON.stringify(n)}: { "username": ${JSON.stringify(u)}, "password": ${secret(n, 'PASSWORD')} }`,
  );
  const stateKey = v.state ? secretOf(v.state.keyEnv) : undefined;
  const text =
    [
      `// Target profile "${v.name}", written by \`token-conformance init\`. Fields: profiles/README.md`,
      '// (in the installed package: node_modules/token-conformance/profiles/README.md).',
      '// Secrets are environment variable references; set them before a run:',
      ...exports.map((e) => `//   export ${e}=…`),
      '{',
      `  "name": ${JSON.stringify(v.name)},`,
      `  "local": ${v.local},  // true only for a throw-away local target (literal secrets, http://)`,
      line('environment', v.environment, '// sandbox | production: the environment the credentials belong to'),
      '  // Origins (no path). An address left out makes its checks NOT_APPLICABLE.',
      line('authUrlUs', v.authUrlUs, '// US token server; /api/v1/auth/oauth2/token is appended'),
      line('authUrlEu', v.authUrlEu, '// EU token server; /oauth2/default/v1/token is appended'),
      line('baseUrl', v.baseUrl, '// the protected APIs behind the gateway (/v1/…)'),
      line('caFile', v.caFile, '// PEM of a private CA (relative to this file); TLS is always verified'),
      '  // The clients and users that exist on the target; a check needing one that is absent SKIPs',
      '  // and names it. Names: profiles/README.md, "Clients" and "Users".',
      '  "credentials": {',
      '    "clients": {',
      clients.join(',\n'),
      '    },',
      '    "users": {',
      users.join(',\n'),
      '    }',
      '  },',
      '  // Identifiers for GET /v1/people/er/{identifier}: without them the gateway and bearer checks SKIP.',
      ...(v.people && (v.people.missing === undefined || v.people.malformed === undefined)
        ? [
            `  // Without ${[v.people.missing === undefined && 'a missing', v.people.malformed === undefined && 'a malformed'].filter(Boolean).join(' or ')} identifier, the checks that need one SKIP naming the field.`,
          ]
        : []),
      v.people
        ? `  "resources": { "people": ${JSON.stringify(v.people).replace(/,"/g, ', "').replace(/":/g, '": ')} },`
        : '  // "resources": { "people": { "existing": "…", "missing": "…", "malformed": "…" } },',
      '  "capabilities": {',
      `    "supportsBasic": ${v.supportsBasic === true},  // the token endpoints take HTTP Basic client authentication`,
      // Known rate limits are checked by passing them: the budget leaves room for a burst past the spike and one window's quota.
      v.rateLimit
        ? `    "load": { "allowed": true, ${rateLimitLoad(v.rateLimit)} },  // load-like checks (bursts), within this budget`
        : `    "load": { "allowed": ${v.allowLoad === true} },  // load-like checks (bursts) within maxRequestsPerSecond / maxRequests (default 10/s, 200)`,
      `    "destructive": { "allowed": ${v.allowDestructive === true} },  // checks that may lock the lockable user`,
      v.rateLimit
        ? `    "rateLimit": ${JSON.stringify(v.rateLimit).replace(/,"/g, ', "').replace(/":/g, '": ')}`
        : '    // "rateLimit": { "spikePerSecond": …, "quotaPerWindow": …, "windowSeconds": … }  // when known',
      '    // "clockControlUrl": "…"  // a test clock: the time-dependent checks run at once',
      '  },',
      '  // Token lifetimes the target must issue (expires_in); left out, any positive lifetime passes.',
      `  "expectations": { ${[v.ccLifetime !== undefined ? `"ccLifetime": ${v.ccLifetime}` : '', v.pwLifetime !== undefined ? `"pwLifetime": ${v.pwLifetime}` : ''].filter(Boolean).join(', ')} },`,
      ...(v.state
        ? [
            '  // Obligations without clock control: a run records what must hold later, a later run settles it.',
            `  "state": { "file": ${JSON.stringify(v.state.file)}, "key": ${stateKey!} },`,
          ]
        : ['  // "state": { "file": "staging.state", "key": { "env": "…" } },  // verifies expiry over several runs']),
      "  // Where the spec is silent the suite checks the reference server's choice unless the target",
      '  // declares its own here (keys and values: requirements/interpretations.json). Nothing is',
      '  // declared: add only the choices you know the target makes.',
      '  "interpretations": {}',
      '}',
      '',
    ]
      .filter((l) => l !== '')
      .join('\n') + '\n';
  return { text, exports };
}

/** Asks one question, returns the answer (trimmed; empty for "leave it out"). */
export type Ask = (question: string) => Promise<string>;

/** Questions on a terminal, for what the flags did not give (`init` with no flags on a TTY). */
function terminalAsk(): { ask: Ask; close: () => void } {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  return { ask: async (q) => (await rl.question(q)).trim(), close: () => rl.close() };
}

/** The flags a user would have typed, from answers to questions. */
export async function askForFlags(ask: Ask): Promise<string[]> {
  const args: string[] = [];
  const add = async (flag: string, question: string) => {
    const answer = await ask(question);
    // FLAG=VALUE: an answer may begin with a dash (a malformed identifier such as -E1001).
    if (answer !== '') args.push(`${flag}=${answer}`);
  };
  const yes = async (flag: string, question: string) => {
    if (/^y(es)?$/i.test(await ask(`${question} [y/N] `))) args.push(flag);
  };
  await add('--name', 'Target name (shown in reports): ');
  await add('--out', 'Profile file to write (e.g. conformance/staging.jsonc): ');
  await add('--auth-url-us', 'US token server origin, e.g. https://auth-us.example.com (empty: none): ');
  await add('--auth-url-eu', 'EU token server origin (empty: none): ');
  await add('--base-url', 'Protected APIs origin behind the gateway (empty: none): ');
  await add('--environment', 'Environment of the credentials, sandbox or production (empty: not said): ');
  for (const [flag, kind, names] of [
    ['--client', 'clients (NAME=CLIENT_ID', clientNames],
    ['--user', 'users (NAME=tenant\\user', userNames.filter((n) => n !== 'burnableUser')],
  ] as const) {
    const answer = await ask(`Existing ${kind}, comma-separated; names: ${names.join(', ')}): `);
    for (const pair of answer
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== ''))
      args.push(flag, pair);
  }
  const shaped = await ask(
    'Extra token parameters the deployment demands, CLIENT.NAME=VALUE comma-separated (e.g. usClient.scope=people.read; empty: none — init asks the target when a secret is set): ',
  );
  for (const pair of shaped
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== ''))
    args.push('--token-parameter', pair);
  await add(
    '--burnable-user',
    'A user whose refresh tokens the suite may burn, tenant\\user (empty: none — the refresh-token family checks then SKIP): ',
  );
  await add(
    '--person-existing',
    'A person identifier GET /v1/people/er/{identifier} answers 200 for (comma-separated candidates; empty: none — the gateway checks then SKIP): ',
  );
  if (args.some((a) => a.startsWith('--person-existing='))) {
    await yes(
      '--find-people',
      'Ask the target to check it and to find a missing and a malformed identifier (needs the usClient secret set now)?',
    );
    if (!args.includes('--find-people')) {
      await add('--person-missing', 'A well-formed identifier with no record (000-5003): ');
      await add('--person-malformed', 'An identifier that is not well formed (000-5001): ');
    }
  }
  await add('--cc-lifetime', 'expires_in of client_credentials tokens, in seconds, if fixed (empty: not checked): ');
  await add('--pw-lifetime', 'expires_in of password tokens, in seconds, if fixed (empty: not checked): ');
  await yes('--basic', 'Do the token endpoints take HTTP Basic client authentication?');
  await add(
    '--rate-limit',
    'Gateway rate limits, if known: calls per second/per window/window seconds, e.g. 50/1000/60, or only the known ones, e.g. spike=5 or quota=100,window=60 (empty: unknown): ',
  );
  await add(
    '--state',
    'A state file for the time-dependent checks without clock control, e.g. conformance/staging.state (empty: none — they SKIP): ',
  );
  if (args.some((a) => a.startsWith('--state=')))
    await add('--state-key-env', 'The environment variable holding its key (empty: PREFIX_STATE_KEY): ');
  return args;
}

export interface InitDeps {
  /** The suite's checks with their annotations (Playwright's listing); injectable for tests. */
  listChecks?: () => Promise<ListedCheck[]>;
  /** Asks the target for people identifiers; injectable for tests. */
  findPeople?: (
    t: PeopleTarget,
    given: { existing?: string[]; missing?: string; malformed?: string },
  ) => Promise<PeopleFound>;
  /** The token requests of the deployment probe; injectable for tests. */
  poster?: (caFile: string | undefined) => TokenPoster;
  /** A question on the terminal (the deployment probe asks what a refusal points to); absent: no questions. */
  ask?: AskLine;
  env?: NodeJS.ProcessEnv;
}

export async function initMain(
  args: string[],
  io: CommandIo = processIo,
  ask?: Ask,
  deps: InitDeps = {},
): Promise<number> {
  // No flags on a terminal: ask (the answers become the flags, validated the same way).
  if (args.length === 0 && (ask !== undefined || (process.stdin.isTTY && process.stdout.isTTY))) {
    const terminal = ask === undefined ? terminalAsk() : undefined;
    try {
      const questions = ask ?? terminal!.ask;
      args = await askForFlags(questions);
      // The deployment probe may ask what a refused token request demands, on the same terminal.
      return await initFromFlags(args, io, { ask: questions, ...deps });
    } finally {
      terminal?.close();
    }
  }
  return initFromFlags(args, io, deps);
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

/** A load budget that passes the declared limits: a burst past the spike, one window's quota at the checks' pace. */
function rateLimitLoad(r: NonNullable<ProfileAnswers['rateLimit']>): string {
  const spike = r.spikePerSecond ?? 0;
  const quota = r.quotaPerWindow ?? 0;
  const quotaPace = r.windowSeconds !== undefined ? Math.ceil((quota + 1) / r.windowSeconds) : 0;
  const perSecond = Math.max(2 * spike, quota > 0 ? quotaPace : 0) + 10;
  return `"maxRequestsPerSecond": ${perSecond}, "maxRequests": ${2 * quota + 4 * spike + 200}`;
}

async function initFromFlags(args: string[], io: CommandIo, deps: InitDeps): Promise<number> {
  const fail = (m: string) => {
    io.err(`token-conformance init: ${m}`);
    return 2;
  };
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
  const probing = v['find-people'] || declaredParameters.size > 0 || deps.ask !== undefined;
  const learned = probing ? await learnDeployment(base, declaredParameters, io, deps) : new Map<string, Learned>();
  const tokenParameters = new Map<string, { parameters: ClientTokenParameters; verified: boolean }>();
  for (const [client, parameters] of declaredParameters) tokenParameters.set(client, { parameters, verified: false });
  for (const [client, l] of learned)
    if (l.parameters) tokenParameters.set(client, { parameters: l.parameters, verified: l.verified });
  if (tokenParameters.size > 0) base.tokenParameters = tokenParameters;
  const people = await peopleOf(v, base, io, deps);
  if (typeof people === 'number') return people;
  const { text, exports } = renderProfile({ ...base, ...(people ? { people } : {}) });
  // Validate before writing, with every referenced variable present: what is checked is the shape.
  let loaded;
  try {
    loaded = validateProfile(parseJsonc(text), v.out, {
      env: Object.fromEntries(exports.map((e) => [e, 'set-for-validation-only'])),
    });
  } catch (error) {
    if (error instanceof ProfileError) {
      for (const l of error.message.split('\n')) io.err(l);
      return fail('the flags make a profile that would not load; nothing was written');
    }
    throw error;
  }
  try {
    mkdirSync(dirname(resolve(v.out)), { recursive: true });
    writeFileSync(v.out, text);
  } catch (error) {
    return fail(
      `--out ${v.out}: ${(error as NodeJS.ErrnoException).code ?? ''} ${(error as Error).message}`.replace(/\s+/g, ' '),
    );
  }
  io.out(`wrote ${v.out} (validated). Set its secrets, then check it against the target:`);
  for (const e of exports)
    io.out(
      `export ${e}=…${answers.state?.keyEnv === e ? '  # e.g. $(openssl rand -base64 32), kept with the state file' : ''}`,
    );
  io.out(`npx token-conformance run --target ${v.out} --check-profile`);
  if (!v['no-outlook']) {
    try {
      const checks = await (deps.listChecks ?? (() => listChecks([], process.env)))();
      io.out('');
      for (const l of outlookLines(
        profileOutlook(
          loaded.profile,
          checks,
          loadCatalogue().map((r) => r.id),
        ),
      ))
        io.out(l);
    } catch (error) {
      io.err(
        `token-conformance init: note: could not list the suite's checks for the outlook: ${(error as Error).message}`,
      );
    }
  }
  return 0;
}

/**
 * What the deployment demands of each client's token request (init/learn-deployment.ts): one token
 * request per client whose secret (and, for the password grant, the user's password) is set now.
 */
async function learnDeployment(
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

/** resources.people: as given, or as the target answered (--find-people); a number is the exit code of a refusal. */
async function peopleOf(
  v: { 'person-existing'?: string; 'person-missing'?: string; 'person-malformed'?: string; 'find-people': boolean },
  base: ProfileAnswers,
  io: CommandIo,
  deps: InitDeps,
): Promise<ProfileAnswers['people'] | number | undefined> {
  const candidates = (v['person-existing'] ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
  const missing = v['person-missing'];
  const malformed = v['person-malformed'];
  if (candidates.length === 0) {
    if (missing === undefined && malformed === undefined) return undefined;
    io.err(
      'token-conformance init: --person-missing and --person-malformed need --person-existing (the checks that use them call with the existing one too)',
    );
    return 2;
  }
  const given = {
    existing: candidates[0]!,
    ...(missing !== undefined ? { missing } : {}),
    ...(malformed !== undefined ? { malformed } : {}),
  };
  if (!v['find-people']) return given;
  const env = deps.env ?? process.env;
  const client = base.clients.get('usClient');
  const secretVar = `${base.envPrefix}US_CLIENT_SECRET`;
  if (!base.authUrlUs || !base.baseUrl || client === undefined || !env[secretVar]) {
    io.err(
      `token-conformance init: --find-people needs --auth-url-us, --base-url, --client usClient=ID and its secret in $${secretVar} (set it now: init sends one token request and a few GETs)`,
    );
    return 2;
  }
  const shaped = base.tokenParameters?.get('usClient');
  const found = await (deps.findPeople ?? findPeople)(
    {
      authUrlUs: base.authUrlUs,
      baseUrl: base.baseUrl,
      clientId: client,
      clientSecret: env[secretVar],
      ...(shaped ? { tokenParameters: parametersFor(shaped.parameters, 'client_credentials') } : {}),
      ...(base.caFile ? { caFile: base.caFile } : {}),
    },
    {
      existing: candidates,
      ...(missing !== undefined ? { missing } : {}),
      ...(malformed !== undefined ? { malformed } : {}),
    },
  );
  io.out('asked the target for person identifiers (GET /v1/people/er/{identifier}):');
  for (const l of found.lines) io.out(l);
  // What the user gave is kept whatever the target answered: the run judges it; init says what it saw.
  const keptMissing = found.missing ?? missing;
  const keptMalformed = found.malformed ?? malformed;
  const people = {
    existing: found.existing ?? given.existing,
    ...(keptMissing !== undefined ? { missing: keptMissing } : {}),
    ...(keptMalformed !== undefined ? { malformed: keptMalformed } : {}),
  };
  if (found.existing === undefined)
    io.out(
      `  → existing ${given.existing} kept as you gave it: the target did not answer it 200 here (the run's checks say what it does)`,
    );
  const lacking = [
    keptMissing === undefined && 'missing one (a well-formed identifier with no record, 000-5003)',
    keptMalformed === undefined && 'malformed one (an identifier not well formed, 000-5001)',
  ].filter(Boolean);
  io.out(
    `  → resources.people: existing ${people.existing}${keptMissing ? `, missing ${keptMissing}` : ''}${keptMalformed ? `, malformed ${keptMalformed}` : ''}${lacking.length > 0 ? `; no ${lacking.join(', no ')}: the checks that need one SKIP naming it` : ''}`,
  );
  return people;
}
