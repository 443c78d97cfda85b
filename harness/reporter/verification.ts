// "Verified" as a number: of a report's requirements, how many a run verified (PASS, FAIL, WARN,
// WAIVED: it saw the behaviour), and for every other one why not — the profile did not declare what
// its checks need (with what to declare), the profile's own credential was refused or its
// declaration blocked a check (a profile error), the target blocked it, an obligation is still
// open, or it was not selected. The reasons are the suite's own SKIP vocabulary (fixtures/target.ts
// gap(), the token client, the obligations fixture), read here once so that the closing line, the
// report and the gate agree.
import type { ConformanceReport, RequirementResult } from './report.schema.ts';
import type { unverifiedCauses } from './report.schema.ts';

export type UnverifiedCause = (typeof unverifiedCauses)[number];

export interface Unverified {
  cause: UnverifiedCause;
  /** not-declared: what would make it verifiable, in a few words. */
  remedy?: string;
}

const burnable = 'declare a burnable user (credentials.users.burnableUser)';
const clockOrState = 'add clock control or a state file (capabilities.clockControlUrl, or "state" and run --state)';

/** SKIP reasons that mean "the profile does not declare what the check needs", and the remedy of each. */
const declarable: [RegExp, (m: RegExpExecArray) => string][] = [
  [/profile has no credentials\.users\.burnableUser\b/, () => burnable],
  [/profile has no (credentials\.(?:clients|users|tokens)\.[A-Za-z0-9]+)/, (m) => `declare ${m[1]}`],
  [/profile has no (resources\.people\.(?:missing|malformed))/, (m) => `declare ${m[1]}`],
  [
    /profile has no resources\.people\b/,
    () => 'declare resources.people (existing, missing and malformed identifiers)',
  ],
  [/profile(?: has no|'s) (resources\.[A-Za-z0-9]+)/, (m) => `declare ${m[1]}`],
  [/profile has no plainHttpUrl/, () => 'declare plainHttpUrl'],
  [/target has no clock control/, () => clockOrState],
  [
    /no run came by between .* could be observed/,
    () => "run on a schedule closer together (the state file's obligations lapsed)",
  ],
  [
    /target has no principal control/,
    () => 'declare hooks.deactivate and hooks.activate (how to deactivate and reactivate a user or client)',
  ],
  [/target has no fault control/, () => 'add a fault switch (capabilities.faultControlUrl)'],
  [
    /target has no restart control .* no state file/,
    () =>
      'add a state file (a later run replays the used tokens) or a restart control (capabilities.restartControlUrl)',
  ],
  [/profile does not allow load-like checks/, () => 'allow load-like checks (capabilities.load.allowed)'],
  [
    /profile does not allow destructive checks/,
    () => 'allow destructive checks (capabilities.destructive.allowed) with a lockable user',
  ],
  [/target does not declare HTTP Basic/, () => 'declare capabilities.supportsBasic if the target takes HTTP Basic'],
  [/profile declares no rate-limit thresholds/, () => "declare capabilities.rateLimit (the target's thresholds)"],
  [
    /not declared: (capabilities\.rateLimit\.\w+(?:, capabilities\.rateLimit\.\w+)*)/,
    (m) => `declare ${m[1]!.replace(/, /g, ' and ')}`,
  ],
  [/the load budget \(capabilities\.load/, () => 'raise the load budget (capabilities.load)'],
  [
    /at \d+ calls per second the quota of \d+ cannot be spent/,
    () => 'raise the load budget (capabilities.load.maxRequestsPerSecond)',
  ],
];

/** Why a requirement was not verified; undefined when it was (or does not apply). */
export function unverifiedOf(
  r: Pick<RequirementResult, 'verdict' | 'reason' | 'blockedByProfile'>,
): Unverified | undefined {
  switch (r.verdict) {
    case 'PASS':
    case 'FAIL':
    case 'WARN':
    case 'WAIVED':
    case 'NOT_APPLICABLE':
      return undefined;
    case 'PENDING':
      return { cause: 'pending' };
    case 'UNCHECKED':
    case 'UNOBSERVED':
      return { cause: 'other' };
    case 'BLOCKED':
      return r.blockedByProfile !== undefined
        ? { cause: 'profile-error', remedy: `fix ${r.blockedByProfile}` }
        : { cause: 'blocked-by-target' };
    case 'SKIP': {
      const reason = r.reason ?? '';
      if (reason.startsWith('no check of this requirement was selected')) return { cause: 'not-selected' };
      for (const [pattern, remedy] of declarable) {
        const m = pattern.exec(reason);
        if (m) return { cause: 'not-declared', remedy: remedy(m) };
      }
      return { cause: 'other' };
    }
  }
}

export interface Verification {
  /** Requirements whose behaviour the run saw: PASS, FAIL, WARN (and WAIVED). */
  verified: number;
  notApplicable: number;
  /** Not verifiable with this profile as declared, and what would make them so (most requirements first). */
  notVerifiable: { count: number; remedies: { remedy: string; requirements: string[] }[] };
  /** BLOCKED by the profile: the target refused a credential it names, or a declaration of it keeps a check from what it verifies (a profile error). */
  blockedByProfile: number;
  /** BLOCKED by the target (a requirement it broke, or a setup it refused). */
  blockedByTarget: number;
  pending: number;
  notSelected: number;
  /** Not verified for another reason (a SKIP the target's answers caused, UNCHECKED). */
  other: number;
  total: number;
}

export function verificationOf(
  requirements: Pick<RequirementResult, 'id' | 'verdict' | 'reason' | 'blockedByProfile'>[],
): Verification {
  const v: Verification = {
    verified: 0,
    notApplicable: 0,
    notVerifiable: { count: 0, remedies: [] },
    blockedByProfile: 0,
    blockedByTarget: 0,
    pending: 0,
    notSelected: 0,
    other: 0,
    total: requirements.length,
  };
  const remedies = new Map<string, string[]>();
  for (const r of requirements) {
    if (r.verdict === 'NOT_APPLICABLE') v.notApplicable += 1;
    const u = unverifiedOf(r);
    if (u === undefined) {
      if (r.verdict !== 'NOT_APPLICABLE') v.verified += 1;
      continue;
    }
    if (u.cause === 'not-declared') {
      v.notVerifiable.count += 1;
      remedies.set(u.remedy!, [...(remedies.get(u.remedy!) ?? []), r.id]);
    } else if (u.cause === 'profile-error') v.blockedByProfile += 1;
    else if (u.cause === 'blocked-by-target') v.blockedByTarget += 1;
    else if (u.cause === 'pending') v.pending += 1;
    else if (u.cause === 'not-selected') v.notSelected += 1;
    else v.other += 1;
  }
  v.notVerifiable.remedies = [...remedies]
    .map(([remedy, ids]) => ({ remedy, requirements: ids }))
    .sort((a, b) => b.requirements.length - a.requirements.length || a.remedy.localeCompare(b.remedy));
  return v;
}

/** The closing line's words: "verified 77 of 137 requirements (…); 31 not verifiable with this profile: …". */
export function verificationLine(v: Verification, shownRemedies = 3): string {
  const parts = [`verified ${v.verified} of ${v.total} requirements (PASS/FAIL/WARN)`];
  if (v.notApplicable > 0) parts.push(`${v.notApplicable} not applicable`);
  if (v.notVerifiable.count > 0) {
    const shown = v.notVerifiable.remedies.slice(0, shownRemedies).map((r) => `${r.remedy}: ${r.requirements.length}`);
    const more =
      v.notVerifiable.remedies.length > shownRemedies
        ? `; +${v.notVerifiable.remedies.length - shownRemedies} more in the report`
        : '';
    parts.push(
      `${v.notVerifiable.count} not verifiable with this profile${shownRemedies > 0 ? ` (${shown.join('; ')}${more})` : ''}`,
    );
  }
  if (v.blockedByProfile > 0)
    parts.push(`${v.blockedByProfile} blocked by the profile (a refused credential or a declaration)`);
  if (v.blockedByTarget > 0) parts.push(`${v.blockedByTarget} blocked by the target`);
  if (v.pending > 0) parts.push(`${v.pending} pending (a later run settles them)`);
  if (v.notSelected > 0) parts.push(`${v.notSelected} not selected`);
  if (v.other > 0) parts.push(`${v.other} not verified for another reason`);
  return parts.join(', ');
}

/** The report's verification, for a report read back (older reports carry none). */
export function reportVerification(report: Pick<ConformanceReport, 'requirements'>): Verification {
  return verificationOf(report.requirements);
}
