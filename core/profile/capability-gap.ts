// Why a target cannot run a check that needs something of it (the catalogue's `needs` and the
// specs' needs(): one vocabulary, requirements/types.ts RequirementNeed), from its profile alone:
// the checks' capability gate (fixtures/target.ts) and `init`'s account of what a profile will
// verify read it here.
import { clientNames, userNames, type ClientName, type TargetProfile, type UserName } from './profile.schema.ts';
import { requirementCapabilities } from '../../schemas/src/requirement-catalogue.ts';

/** The named entries of a profile a need can ask for: `client:usClient` is credentials.clients.usClient. */
export const profileEntries = {
  client: { field: 'credentials.clients', names: clientNames },
  user: { field: 'credentials.users', names: userNames },
  token: { field: 'credentials.tokens', names: ['otherEnvironment'] },
  resource: { field: 'resources', names: ['jsonBodyRoute', 'queryRoute', 'unimplementedRoute'] },
  person: { field: 'resources.people', names: ['missing', 'malformed'] },
} as const;
type Entry<K extends keyof typeof profileEntries> = `${K}:${(typeof profileEntries)[K]['names'][number]}`;

/**
 * What a check can declare it needs: a capability the profile declares (`clock-control` …), a
 * region or surface (`us`, `eu`, `gateway`, `people`, `plain-http`), or a named profile entry. A
 * missing capability or entry SKIPs the check with the reason; a missing region or surface makes it
 * NOT_APPLICABLE.
 */
export type Capability =
  | (typeof requirementCapabilities)[number]
  | Entry<'client'>
  | Entry<'user'>
  | Entry<'token'>
  | Entry<'resource'>
  | Entry<'person'>;

/** Whether `need` is a word of the vocabulary: one the capability gate can judge. */
export function isKnownNeed(need: string): need is Capability {
  if ((requirementCapabilities as readonly string[]).includes(need)) return true;
  const [kind, name] = need.split(':') as [string, string | undefined];
  const entry = Object.hasOwn(profileEntries, kind) ? profileEntries[kind as keyof typeof profileEntries] : undefined;
  return entry !== undefined && name !== undefined && (entry.names as readonly string[]).includes(name);
}

/** The SKIP reason of a check that deactivates principals on a target that cannot be asked to. */
export const noPrincipalControl =
  'target has no principal control: profile has no hooks (hooks.deactivate and hooks.activate) and no fault control (capabilities.faultControlUrl) beside which test controls would live';

export interface CapabilityGap {
  verdict: 'SKIP' | 'NOT_APPLICABLE';
  reason: string;
}

/** Why a target with profile `p` cannot run a check that needs `capability`; undefined when it can. */
export function capabilityGap(p: TargetProfile, capability: Capability): CapabilityGap | undefined {
  const caps = p.capabilities;
  const skip = (reason: string): CapabilityGap => ({ verdict: 'SKIP', reason });
  const na = (reason: string): CapabilityGap => ({ verdict: 'NOT_APPLICABLE', reason });
  if (capability.startsWith('client:')) {
    const name = capability.slice('client:'.length) as ClientName;
    return p.credentials.clients[name] ? undefined : skip(`profile has no credentials.clients.${name}`);
  }
  if (capability.startsWith('user:')) {
    const name = capability.slice('user:'.length) as UserName;
    return p.credentials.users[name] ? undefined : skip(`profile has no credentials.users.${name}`);
  }
  if (capability.startsWith('token:')) {
    const name = capability.slice('token:'.length) as keyof TargetProfile['credentials']['tokens'];
    return p.credentials.tokens[name] ? undefined : skip(`profile has no credentials.tokens.${name}`);
  }
  if (capability.startsWith('person:')) {
    const name = capability.slice('person:'.length) as 'missing' | 'malformed';
    return p.resources.people?.[name] ? undefined : skip(`profile has no resources.people.${name}`);
  }
  if (capability.startsWith('resource:')) {
    const name = capability.slice('resource:'.length) as keyof TargetProfile['resources'];
    return p.resources[name] ? undefined : skip(`profile has no resources.${name}`);
  }
  switch (capability) {
    case 'clock-control':
      return caps.clockControlUrl ? undefined : skip('target has no clock control');
    case 'fault-injection':
      return caps.faultControlUrl ? undefined : skip('target has no fault control');
    case 'principal-control':
      return caps.faultControlUrl || p.hooks ? undefined : skip(noPrincipalControl);
    case 'load':
      return caps.load.allowed
        ? undefined
        : skip('profile does not allow load-like checks (capabilities.load.allowed)');
    case 'destructive':
      return caps.destructive.allowed
        ? undefined
        : skip('profile does not allow destructive checks (capabilities.destructive.allowed)');
    case 'http-basic':
      return caps.supportsBasic
        ? undefined
        : skip('target does not declare HTTP Basic client authentication (capabilities.supportsBasic)');
    case 'us':
      return p.authUrlUs ? undefined : na('target has no US token server (authUrlUs)');
    case 'eu':
      return p.authUrlEu ? undefined : na('target has no EU token server (authUrlEu)');
    case 'gateway':
      return p.baseUrl ? undefined : na('target has no protected APIs (baseUrl)');
    case 'people':
      return p.resources.people ? undefined : skip('profile has no resources.people identifiers');
    case 'plain-http':
      return p.plainHttpUrl ? undefined : skip('profile has no plainHttpUrl');
  }
  return skip(`the harness does not know the capability '${String(capability)}'`);
}
