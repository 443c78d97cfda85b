// The memory rows: a server started as a user starts `serve` (without the suite's environment),
// its RSS idle and after `tokens` tokens; then one fresh reference server (store file in a temporary directory), its RSS idle,
// after `tokens` client_credentials tokens, and after a refresh-heavy run of `refreshes` refreshes
// along rotating chains; the store's growth per refresh token issued (from the file's page count);
// and the purge proof: move the test clock past the refresh tokens' expiry and the purge grace,
// run the purge (POST /__test/purge), and count the rows again.
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { request } from 'undici';
import { readStoreStats, type StoreStats } from './harness/store-stats.ts';
import { US_TOKEN, referenceCredentials as cred, startReferenceServer } from './harness/reference-target.ts';
import { runLoad, type LoadResult } from './load/load-generator.ts';
import { formPost, obtainToken, refreshChainWorker, tokenRequestWorker } from './load/workers.ts';

export interface MemoryOptions {
  root: string;
  tempDir: string;
  cpu: number | undefined;
  connections: number;
  tokens: number;
  refreshes: number;
}

export interface MemoryResult {
  idleRssMiB: number;
  /** Idle RSS of a server started without the suite's environment (no glibc mmap threshold), as a user starts `serve`. */
  idleRssPlainEnvMiB: number;
  /** The same server's RSS after `tokens` client_credentials tokens. */
  afterTokensRssPlainEnvMiB: number;
  plainTokenRun: LoadResult;
  afterTokensRssMiB: number;
  afterRefreshRssMiB: number;
  tokenRun: LoadResult;
  refreshRun: LoadResult;
  storeBefore: StoreStats;
  storeAfter: StoreStats;
  /** Bytes the store grew by per refresh-token row added by the refresh-heavy run. */
  bytesPerRefreshToken: number;
  purge: { rowsBefore: number; purged: number; rowsAfter: number; advancedSeconds: number };
}

/** The default lifetimes of the reference server: password access token, then its refresh token (OI-4). */
const PASSWORD_LIFETIME_S = 604_800;
const REFRESH_AFTER_ACCESS_S = 604_800;
/** How long the server keeps an expired refresh token before its purge deletes it (reference-server/README.md). */
const PURGE_GRACE_S = 3600;

export async function measureMemory(o: MemoryOptions): Promise<MemoryResult> {
  const plain = await startReferenceServer({
    root: o.root,
    dataFile: join(o.tempDir, 'memory-plain.sqlite'),
    cpu: o.cpu,
    suiteEnvironment: false,
  });
  let idleRssPlainEnvMiB: number;
  let afterTokensRssPlainEnvMiB: number;
  let plainTokenRun: LoadResult;
  try {
    await delay(2000);
    idleRssPlainEnvMiB = plain.rssMiB();
    plainTokenRun = await runLoad({
      origin: plain.listening.baseUrl,
      connections: o.connections,
      warmupMs: 0,
      bound: { requests: o.tokens },
      createWorker: () =>
        Promise.resolve(
          tokenRequestWorker(
            US_TOKEN,
            { grant_type: 'client_credentials', ...cred.usCc },
            { alg: 'EdDSA', refreshToken: false },
          ),
        ),
    });
    afterTokensRssPlainEnvMiB = plain.rssMiB();
  } finally {
    await plain.stop();
  }
  const dataFile = join(o.tempDir, 'memory.sqlite');
  const server = await startReferenceServer({ root: o.root, dataFile, cpu: o.cpu });
  try {
    const origin = server.listening.baseUrl;
    await delay(2000); // let the start settle (lazy loading, first GC) before calling it idle
    const idleRssMiB = server.rssMiB();

    const ccExpected = { alg: 'EdDSA', refreshToken: false } as const;
    const tokenRun = await runLoad({
      origin,
      connections: o.connections,
      warmupMs: 0,
      bound: { requests: o.tokens },
      createWorker: () =>
        Promise.resolve(tokenRequestWorker(US_TOKEN, { grant_type: 'client_credentials', ...cred.usCc }, ccExpected)),
    });
    const afterTokensRssMiB = server.rssMiB();

    const storeBefore = readStoreStats(dataFile);
    const pairExpected = { alg: 'EdDSA', refreshToken: true } as const;
    const refreshRun = await runLoad({
      origin,
      connections: o.connections,
      warmupMs: 0,
      bound: { requests: o.refreshes },
      createWorker: async (pool) => {
        const first = await obtainToken(
          pool,
          formPost(US_TOKEN, { grant_type: 'password', ...cred.pw, ...cred.user }),
          pairExpected,
        );
        return refreshChainWorker(US_TOKEN, cred.pw, first.refresh_token!, pairExpected);
      },
    });
    const afterRefreshRssMiB = server.rssMiB();
    const storeAfter = readStoreStats(dataFile);
    const addedRows = storeAfter.refreshTokenRows - storeBefore.refreshTokenRows;
    const bytesPerRefreshToken =
      addedRows > 0
        ? (storeAfter.bytes - storeAfter.freeBytes - (storeBefore.bytes - storeBefore.freeBytes)) / addedRows
        : Number.NaN;

    // Purge proof: every refresh token is expired (plus the grace) once the clock is past them.
    const advancedSeconds = PASSWORD_LIFETIME_S + REFRESH_AFTER_ACCESS_S + PURGE_GRACE_S + 60;
    await postJson(`${origin}/__test/clock`, { advanceSeconds: advancedSeconds });
    const purgeAnswer = (await postJson(`${origin}/__test/purge`, undefined)) as { refreshTokens?: unknown };
    const rowsAfter = readStoreStats(dataFile).refreshTokenRows;
    await postJson(`${origin}/__test/clock`, { reset: true });
    return {
      idleRssMiB,
      idleRssPlainEnvMiB,
      afterTokensRssPlainEnvMiB,
      plainTokenRun,
      afterTokensRssMiB,
      afterRefreshRssMiB,
      tokenRun,
      refreshRun,
      storeBefore,
      storeAfter,
      bytesPerRefreshToken,
      purge: {
        rowsBefore: storeAfter.refreshTokenRows,
        purged: Number(purgeAnswer.refreshTokens),
        rowsAfter,
        advancedSeconds,
      },
    };
  } finally {
    await server.stop();
  }
}

async function postJson(url: string, body: unknown): Promise<unknown> {
  const answer = await request(url, {
    method: 'POST',
    ...(body !== undefined && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await answer.body.text();
  if (answer.statusCode !== 200) throw new Error(`POST ${url}: HTTP ${answer.statusCode} ${text}`);
  return JSON.parse(text) as unknown;
}
