// Profile clients the target refused during setup (a 429 lockout, invalid_client), shared by every
// Playwright worker of a run. Workers are separate processes, so the locks live in a directory that
// `run` creates in its temporary directory and names in the run manifest (`clientLocks`): one small
// JSON file per lock, written to a temporary name and renamed (atomic: a reader sees a whole file or
// none; two workers locking the same client at once both write a whole file, the last one stays).
// A locked client is not used again in the run: its later checks are BLOCKED with the lock's reason,
// no request sent, so a run never keeps hammering a target that is refusing it.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ClientLock {
  /** What is locked: `<region>:<profile client name>`, or `<region>:<client>/<user name>` for a password grant's 429. */
  key: string;
  /** The profile client name (usClient, …). */
  client: string;
  /** The profile user name, when the 429 answered a password grant (the user may be the locked principal). */
  user?: string;
  region: string;
  /**
   * What the target answered: 429 (locked out), invalid_client (the configured credentials were
   * refused during a check's setup), or profile: the preflight's one try of this credential was
   * refused — a profile error (`field` names what to fix), its checks BLOCKED by the profile.
   */
  kind: '429' | 'invalid_client' | 'profile';
  /** kind profile: the profile field to fix, e.g. credentials.users.user.password ($STAGING_USER_PASSWORD). */
  field?: string;
  /** The Retry-After header of a 429, as sent. */
  retryAfter?: string;
  /** One redacted line: the response that locked the client. */
  response: string;
  /** The check whose setup saw it. */
  check: string;
  at: string;
}

/** A file name for a lock key (keys hold `:` and `/`). */
const fileName = (key: string) => `${Buffer.from(key).toString('base64url')}.json`;

export class ClientLocks {
  private readonly memory = new Map<string, ClientLock>();

  /** `dir` undefined: locks are kept in this process only (a direct `npx playwright test`). */
  constructor(private readonly dir: string | undefined) {}

  /** The lock of the first key that is locked, if any. */
  find(keys: string[]): ClientLock | undefined {
    for (const key of keys) {
      const known = this.memory.get(key);
      if (known) return known;
      if (!this.dir) continue;
      const file = join(this.dir, fileName(key));
      if (!existsSync(file)) continue;
      try {
        const lock = JSON.parse(readFileSync(file, 'utf8')) as ClientLock;
        this.memory.set(key, lock);
        return lock;
      } catch {
        // a file being replaced right now: renames are atomic, so this is a partial read of nothing
      }
    }
    return undefined;
  }

  /** Records a lock (the first one per key wins). */
  lock(lock: ClientLock): void {
    if (this.find([lock.key])) return;
    this.memory.set(lock.key, lock);
    if (!this.dir) return;
    mkdirSync(this.dir, { recursive: true });
    const file = join(this.dir, fileName(lock.key));
    const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(temp, `${JSON.stringify(lock)}\n`, { mode: 0o600 });
    renameSync(temp, file);
  }

  /** Every lock recorded in the run (for its closing line). */
  all(): ClientLock[] {
    if (!this.dir || !existsSync(this.dir)) return [...this.memory.values()];
    const locks: ClientLock[] = [];
    for (const name of readdirSync(this.dir)
      .filter((n) => n.endsWith('.json'))
      .sort()) {
      try {
        locks.push(JSON.parse(readFileSync(join(this.dir, name), 'utf8')) as ClientLock);
      } catch {
        // unreadable: skip it
      }
    }
    return locks;
  }
}

/** The key of a credential the preflight found refused (kind profile): whatever the region or the check. */
export function profileLockKey(kind: 'client' | 'user', name: string): string {
  return `profile:${kind}:${name}`;
}

/** The one line of a profile error: the field, and the answer the target gave it. */
export function profileProblem(lock: ClientLock): string {
  return `the target refused ${lock.field ?? (lock.user !== undefined ? `credentials.users.${lock.user}` : `credentials.clients.${lock.client}`)} in the preflight (${lock.response}): fix it in the profile`;
}

/** The reason a locked client's checks are BLOCKED with. */
export function lockReason(lock: ClientLock): string {
  if (lock.kind === 'profile')
    return `blocked by the profile, not the target: ${profileProblem(lock)}; no request sent with it`;
  const who = `${lock.client}${lock.user ? ` with user ${lock.user}` : ''} at ${lock.region.toUpperCase()}`;
  const why =
    lock.kind === '429'
      ? `the target locked it out (HTTP 429${lock.retryAfter !== undefined ? `, Retry-After ${lock.retryAfter} s` : ', no Retry-After'})`
      : 'the target refused its configured credentials (invalid_client)';
  return `setup: client ${who} is not used again in this run: ${why} in the setup of "${lock.check}" — ${lock.response}`;
}

/** The closing line of `run`: which clients were stopped, and why. */
export function lockSummary(locks: ClientLock[]): string | undefined {
  if (locks.length === 0) return undefined;
  const parts = locks.map(
    (l) =>
      `${l.client}${l.user ? `/${l.user}` : ''} at ${l.region.toUpperCase()} (${l.kind === '429' ? `HTTP 429${l.retryAfter !== undefined ? `, Retry-After ${l.retryAfter} s` : ''}` : l.kind === 'profile' ? `profile error: ${l.response}` : 'invalid_client'})`,
  );
  return `stopped using ${locks.length === 1 ? 'client' : 'clients'} ${parts.join(', ')} after the target refused them during setup; their later checks are BLOCKED, no request sent`;
}
