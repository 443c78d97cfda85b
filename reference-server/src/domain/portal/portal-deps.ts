// Everything the portal's use cases get from outside: the store, the one clock (the test clock
// with --test-controls, so that moving it moves the 45-day countdown and session expiry),
// randomness, a digest, the slow hasher and the token endpoint's brute-force throttle.
import type { AttemptThrottle } from '../attempt-throttle.ts';
import type { Environment } from '../model.ts';
import type { Clock, RandomSource, SecretHasher, TokenDigest } from '../ports.ts';
import type { PortalSettings } from './portal-settings.ts';
import type { PortalStorePort } from './portal-ports.ts';

export interface PortalDeps {
  store: PortalStorePort;
  clock: Clock;
  random: RandomSource;
  digest: TokenDigest;
  hasher: SecretHasher;
  throttle: AttemptThrottle;
  environment: Environment;
  settings: PortalSettings;
  /** A hash of a random secret: verified against when the user is unknown, to keep timing uniform. */
  dummyHash: () => Promise<string>;
}
