// Lanes of the time-travel project. Its checks run one at a time because each moves something other
// checks share: the clock, the fault switch, a principal's state, a rate-limit window, or the
// failed attempts of a client or user. Against a target that offers none of the first (no clock,
// fault, restart or principal control, no declared rate limit, no real-time waits) only the last
// kind is left, and that state is a principal's own: checks that exhaust different principals
// cannot disturb each other. Against such a target far away, where these checks spend their time
// on round trips, and with a core idle to start the workers, `run` gives the project one worker per
// lane (a spec file's checks stay in file order on one worker, unless the file lets them go to any)
// and each check holds its lane's lock while it runs — its tag's lane, else its file's; a check of
// no lane holds every lane, so it still runs alone. The lanes still wait for the conformance checks
// (their failed logins could get the address throttled), unless the profile declares a lockout that
// touches nothing but the principal named: then the lanes of a principal of their own start with
// them, in a project of their own (time-travel-pass.ts).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TargetProfile } from '../profile/profile.schema.ts';

/**
 * The lane of each spec file whose serial checks exhaust one principal's state alone (paths under
 * specs/). Files of one lane share that principal and still take turns.
 */
export const laneOfSpec: Readonly<Record<string, string>> = {
  // 50 wrong passwords for lockableUser, LIMIT-RATE-005 before LIMIT-RATE-003 (file order).
  'limits/rate-limits.spec.ts': 'lockableUser',
  // Every refresh-token family of burnableUser.
  'properties/token-lifecycle.spec.ts': 'burnableUser',
  'properties/refresh-concurrency.spec.ts': 'burnableUser',
  // Protected calls with altered tokens: the gateway's view of the one client whose token it alters.
  'properties/gateway-input.spec.ts': 'gateway-input',
};

/**
 * The lane of a check (by its tag) whose principals are not its file's other checks'. The token
 * endpoint input at US and at EU: a failure either sends names its own region's clients (the EU
 * client, or the US ones) or a made-up client or user; the one user both send gets its right
 * password only, which counts as no failed login. Their file lets its checks go to any worker
 * (test.describe.configure parallel), so the two regions run side by side in lanes.
 */
export const laneOfTag: Readonly<Record<string, string>> = {
  '@property-token-input-us': 'usClients',
  '@property-token-input-eu': 'euClient',
};

export const allLanes: readonly string[] = [
  ...new Set([...Object.values(laneOfSpec), ...Object.values(laneOfTag)]),
].sort();

/** Time-travel workers with lanes: one per lane, and one for the checks of no lane. */
export const laneWorkers = allLanes.length + 1;

/**
 * The lanes whose state is their principal's alone: its failed logins (lockableUser, the clients of
 * one region: every failure the token-endpoint input sends names them without a wrong secret, or a
 * made-up client or user) or its refresh-token families (burnableUser). Not gateway-input: the
 * client whose token it alters is the one the conformance checks call the gateway with.
 */
export const ownPrincipalLanes: ReadonlySet<string> = new Set([
  'lockableUser',
  'burnableUser',
  'usClients',
  'euClient',
]);

/**
 * The spec files whose serial checks each hold a lane of a principal of their own (by the file,
 * or by each check's tag: the token-endpoint input). Where the target's lockout touches nothing but
 * the principal a wrong secret or password names (lanesBesideConformance), nothing they exhaust is
 * any other check's: they need not wait for the conformance checks.
 */
export const besideConformanceSpecs: readonly string[] = [
  ...Object.entries(laneOfSpec)
    .filter(([, lane]) => ownPrincipalLanes.has(lane))
    .map(([file]) => file),
  'properties/token-endpoint-input.spec.ts',
].sort();

/** The time-travel workers of the lanes beside the conformance checks: one per lane. */
export const besideLaneWorkers = ownPrincipalLanes.size;

/**
 * Whether the lanes of a principal of their own may run beside the conformance checks: the profile
 * declares that failed logins lock out nothing but the principal they name, or nothing at all
 * (capabilities.lockout). Undeclared, a throttle of the address (a suspicious-IP block) could
 * refuse the checks beside them.
 */
export function lanesBesideConformance(profile: TargetProfile): boolean {
  const lockout = profile.capabilities.lockout;
  return lockout === 'none' || lockout === 'per-principal';
}

/** The lanes a check holds while it runs: its tag's lane, else its file's, else every lane (it runs alone). */
export function lanesOf(specFile: string, specsDir: string, tags: readonly string[] = []): string[] {
  const lane =
    tags.map((tag) => laneOfTag[tag]).find((l) => l !== undefined) ??
    laneOfSpec[relative(specsDir, specFile).split(sep).join('/')];
  return lane !== undefined ? [lane] : [...allLanes];
}

/**
 * Why the time-travel checks of this target cannot run in lanes (undefined: they can): it offers a
 * control or declares a limit whose state every check shares.
 */
export function sharedStateOf(profile: TargetProfile): string | undefined {
  const c = profile.capabilities;
  if (c.clockControlUrl !== undefined) return 'clock control';
  if (c.faultControlUrl !== undefined) return 'fault control';
  if (c.restartControlUrl !== undefined) return 'restart control';
  if (c.clockSandboxes !== undefined) return 'clock sandboxes';
  if (c.rateLimit !== undefined) return 'a declared rate limit';
  if ((c.realTimeWaitSeconds ?? 0) > 0) return 'real-time waits';
  if (profile.hooks !== undefined) return 'principal hooks';
  if (profile.state !== undefined) return 'a state file';
  return undefined;
}

/** How often a waiting check looks at a lane again. */
const pollMs = 25;

const lockDir = (dir: string, lane: string) => join(dir, Buffer.from(lane).toString('base64url'));

/**
 * Whether the process that holds a lane is gone (a worker that crashed holding it). Two checks
 * taking over one crashed lane at the same moment is the one race left: a crash is rare, and the
 * cost is two checks of one lane side by side once.
 */
function ownerGone(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(lock, 'owner'), 'utf8'));
  } catch {
    return false; // the owner is writing its name right now
  }
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Takes the lanes (in one order: no two checks wait on each other), waiting while another worker
 * holds one; resolves to the release. A directory per lane in `dir` (mkdir is atomic), naming its
 * owner process, so a lane whose owner crashed is taken over.
 */
export async function holdLanes(dir: string, lanes: readonly string[]): Promise<() => void> {
  const held: string[] = [];
  const release = () => {
    for (const lock of held.splice(0)) rmSync(lock, { recursive: true, force: true });
  };
  try {
    for (const lane of [...lanes].sort()) {
      const lock = lockDir(dir, lane);
      for (;;) {
        try {
          mkdirSync(lock);
          break;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
          if (ownerGone(lock)) rmSync(lock, { recursive: true, force: true });
          else await sleep(pollMs);
        }
      }
      held.push(lock);
      writeFileSync(join(lock, 'owner'), String(process.pid));
    }
  } catch (error) {
    release();
    throw error;
  }
  return release;
}
