// The self-validation's own rate-limit thresholds, declared to the faults whose checks read them.
import type { TargetProfile } from '../../core/profile/profile.schema.ts';

/** The spec files whose checks read the profile's rate-limit thresholds (capabilities.rateLimit). */
export const rateLimitSpecs = ['specs/gateway/rate-limits.spec.ts', 'specs/limits/rate-limits.spec.ts'];

/**
 * The thresholds the self-validation declares, and starts the servers with, for the faults whose
 * checks read them: a check drives its burst and its quota from whatever the profile declares, so
 * small ones prove the same thing with a tenth of the calls (the reference's quota of 1000 is
 * thousands of calls under a fault that never refuses), and a burst of 21 calls leaves within one
 * second on a loaded machine where 101 need not. The quota stays ten spikes, so that the spike checks
 * before the quota checks never spend it. The clean run checks the reference's own thresholds.
 */
export const selfValidationRateLimit = { spikePerSecond: 10, quotaPerWindow: 100, windowSeconds: 20 } as const;

/** The profile with the self-validation's rate-limit thresholds. */
export const withSelfValidationRateLimit = (profile: TargetProfile): TargetProfile => ({
  ...profile,
  capabilities: { ...profile.capabilities, rateLimit: { ...selfValidationRateLimit } },
});
