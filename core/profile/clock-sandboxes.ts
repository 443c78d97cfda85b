// The clock sandboxes a profile declares (capabilities.clockSandboxes): further sandbox instances
// of the target, each with a test clock of its own and the same clients and users. `run` turns
// each into a profile of its own, the target's profile with the sandbox's addresses, for one
// time-travel worker (core/run/clock-targets.ts).
import type { LoadedProfile } from './load-profile.ts';
import type { ClockSandbox } from './profile.schema.ts';

/** How messages name a sandbox: its name, and where it sits in the profile. */
export function clockSandboxLabel(sandbox: ClockSandbox, index: number): string {
  const at = `capabilities.clockSandboxes[${index}]`;
  return sandbox.name !== undefined ? `"${sandbox.name}" (${at})` : at;
}

/**
 * The target's profile moved to one sandbox: its addresses, controls and CA (else the target's);
 * the same credentials, capabilities and name (reports name the target, not the sandbox). It
 * declares no sandboxes itself, and no plain-HTTP address (the target's belongs to the target).
 */
export function clockSandboxProfile(target: LoadedProfile, sandbox: ClockSandbox): LoadedProfile {
  const profile = structuredClone(target.profile);
  delete profile.capabilities.clockSandboxes;
  delete profile.plainHttpUrl;
  for (const key of ['authUrlUs', 'authUrlEu', 'baseUrl'] as const) {
    if (sandbox[key] !== undefined) profile[key] = sandbox[key];
    else delete profile[key];
  }
  if (sandbox.caFile !== undefined) profile.caFile = sandbox.caFile;
  profile.capabilities.clockControlUrl = sandbox.clockControlUrl;
  if (sandbox.faultControlUrl !== undefined) profile.capabilities.faultControlUrl = sandbox.faultControlUrl;
  else delete profile.capabilities.faultControlUrl;
  return { ...target, profile };
}
