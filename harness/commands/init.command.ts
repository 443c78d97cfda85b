// `npx token-conformance init --out FILE --name NAME --auth-url-us URL … --client usClient=ID …`:
// writes a commented target profile from flags (non-interactive, for CI and scripts), validates
// what it wrote with the same loader `run` uses, and prints the `export` lines of the secrets it
// references. Interpretations are left out: the profile declares nothing it was not told.
// Exit codes: 0 written, 2 bad arguments or a profile that would not load.
import { existsSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { clientNames, userNames } from '../../core/profile/profile.schema.ts';
import { ProfileError, validateProfile } from '../../core/profile/load-profile.ts';
import { parseJsonc } from '../../core/profile/jsonc.ts';
import { processIo, type CommandIo } from './gate.command.ts';

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
  --env-prefix PREFIX    prefix of the secrets' environment variable names (default: the name in
                         upper case, e.g. STAGING_US_)
  --force                overwrite --out
  --help

Each secret is an environment variable reference ({"env": "PREFIX_<NAME>_SECRET"}); set them
before \`token-conformance run --target FILE\` (or check the profile first with --check-profile).
Interpretations are not declared: the run checks the reference server's choice where the spec is
silent; declare the target's own choices under "interpretations" (profiles/README.md).`;

const screaming = (s: string): string => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[^A-Za-z0-9]+/g, '_').toUpperCase().replace(/^_+|_+$/g, '');

/** NAME=VALUE pairs of a repeatable flag, each NAME one of `allowed`. */
function pairs(flag: string, values: string[] | undefined, allowed: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const v of values ?? []) {
    const at = v.indexOf('=');
    const name = at < 0 ? v : v.slice(0, at);
    const value = at < 0 ? '' : v.slice(at + 1);
    if (!allowed.includes(name)) throw new Error(`--${flag} ${v}: '${name}' is not one of ${allowed.join(', ')} (see profiles/README.md)`);
    if (value === '') throw new Error(`--${flag} ${v}: give NAME=${flag === 'client' ? 'CLIENT_ID' : 'USERNAME'}`);
    out.set(name, value);
  }
  return out;
}

export interface InitResult { text: string; exports: string[] }

/** The profile text and the variables it references, from parsed flags. */
export function renderProfile(v: {
  name: string; authUrlUs?: string; authUrlEu?: string; baseUrl?: string; caFile?: string; environment?: string; local: boolean;
  clients: Map<string, string>; users: Map<string, string>; envPrefix: string;
}): InitResult {
  const exports: string[] = [];
  const secret = (name: string, kind: string): string => {
    const variable = `${v.envPrefix}${screaming(name)}_${kind}`;
    exports.push(variable);
    return JSON.stringify({ env: variable });
  };
  const line = (key: string, value: string | undefined, comment: string): string =>
    value === undefined ? `  // "${key}": "…",  ${comment}` : `  ${JSON.stringify(key)}: ${JSON.stringify(value)},  ${comment}`;
  const clients = [...v.clients].map(([n, id]) => `      ${JSON.stringify(n)}: { "clientId": ${JSON.stringify(id)}, "clientSecret": ${secret(n, 'SECRET')} }`);
  const users = [...v.users].map(([n, u]) => `      ${JSON.stringify(n)}: { "username": ${JSON.stringify(u)}, "password": ${secret(n, 'PASSWORD')} }`);
  const text = [
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
    '  // Where the spec is silent the suite checks the reference server\'s choice unless the target',
    '  // declares its own here (keys and values: requirements/interpretations.json). Nothing is',
    '  // declared: add only the choices you know the target makes.',
    '  "interpretations": {}',
    '}',
    '',
  ].filter((l) => l !== '').join('\n') + '\n';
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
    if (answer !== '') args.push(flag, answer);
  };
  await add('--name', 'Target name (shown in reports): ');
  await add('--out', 'Profile file to write (e.g. conformance/staging.jsonc): ');
  await add('--auth-url-us', 'US token server origin, e.g. https://auth-us.example.com (empty: none): ');
  await add('--auth-url-eu', 'EU token server origin (empty: none): ');
  await add('--base-url', 'Protected APIs origin behind the gateway (empty: none): ');
  await add('--environment', 'Environment of the credentials, sandbox or production (empty: not said): ');
  for (const [flag, kind, names] of [['--client', 'clients (NAME=CLIENT_ID', clientNames], ['--user', 'users (NAME=tenant\\user', userNames]] as const) {
    const answer = await ask(`Existing ${kind}, comma-separated; names: ${names.join(', ')}): `);
    for (const pair of answer.split(',').map((p) => p.trim()).filter((p) => p !== '')) args.push(flag, pair);
  }
  return args;
}

export async function initMain(args: string[], io: CommandIo = processIo, ask?: Ask): Promise<number> {
  // No flags on a terminal: ask (the answers become the flags, validated the same way).
  if (args.length === 0 && (ask !== undefined || (process.stdin.isTTY && process.stdout.isTTY))) {
    const terminal = ask === undefined ? terminalAsk() : undefined;
    try {
      args = await askForFlags(ask ?? terminal!.ask);
    } finally {
      terminal?.close();
    }
  }
  return initFromFlags(args, io);
}

function initFromFlags(args: string[], io: CommandIo): Promise<number> {
  const fail = (m: string) => {
    io.err(`token-conformance init: ${m}`);
    return Promise.resolve(2);
  };
  let parsed;
  try {
    parsed = parseArgs({
      args, strict: true, allowPositionals: false,
      options: {
        out: { type: 'string' }, name: { type: 'string' }, 'auth-url-us': { type: 'string' }, 'auth-url-eu': { type: 'string' },
        'base-url': { type: 'string' }, 'ca-file': { type: 'string' }, environment: { type: 'string' }, local: { type: 'boolean', default: false },
        client: { type: 'string', multiple: true }, user: { type: 'string', multiple: true }, 'env-prefix': { type: 'string' },
        force: { type: 'boolean', default: false }, help: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    return fail(`${(error as Error).message}\n\n${usage}`);
  }
  const v = parsed.values;
  if (v.help) {
    io.out(usage);
    return Promise.resolve(0);
  }
  if (!v.out) return fail('--out FILE is required (where to write the profile)');
  if (!v.name) return fail('--name NAME is required (the target\'s short name)');
  if (existsSync(v.out) && !v.force) return fail(`--out: ${v.out} exists; choose another file or add --force`);
  let clients: Map<string, string>;
  let users: Map<string, string>;
  try {
    clients = pairs('client', v.client, clientNames);
    users = pairs('user', v.user, userNames);
  } catch (error) {
    return fail((error as Error).message);
  }
  const { text, exports } = renderProfile({
    name: v.name, local: v.local, clients, users, envPrefix: v['env-prefix'] ?? `${screaming(v.name)}_`,
    ...(v['auth-url-us'] !== undefined ? { authUrlUs: v['auth-url-us'] } : {}),
    ...(v['auth-url-eu'] !== undefined ? { authUrlEu: v['auth-url-eu'] } : {}),
    ...(v['base-url'] !== undefined ? { baseUrl: v['base-url'] } : {}),
    ...(v['ca-file'] !== undefined ? { caFile: v['ca-file'] } : {}),
    ...(v.environment !== undefined ? { environment: v.environment } : {}),
  });
  // Validate before writing, with every referenced variable present: what is checked is the shape.
  try {
    validateProfile(parseJsonc(text), v.out, { env: Object.fromEntries(exports.map((e) => [e, 'set'])) });
  } catch (error) {
    if (error instanceof ProfileError) {
      for (const l of error.message.split('\n')) io.err(l);
      return fail('the flags make a profile that would not load; nothing was written');
    }
    throw error;
  }
  writeFileSync(v.out, text);
  io.out(`wrote ${v.out} (validated). Set its secrets, then check it against the target:`);
  for (const e of exports) io.out(`export ${e}=…`);
  io.out(`npx token-conformance run --target ${v.out} --check-profile`);
  return Promise.resolve(0);
}
