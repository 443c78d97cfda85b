// `token-conformance serve` options: flags, each with an environment variable; a flag wins over its
// variable. Validated with zod; a bad value gives one line naming the flag (and variable).
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { z } from 'zod';
import { defaultAttemptThrottleSettings, type AttemptThrottleSettings } from './domain/attempt-throttle.ts';
import { defaultTokenSettings } from './domain/settings.ts';
import type { RateLimitSettings } from './gateway/gateway-deps.ts';
import type { Environment } from './domain/model.ts';
import { isPostgresUrl } from './store/open-store.ts';

export const PACKAGE_ROOT = resolve(import.meta.dirname, '..', '..');
export const BUNDLED_SEED = resolve(PACKAGE_ROOT, 'fixtures', 'reference-seed.json');
export const DEFAULT_PORT = 8443;

interface FlagSpec {
  env: string;
  boolean?: true;
  placeholder?: string;
  help: string;
  /** The help's "(default …)" for a default computed at parse time (it is not in serveDefaults). */
  defaultText?: string;
}

/**
 * The default of every option that has a fixed one, stated once: the option schema applies these
 * and the help prints them. The token lifetimes and lockout counts are the domain's own defaults.
 */
export const serveDefaults = {
  host: '127.0.0.1',
  port: DEFAULT_PORT,
  env: 'sandbox',
  synchronous: 'normal',
  'cc-lifetime': defaultTokenSettings.clientCredentialsLifetimeSeconds,
  'pw-lifetime': defaultTokenSettings.passwordLifetimeSeconds,
  'rate-spike': 50,
  'rate-quota': 1000,
  'rate-window': 60,
  'lockout-user': defaultAttemptThrottleSettings.userFailures,
  'lockout-client': defaultAttemptThrottleSettings.clientFailures,
  'lockout-source': defaultAttemptThrottleSettings.sourceFailures,
  'lockout-seconds': defaultAttemptThrottleSettings.lockSeconds,
  'headers-timeout': 10,
  'request-timeout': 30,
  'max-header-size': 16_384,
  'log-level': 'info',
} as const;

export const flagSpecs = {
  host: { env: 'TC_HOST', placeholder: 'HOST', help: 'interface to listen on' },
  port: { env: 'TC_PORT', placeholder: 'PORT', help: 'port; 0 picks a free one' },
  http: { env: 'TC_HTTP', boolean: true, help: 'plain HTTP instead of HTTPS with a generated self-signed certificate' },
  'test-controls': {
    env: 'TC_TEST_CONTROLS',
    boolean: true,
    help: 'enable the /__test/ control routes (clock, gateway faults); refused with --env production',
  },
  data: {
    env: 'TC_DATA',
    placeholder: 'FILE',
    help: 'SQLite file (default ./data/reference-server/<env>.sqlite); :memory: for a throw-away store; postgres://user:pass@host:port/db for a PostgreSQL store that several replicas share',
  },
  env: { env: 'TC_ENV', placeholder: 'sandbox|production', help: 'which environment this server is' },
  synchronous: {
    env: 'TC_SYNCHRONOUS',
    placeholder: 'normal|full',
    help: 'store durability: normal survives a killed process, full also a power cut (an fsync per write)',
  },
  seed: {
    env: 'TC_SEED',
    placeholder: 'FILE',
    help: 'seed file loaded into a new store; required with --env production',
    defaultText: relative(PACKAGE_ROOT, BUNDLED_SEED),
  },
  'seed-hash-cache': {
    env: 'TC_SEED_HASH_CACHE',
    placeholder: 'FILE',
    help: "reuse the scrypt hashes of the seed's secrets from FILE when it was written for the same seed file; write them there otherwise (for test harnesses starting many servers)",
  },
  'cc-lifetime': { env: 'TC_CC_LIFETIME', placeholder: 'SECONDS', help: 'expires_in of client_credentials tokens' },
  'pw-lifetime': {
    env: 'TC_PW_LIFETIME',
    placeholder: 'SECONDS',
    help: 'expires_in of password and refresh_token tokens',
  },
  'rate-spike': {
    env: 'TC_RATE_SPIKE',
    placeholder: 'N',
    help: 'gateway: requests per client per second before 000-2001',
  },
  'rate-quota': {
    env: 'TC_RATE_QUOTA',
    placeholder: 'N',
    help: 'gateway: requests per client per window before 000-2000',
  },
  'rate-window': { env: 'TC_RATE_WINDOW', placeholder: 'SECONDS', help: 'gateway: quota window' },
  'lockout-user': {
    env: 'TC_LOCKOUT_USER',
    placeholder: 'N',
    help: 'token endpoint: consecutive wrong passwords for one username from one source before that pair is locked',
  },
  'lockout-client': {
    env: 'TC_LOCKOUT_CLIENT',
    placeholder: 'N',
    help: 'token endpoint: consecutive failed client authentications for one client_id from one source before that pair is locked',
  },
  'lockout-source': {
    env: 'TC_LOCKOUT_SOURCE',
    placeholder: 'N',
    help: 'token endpoint: failed attempts one source (address) may make per lock window, whatever the principals, before 429',
  },
  'lockout-seconds': {
    env: 'TC_LOCKOUT_SECONDS',
    placeholder: 'SECONDS',
    help: 'token endpoint: how long a lock lasts (429 + Retry-After)',
  },
  'headers-timeout': {
    env: 'TC_HEADERS_TIMEOUT',
    placeholder: 'SECONDS',
    help: 'a request whose headers have not all arrived by then is answered 400 (000-1000) and closed; decimals allowed',
  },
  'request-timeout': {
    env: 'TC_REQUEST_TIMEOUT',
    placeholder: 'SECONDS',
    help: 'the same for a request whose body has not all arrived; at least --headers-timeout',
  },
  'max-header-size': {
    env: 'TC_MAX_HEADER_SIZE',
    placeholder: 'BYTES',
    help: 'largest request line + header block; larger is answered 400 (000-1000)',
  },
  'log-level': { env: 'TC_LOG_LEVEL', placeholder: 'LEVEL', help: 'pino level for the logs on stderr' },
  help: { env: '', boolean: true, help: 'print this help' },
} as const satisfies Record<string, FlagSpec>;

type FlagName = keyof typeof flagSpecs;

const booleanText = z.union([z.boolean(), z.string()]).transform((value, ctx) => {
  if (typeof value === 'boolean') return value;
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['', '0', 'false', 'no', 'off'].includes(v)) return false;
  ctx.addIssue({ code: 'custom', message: 'must be true or false' });
  return z.NEVER;
});
const integer = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `must be an integer from ${min} to ${max}`)
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(min, `must be an integer from ${min} to ${max}`)
        .max(max, `must be an integer from ${min} to ${max}`),
    );

const seconds = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+(\.\d{1,3})?$/, `must be a number of seconds from ${min} to ${max}`)
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, `must be a number of seconds from ${min} to ${max}`)
        .max(max, `must be a number of seconds from ${min} to ${max}`),
    );

const optionsSchema = z.strictObject({
  host: z.string().min(1, 'must not be empty').default(serveDefaults.host),
  port: integer(0, 65535).default(serveDefaults.port),
  http: booleanText.default(false),
  'test-controls': booleanText.default(false),
  data: z.string().min(1, 'must not be empty').optional(),
  env: z.enum(['sandbox', 'production'], 'must be sandbox or production').default(serveDefaults.env),
  seed: z.string().min(1, 'must not be empty').optional(),
  'seed-hash-cache': z.string().min(1, 'must not be empty').optional(),
  synchronous: z.enum(['normal', 'full'], 'must be normal or full').default(serveDefaults.synchronous),
  'cc-lifetime': integer(1, 31_536_000).default(serveDefaults['cc-lifetime']),
  'pw-lifetime': integer(1, 31_536_000).default(serveDefaults['pw-lifetime']),
  'rate-spike': integer(1, 1_000_000).default(serveDefaults['rate-spike']),
  'rate-quota': integer(1, 100_000_000).default(serveDefaults['rate-quota']),
  'rate-window': integer(1, 86_400).default(serveDefaults['rate-window']),
  'lockout-user': integer(1, 1_000_000).default(serveDefaults['lockout-user']),
  'lockout-client': integer(1, 1_000_000).default(serveDefaults['lockout-client']),
  'lockout-source': integer(1, 100_000_000).default(serveDefaults['lockout-source']),
  'lockout-seconds': integer(1, 31_536_000).default(serveDefaults['lockout-seconds']),
  'headers-timeout': seconds(0.05, 3600).default(serveDefaults['headers-timeout']),
  'request-timeout': seconds(0.05, 3600).default(serveDefaults['request-timeout']),
  'max-header-size': integer(1024, 1_048_576).default(serveDefaults['max-header-size']),
  'log-level': z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'must be a pino level')
    .default(serveDefaults['log-level']),
  help: booleanText.default(false),
});

export interface ServeConfig {
  host: string;
  port: number;
  http: boolean;
  testControls: boolean;
  /** A SQLite file, `:memory:`, or a PostgreSQL connection URL (store/open-store.ts). */
  dataFile: string;
  /** SQLite `synchronous` of the store (WAL): NORMAL or FULL. */
  synchronous: 'NORMAL' | 'FULL';
  environment: Environment;
  seedFile: string;
  /** Whether --seed (or TC_SEED) named the seed file. */
  seedExplicit: boolean;
  /** Where the seed's secret hashes are reused from and written to (store/seed-hash-cache.ts); undefined: none. */
  seedHashCache: string | undefined;
  clientCredentialsLifetimeSeconds: number;
  passwordLifetimeSeconds: number;
  rateLimits: RateLimitSettings;
  /** Brute-force locks at the token endpoint. */
  lockout: AttemptThrottleSettings;
  /** Slow clients: headers, and the whole request, must arrive within these (milliseconds). */
  timeouts: HttpTimeouts;
  /** Node's maxHeaderSize: the request line and header block, in bytes. */
  maxHeaderSize: number;
  logLevel: string;
  help: boolean;
}

export interface HttpTimeouts {
  headersMs: number;
  requestMs: number;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

const isFlag = (name: string): name is FlagName => Object.hasOwn(flagSpecs, name);

/** Reads flags and environment variables into a validated configuration, or throws a UsageError. */
export function parseServeArgs(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): ServeConfig {
  const values: Partial<Record<FlagName, string | boolean>> = {};
  const fromFlag = new Set<FlagName>();
  for (const [name, spec] of Object.entries(flagSpecs) as [FlagName, FlagSpec][]) {
    if (spec.env !== '' && env[spec.env] !== undefined) values[name] = env[spec.env];
  }
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? '';
    if (arg === '-h') {
      values.help = true;
      continue;
    }
    const match = /^--([a-z-]+)(?:=(.*))?$/s.exec(arg);
    const name = match?.[1];
    if (!match || name === undefined || !isFlag(name)) throw new UsageError(`unknown option '${arg}' (see --help)`);
    if (fromFlag.has(name)) throw new UsageError(`option --${name} given twice`);
    fromFlag.add(name);
    const spec: FlagSpec = flagSpecs[name];
    if (spec.boolean) {
      values[name] = match[2] ?? true;
    } else if (match[2] !== undefined) {
      values[name] = match[2];
    } else {
      const next = args[i + 1];
      if (next === undefined || next.startsWith('--'))
        throw new UsageError(`option --${name} needs a value ${spec.placeholder ?? ''}`.trimEnd());
      values[name] = next;
      i += 1;
    }
  }
  const parsed = optionsSchema.safeParse(values);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue?.path[0] ?? '');
    const spec: FlagSpec | undefined = isFlag(name) ? flagSpecs[name] : undefined;
    const source = fromFlag.has(name as FlagName) || !spec?.env ? `--${name}` : `${spec.env} (--${name})`;
    throw new UsageError(`invalid value for ${source}: ${issue?.message ?? 'invalid'}`);
  }
  const o = parsed.data;
  const config: ServeConfig = {
    host: o.host,
    port: o.port,
    http: o.http,
    testControls: o['test-controls'],
    environment: o.env,
    dataFile:
      o.data === undefined
        ? resolve(cwd, 'data', 'reference-server', `${o.env}.sqlite`)
        : o.data === ':memory:' || isPostgresUrl(o.data)
          ? o.data
          : resolve(cwd, o.data),
    synchronous: o.synchronous === 'full' ? 'FULL' : 'NORMAL',
    seedFile: o.seed === undefined ? BUNDLED_SEED : resolve(cwd, o.seed),
    seedExplicit: o.seed !== undefined,
    seedHashCache: o['seed-hash-cache'] === undefined ? undefined : resolve(cwd, o['seed-hash-cache']),
    clientCredentialsLifetimeSeconds: o['cc-lifetime'],
    passwordLifetimeSeconds: o['pw-lifetime'],
    rateLimits: { spikePerSecond: o['rate-spike'], quotaPerWindow: o['rate-quota'], windowSeconds: o['rate-window'] },
    lockout: {
      userFailures: o['lockout-user'],
      clientFailures: o['lockout-client'],
      lockSeconds: o['lockout-seconds'],
      sourceFailures: o['lockout-source'],
    },
    timeouts: {
      headersMs: Math.round(o['headers-timeout'] * 1000),
      requestMs: Math.round(o['request-timeout'] * 1000),
    },
    maxHeaderSize: o['max-header-size'],
    logLevel: o['log-level'],
    help: o.help,
  };
  if (config.help) return config;
  if (config.timeouts.requestMs < config.timeouts.headersMs) {
    throw new UsageError('invalid value for --request-timeout: must be at least --headers-timeout');
  }
  if (config.testControls && config.environment === 'production') {
    throw new UsageError('--test-controls cannot be used with --env production');
  }
  if (!existsSync(config.seedFile)) throw new UsageError(`seed file not found: ${config.seedFile}`);
  return config;
}

export function serveUsage(): string {
  const lines = (Object.entries(flagSpecs) as [FlagName, FlagSpec][]).map(([name, spec]) => {
    const flag = `--${name}${spec.placeholder ? ` ${spec.placeholder}` : ''}`;
    const fixed: string | number | undefined = (serveDefaults as Record<string, string | number>)[name];
    const fallback = fixed === undefined ? spec.defaultText : String(fixed);
    return `  ${flag.padEnd(32)} ${spec.help}${fallback === undefined ? '' : ` (default ${fallback})`}${spec.env ? ` [${spec.env}]` : ''}`;
  });
  return [
    'Usage: token-conformance serve [options]',
    '',
    'Starts the bundled reference server. When ready it prints one JSON line on stdout:',
    '  {"event":"listening","authUrlUs":…,"authUrlEu":…,"baseUrl":…,"caFile":…,"env":…,"testControls":…}',
    '',
    'Options:',
    ...lines,
  ].join('\n');
}
