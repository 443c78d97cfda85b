// `npx token-conformance register-client`: the operator's side of a registration with the Data
// Services team (spec §5.3): a client for production (or the sandbox) with its tenant id and role,
// written into the data file of a reference server (running or not: SQLite, shared safely). The
// secret is generated and printed once on stdout; only its scrypt hash is stored. Bad options: one
// line on stderr, exit 2; a refused registration (the id is taken): exit 1.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { systemClock } from './clock/system-clock.ts';
import { nodeRandom } from './crypto/random.ts';
import { ScryptSecretHasher } from './crypto/scrypt-hasher.ts';
import type { Environment, GrantType, Region } from './domain/model.ts';
import { registerClientByOperator, type OperatorRegistration } from './domain/portal/operator-registration.ts';
import { PortalRefusal } from './domain/portal/portal-errors.ts';
import { isPostgresUrl, openStore } from './store/open-store.ts';

export function registerClientUsage(): string {
  return [
    'Usage: token-conformance register-client --tenant-id ID --role ROLE --name NAME [options]',
    '',
    'Registers a client application the way the Data Services team does after the registration e-mail',
    '(production clients are never self-registered on the portal). Prints the client_id and the',
    'client_secret once; only a hash of the secret is stored.',
    '',
    'Options:',
    '  --tenant-id ID        the tenant the client is registered for (required)',
    '  --role ROLE           its Data Services role, e.g. people-reader (required)',
    '  --name NAME           a name for the application (required)',
    '  --env ENV             production (default) or sandbox',
    '  --region REGION       us (default) or eu',
    '  --grants LIST         comma-separated: client_credentials (default), password, refresh_token',
    '  --client-id ID        the id to use (letters, digits, -._~; default: generated)',
    "  --data FILE           the server's SQLite file (default ./data/reference-server/<env>.sqlite)",
    '  --json                print {"client_id", "client_secret", ...} as one JSON line',
    '  --help                this text',
  ].join('\n');
}

class UsageError extends Error {}

const grantNames: readonly GrantType[] = ['client_credentials', 'password', 'refresh_token'];

export function parseRegisterClientArgs(
  args: string[],
  cwd: string,
): { registration: OperatorRegistration; dataFile: string; json: boolean } | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        'tenant-id': { type: 'string' },
        role: { type: 'string' },
        name: { type: 'string' },
        env: { type: 'string' },
        region: { type: 'string' },
        grants: { type: 'string' },
        'client-id': { type: 'string' },
        data: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return 'help';
  const required = (name: 'tenant-id' | 'role' | 'name'): string => {
    const value = values[name]?.trim();
    if (!value) throw new UsageError(`--${name} is required`);
    return value;
  };
  const environment = (values.env ?? 'production') as Environment;
  if (environment !== 'production' && environment !== 'sandbox')
    throw new UsageError('--env must be production or sandbox');
  const region = (values.region ?? 'us') as Region;
  if (region !== 'us' && region !== 'eu') throw new UsageError('--region must be us or eu');
  const grants = (values.grants ?? 'client_credentials')
    .split(',')
    .map((g) => g.trim())
    .filter((g) => g !== '');
  const unknown = grants.find((g) => !grantNames.includes(g as GrantType));
  if (unknown !== undefined)
    throw new UsageError(`--grants: unknown grant '${unknown}' (use ${grantNames.join(', ')})`);
  const registration: OperatorRegistration = {
    tenantId: required('tenant-id'),
    role: required('role'),
    name: required('name'),
    environment,
    region,
    grants: grants as GrantType[],
    ...(values['client-id'] !== undefined && { clientId: values['client-id'] }),
  };
  const dataFile =
    values.data === undefined
      ? resolve(cwd, 'data', 'reference-server', `${environment}.sqlite`)
      : values.data === ':memory:' || isPostgresUrl(values.data)
        ? values.data
        : resolve(cwd, values.data);
  // A named store must exist: registering into a new file no server reads would "succeed" uselessly
  // (a typo, or the placeholder FILE from the help).
  if (values.data !== undefined && dataFile !== ':memory:' && !isPostgresUrl(dataFile) && !existsSync(dataFile)) {
    throw new UsageError(
      `--data: no store file at ${dataFile}; give the --data file of a reference server started with \`token-conformance serve --env ${environment} --data FILE\` (serve creates it), or leave --data out for ./data/reference-server/${environment}.sqlite (see register-client --help)`,
    );
  }
  return { registration, dataFile, json: values.json === true };
}

export async function registerClientMain(args: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseRegisterClientArgs>;
  try {
    parsed = parseRegisterClientArgs(args, process.cwd());
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`token-conformance register-client: ${error.message}\n`);
    return 2;
  }
  if (parsed === 'help') {
    process.stdout.write(`${registerClientUsage()}\n`);
    return 0;
  }
  const { registration, dataFile, json } = parsed;
  const store = await openStore(dataFile);
  try {
    const { client, clientSecret } = await registerClientByOperator(
      { store, clock: systemClock, random: nodeRandom, hasher: new ScryptSecretHasher() },
      registration,
    );
    const summary = {
      client_id: client.clientId,
      client_secret: clientSecret,
      environment: client.environment,
      region: client.region,
      grants: client.grants,
      tenant_id: client.registration?.tenantId,
      role: client.registration?.role,
      data: dataFile,
    };
    if (json) {
      process.stdout.write(`${JSON.stringify(summary)}\n`);
    } else {
      process.stdout.write(
        [
          `Registered ${client.environment} client '${client.name}' (${client.region.toUpperCase()}, ${client.grants.join(', ')}) for tenant ${summary.tenant_id}, role ${summary.role}, in ${dataFile}.`,
          `client_id:     ${client.clientId}`,
          `client_secret: ${clientSecret}`,
          'Hand the secret over now: it is not stored and cannot be shown again.',
        ].join('\n') + '\n',
      );
    }
    return 0;
  } catch (error) {
    if (!(error instanceof PortalRefusal)) throw error;
    process.stderr.write(`token-conformance register-client: ${error.problems.join('; ')}\n`);
    return error.problems.some((p) => p.includes('already exists')) ? 1 : 2;
  } finally {
    await store.close();
  }
}
