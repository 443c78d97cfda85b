// Why a target cannot run a check that needs a capability (the catalogue's needs, `fixture:<name>`
// needs, regions and surfaces), from its profile alone: the checks' capability gate
// (fixtures/target.ts) and `init`'s account of what a profile will verify read it here.
import type { ClientName, TargetProfile, UserName } from './profile.schema.ts';
import type { RequirementNeed } from '../../requirements/types.ts';

/**
 * What a check can declare it needs: the catalogue's capabilities and `fixture:<name>` needs
 * (requirements/types.ts RequirementNeed), plus the regions and surfaces of a target. A missing
 * capability or fixture SKIPs the check with the reason; a missing region or surface makes it
 * NOT_APPLICABLE.
 */
export type Capability = RequirementNeed | 'us' | 'eu' | 'gateway' | 'people' | `client:${ClientName}` | `user:${UserName}`;

/** The catalogue's `fixture:<name>` needs, and where a profile supplies each. */
export const fixtureNeeds: Record<string, { present: (p: TargetProfile) => boolean; field: string }> = {
  'rate-limit-client': { present: (p) => !!p.credentials.clients.rateLimitClient, field: 'credentials.clients.rateLimitClient' },
  'us-unregistered-client': { present: (p) => !!p.credentials.clients.usUnregisteredClient, field: 'credentials.clients.usUnregisteredClient' },
  'us-cc-only-client': { present: (p) => !!p.credentials.clients.usCcOnlyClient, field: 'credentials.clients.usCcOnlyClient' },
  'other-environment-client': { present: (p) => !!p.credentials.clients.otherEnvironmentClient, field: 'credentials.clients.otherEnvironmentClient' },
  'us-client-2': { present: (p) => !!p.credentials.clients.usClient2, field: 'credentials.clients.usClient2' },
  'us-wrong-role-client': { present: (p) => !!p.credentials.clients.usWrongRoleClient, field: 'credentials.clients.usWrongRoleClient' },
  'us-inactive-client': { present: (p) => !!p.credentials.clients.usInactiveClient, field: 'credentials.clients.usInactiveClient' },
  'expired-user': { present: (p) => !!p.credentials.users.expiredUser, field: 'credentials.users.expiredUser' },
  'burnable-user': { present: (p) => !!p.credentials.users.burnableUser, field: 'credentials.users.burnableUser' },
  'lockable-user': { present: (p) => !!p.credentials.users.lockableUser, field: 'credentials.users.lockableUser' },
  'password-change-user': { present: (p) => !!p.credentials.users.passwordChangeUser, field: 'credentials.users.passwordChangeUser' },
  'special-chars-user': { present: (p) => !!p.credentials.users.specialCharsUser, field: 'credentials.users.specialCharsUser' },
  'wrong-role-user': { present: (p) => !!p.credentials.users.wrongRoleUser, field: 'credentials.users.wrongRoleUser' },
  'inactive-user': { present: (p) => !!p.credentials.users.inactiveUser, field: 'credentials.users.inactiveUser' },
  'other-environment-token': { present: (p) => !!p.credentials.tokens.otherEnvironment, field: 'credentials.tokens.otherEnvironment' },
  'existing-identifier': { present: (p) => !!p.resources.people, field: 'resources.people.existing' },
  'missing-identifier': { present: (p) => !!p.resources.people, field: 'resources.people.missing' },
  'malformed-identifier': { present: (p) => !!p.resources.people, field: 'resources.people.malformed' },
  'json-body-route': { present: (p) => !!p.resources.jsonBodyRoute, field: 'resources.jsonBodyRoute' },
  'query-route': { present: (p) => !!p.resources.queryRoute, field: 'resources.queryRoute' },
  'unimplemented-route': { present: (p) => !!p.resources.unimplementedRoute, field: 'resources.unimplementedRoute' },
  'plain-http-url': { present: (p) => !!p.plainHttpUrl, field: 'plainHttpUrl' },
};

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
  if (capability.startsWith('fixture:')) {
    const need = fixtureNeeds[capability.slice('fixture:'.length)];
    if (!need) return skip(`the harness does not know the fixture '${capability}' (fixtures/target.ts fixtureNeeds)`);
    return need.present(p) ? undefined : skip(`profile has no ${need.field}`);
  }
  if (capability.startsWith('user:')) {
    const name = capability.slice('user:'.length) as UserName;
    return p.credentials.users[name] ? undefined : skip(`profile has no credentials.users.${name}`);
  }
  switch (capability) {
    case 'clock-control': return caps.clockControlUrl ? undefined : skip('target has no clock control');
    case 'fault-injection': return caps.faultControlUrl ? undefined : skip('target has no fault control');
    case 'load': return caps.load.allowed ? undefined : skip('profile does not allow load-like checks (capabilities.load.allowed)');
    case 'destructive': return caps.destructive.allowed ? undefined : skip('profile does not allow destructive checks (capabilities.destructive.allowed)');
    case 'http-basic': return caps.supportsBasic ? undefined : skip('target does not declare HTTP Basic client authentication (capabilities.supportsBasic)');
    case 'us': return p.authUrlUs ? undefined : na('target has no US token server (authUrlUs)');
    case 'eu': return p.authUrlEu ? undefined : na('target has no EU token server (authUrlEu)');
    case 'gateway': return p.baseUrl ? undefined : na('target has no protected APIs (baseUrl)');
    case 'people': return p.resources.people ? undefined : skip('profile has no resources.people identifiers');
  }
  return skip(`the harness does not know the capability '${String(capability)}'`);
}
