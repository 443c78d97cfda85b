// The reference server as the benchmark starts it: `token-conformance serve` over plain HTTP on
// loopback, a store file in a temporary directory (so that its size can be read), the test clock
// on (for the purge proof), logs at `warn` (the peers log nothing either; one row measures the
// default `info`), and the gateway's rate limits and the token endpoint's lockouts raised to their
// maxima, so that the benchmark measures issuance and protected calls, never 429s. The environment
// is the one the suite starts it with (harness/reference/server-env.ts: glibc's mmap threshold).
import { join } from 'node:path';
import { withReferenceServerEnv } from '../../harness/reference/server-env.ts';
import { seedClient, seedUser } from './reference-seed.ts';
import { startTarget, type TargetProcess } from './target-process.ts';

export const US_TOKEN = '/api/v1/auth/oauth2/token';
export const EU_TOKEN = '/oauth2/default/v1/token';
export const PEOPLE_PATH = '/v1/people/er/E-1001';

/** Public demo credentials, from fixtures/reference-seed.json. */
export const referenceCredentials = {
  usCc: seedClient('us-cc-client'),
  euCc: seedClient('eu-cc-client'),
  pw: seedClient('us-pw-client'),
  user: seedUser('acme\\alice'),
} as const;

export const RAISED_LIMIT_FLAGS = [
  '--rate-spike',
  '1000000',
  '--rate-quota',
  '100000000',
  '--lockout-user',
  '1000000',
  '--lockout-client',
  '1000000',
];

export interface ReferenceStart {
  root: string;
  dataFile: string;
  cpu: number | undefined;
  logLevel?: 'warn' | 'info';
  /** Extra node flags (e.g. --cpu-prof) before the script. */
  nodeFlags?: string[];
  /** Start it as the suite does (harness/reference/server-env.ts); false: the plain environment. */
  suiteEnvironment?: boolean;
}

export function referenceServeArgs(start: Pick<ReferenceStart, 'dataFile' | 'logLevel'>): string[] {
  return [
    'serve',
    '--http',
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--data',
    start.dataFile,
    '--test-controls',
    '--log-level',
    start.logLevel ?? 'warn',
    ...RAISED_LIMIT_FLAGS,
  ];
}

export function startReferenceServer(start: ReferenceStart): Promise<TargetProcess> {
  return startTarget({
    nodeArgs: [
      ...(start.nodeFlags ?? []),
      join(start.root, 'bin', 'token-conformance.js'),
      ...referenceServeArgs(start),
    ],
    cwd: start.root,
    cpu: start.cpu,
    env: start.suiteEnvironment === false ? process.env : withReferenceServerEnv(process.env),
  });
}
