// Composition root of the token side: store + clock + crypto -> the token service and the access
// token verifier. Shared by main.ts and the tests (which pass a :memory: store and a cheap scrypt).
import { TestClock } from './clock/test-clock.ts';
import { systemClock } from './clock/system-clock.ts';
import { JoseAccessTokenSigner, JoseAccessTokenVerifier, SigningKey } from './crypto/access-tokens.ts';
import { nodeRandom, sha256Digest } from './crypto/random.ts';
import {
  CachingSecretHasher,
  ScryptSecretHasher,
  productionScryptCost,
  type ScryptCost,
} from './crypto/scrypt-hasher.ts';
import {
  AttemptThrottle,
  defaultAttemptThrottleSettings,
  type AttemptThrottleSettings,
} from './domain/attempt-throttle.ts';
import type { Environment } from './domain/model.ts';
import type { PortalDeps } from './domain/portal/portal-deps.ts';
import { defaultPortalSettings, type PortalSettings } from './domain/portal/portal-settings.ts';
import type { AccessTokenVerifier, Clock, SecretHasher } from './domain/ports.ts';
import { defaultTokenSettings, type TokenSettings } from './domain/settings.ts';
import { TokenService } from './domain/token-service.ts';
import { readSeedFile, seedRecords } from './store/seed.ts';
import { hashesOf, readSeedHashCache, seedDigest, writeSeedHashCache } from './store/seed-hash-cache.ts';
import type { ServerStore } from './store/server-store.ts';

export interface ServicesOptions {
  store: ServerStore;
  environment: Environment;
  /** A TestClock makes the clock controllable (only with --test-controls). */
  testControls: boolean;
  tokens?: Partial<TokenSettings>;
  /** Brute-force lock thresholds and window (defaults: 10 passwords, 50 client secrets, 900 s). */
  throttle?: Partial<AttemptThrottleSettings>;
  scryptCost?: ScryptCost;
  /** Loaded into the store if it was never seeded. */
  seedFile?: string;
  /** Reuse the seed's secret hashes from this file, and write them there (store/seed-hash-cache.ts). */
  seedHashCache?: string;
  /** The time source under the test clock (tests pass a fixed one). */
  baseClock?: Clock;
  portal?: Partial<PortalSettings>;
}

export interface Services {
  store: ServerStore;
  clock: Clock;
  testClock: TestClock | undefined;
  environment: Environment;
  tokens: TokenSettings;
  throttle: AttemptThrottle;
  hasher: SecretHasher;
  signingKey: SigningKey;
  verifier: AccessTokenVerifier;
  tokenService: TokenService;
  /** The portal's use cases' dependencies (same store, clock, hasher and brute-force lock). */
  portal: PortalDeps;
  /** Whether this start loaded the seed file. */
  seeded: boolean;
}

export async function createServices(options: ServicesOptions): Promise<Services> {
  const { store, environment } = options;
  const base = options.baseClock ?? systemClock;
  const testClock = options.testControls ? new TestClock(base, store.sharedClock) : undefined;
  const clock = testClock ?? base;
  const tokens = { ...defaultTokenSettings, ...options.tokens };
  const cost = options.scryptCost ?? productionScryptCost;
  const hasher = new CachingSecretHasher(new ScryptSecretHasher(cost));
  let seeded = false;
  if (options.seedFile !== undefined && (await store.getMeta('seeded')) === undefined) {
    const seed = await readSeedFile(options.seedFile);
    const now = clock.now();
    const cache = options.seedHashCache;
    const digest = cache !== undefined ? await seedDigest(options.seedFile) : '';
    const known =
      cache !== undefined
        ? await readSeedHashCache(cache, digest, `scrypt$${cost.log2N}$${cost.r}$${cost.p}$`)
        : undefined;
    const records = await seedRecords(seed, hasher, now, known);
    seeded = await store.seedIfNew(records, new Date(now).toISOString());
    const reused =
      known !== undefined &&
      records.clients.every((c) => known.clients[c.clientId]) &&
      records.users.every((u) => known.users[`${u.tenant}\\${u.userName}`]);
    if (cache !== undefined && !reused) await writeSeedHashCache(cache, digest, hashesOf(records));
  }
  const signingKey = await SigningKey.loadOrCreate(store, clock.now());
  const identity = { issuer: tokens.issuer, audience: tokens.audience };
  const signer = new JoseAccessTokenSigner(signingKey, identity, nodeRandom);
  const verifier = new JoseAccessTokenVerifier(signingKey, identity, clock, environment);
  const throttle = new AttemptThrottle(store, { ...defaultAttemptThrottleSettings, ...options.throttle });
  const tokenService = new TokenService({
    store,
    clock,
    random: nodeRandom,
    digest: sha256Digest,
    hasher,
    signer,
    settings: tokens,
    environment,
    throttle,
  });
  let dummy: Promise<string> | undefined;
  const portal: PortalDeps = {
    store,
    clock,
    random: nodeRandom,
    digest: sha256Digest,
    hasher,
    throttle,
    environment,
    settings: { ...defaultPortalSettings, passwordMaxAgeDays: tokens.passwordMaxAgeDays, ...options.portal },
    dummyHash: () => (dummy ??= hasher.hash(nodeRandom.token(32))),
  };
  return {
    store,
    clock,
    testClock,
    environment,
    tokens,
    throttle,
    hasher,
    signingKey,
    verifier,
    tokenService,
    portal,
    seeded,
  };
}
