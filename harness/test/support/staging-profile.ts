// The profile a test gives `run` when it plays a staging target: the reference server's addresses
// (behind a fault's proxy when one is planted) with no clock or fault control, so that the suite
// must take the clockless paths (obligations, the state file) a real deployment makes it take.
import type { TargetProfile } from '../../../core/profile/profile.schema.ts';

/** `profile` with every address of `upstream` (an origin) moved to the proxy in front of it. */
export function throughProxy(
  profile: TargetProfile,
  upstream: string,
  proxy: { url: string; caFile: string },
): TargetProfile {
  const swap = (url: string | undefined) => (url ? `${proxy.url}${url.slice(upstream.length)}` : url);
  return {
    ...profile,
    authUrlUs: swap(profile.authUrlUs)!,
    authUrlEu: swap(profile.authUrlEu)!,
    baseUrl: swap(profile.baseUrl)!,
    caFile: proxy.caFile,
    plainHttpUrl: `http://${new URL(proxy.url).host}`,
  };
}

/** `profile` without clock and fault control, with a state file keyed by `keyEnv` when given. */
export function asStagingTarget(profile: TargetProfile, keyEnv?: string): TargetProfile {
  const capabilities = { ...profile.capabilities };
  delete capabilities.clockControlUrl;
  delete capabilities.faultControlUrl;
  return { ...profile, capabilities, ...(keyEnv !== undefined ? { state: { key: { env: keyEnv } } } : {}) };
}
