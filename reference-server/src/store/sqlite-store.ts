// The default store: embedded SQLite through better-sqlite3. A file (WAL, busy_timeout, so that
// several processes can share it) or `:memory:`. Schema migrations run on open. The one operation
// that must be atomic, consuming a refresh token, is a single conditional UPDATE: of any number of
// concurrent consumers, in this process or another one sharing the file, exactly one wins.
// Every method answers synchronously inside an async function: the port is asynchronous for stores
// across the network, and a thrown SQLite error still arrives as a rejected promise.
/* eslint-disable @typescript-eslint/require-await */
import Database from 'better-sqlite3';
import type { Client, PersonRecord, RefreshTokenRecord, User } from '../domain/model.ts';
import type { PortalSession } from '../domain/portal/portal-ports.ts';
import type { AttemptPrincipal, ConsumeRefreshTokenResult, FailedAttempts } from '../domain/ports.ts';
import type { RecordReads, SeedRecords, ServerStore } from './server-store.ts';
import { RowCache } from './row-cache.ts';
import { lostConsumption } from './lost-consumption.ts';
import { int, str, toFailedAttempts, toPerson, toRefreshToken, toSession, type Row } from './row-mapping.ts';

/** Forward-only migrations; the index + 1 is the schema version. Never edit a shipped entry. */
const migrations: readonly string[] = [
  `CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE clients (
     client_id TEXT PRIMARY KEY, secret_hash TEXT NOT NULL, name TEXT NOT NULL,
     region TEXT NOT NULL CHECK (region IN ('us','eu')),
     environment TEXT NOT NULL CHECK (environment IN ('sandbox','production')),
     grants TEXT NOT NULL, registration_tenant_id TEXT, registration_role TEXT,
     active INTEGER NOT NULL, created_at INTEGER NOT NULL);
   CREATE TABLE users (
     tenant TEXT NOT NULL, user_name TEXT NOT NULL, password_hash TEXT NOT NULL,
     password_changed_at INTEGER NOT NULL, role TEXT NOT NULL, active INTEGER NOT NULL,
     PRIMARY KEY (tenant, user_name));
   CREATE TABLE refresh_tokens (
     token_hash TEXT PRIMARY KEY, family_id TEXT NOT NULL, client_id TEXT NOT NULL,
     tenant TEXT NOT NULL, user_name TEXT NOT NULL, scope TEXT NOT NULL,
     issued_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, used_at INTEGER, revoked_at INTEGER);
   CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);
   CREATE INDEX refresh_tokens_user ON refresh_tokens (tenant, user_name);
   CREATE INDEX refresh_tokens_expiry ON refresh_tokens (expires_at);
   CREATE TABLE revoked_families (family_id TEXT PRIMARY KEY, revoked_at INTEGER NOT NULL);
   CREATE TABLE people (
     identifier TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, given_name TEXT NOT NULL,
     family_name TEXT NOT NULL, email TEXT NOT NULL, employment_status TEXT NOT NULL, hire_date TEXT NOT NULL);`,
  // 2: brute-force protection at the token endpoint (domain/attempt-throttle.ts).
  `CREATE TABLE failed_attempts (
     kind TEXT NOT NULL CHECK (kind IN ('client','user')), name TEXT NOT NULL,
     failures INTEGER NOT NULL, last_failure_at INTEGER NOT NULL, locked_until INTEGER,
     PRIMARY KEY (kind, name));
   CREATE INDEX failed_attempts_last_failure ON failed_attempts (last_failure_at);`,
  // 3: the portal (src/portal): tenant administrators, self-registered sandbox clients, sessions.
  `ALTER TABLE users ADD COLUMN tenant_admin INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE clients ADD COLUMN managed_by_tenant TEXT;
   ALTER TABLE clients ADD COLUMN secret_hint TEXT;
   CREATE INDEX clients_managed_by ON clients (managed_by_tenant);
   CREATE TABLE portal_sessions (
     id_hash TEXT PRIMARY KEY, tenant TEXT NOT NULL, user_name TEXT NOT NULL, csrf_token TEXT NOT NULL,
     created_at INTEGER NOT NULL, last_seen_at INTEGER NOT NULL);
   CREATE INDEX portal_sessions_user ON portal_sessions (tenant, user_name);
   CREATE INDEX portal_sessions_last_seen ON portal_sessions (last_seen_at);`,
  // 4: failed attempts per (principal, source), so that a stranger's failures never lock the
  // principal for its own sources (domain/attempt-throttle.ts). Runs of failures are transient:
  // the old rows are dropped.
  `DROP TABLE failed_attempts;
   CREATE TABLE failed_attempts (
     kind TEXT NOT NULL CHECK (kind IN ('client','user')), name TEXT NOT NULL, source TEXT NOT NULL,
     failures INTEGER NOT NULL, last_failure_at INTEGER NOT NULL, locked_until INTEGER,
     PRIMARY KEY (kind, name, source));
   CREATE INDEX failed_attempts_last_failure ON failed_attempts (last_failure_at);`,
];

/** The most failed-attempt rows kept; past it the oldest go first (a bound on the store's growth under attack). */
export const MAX_FAILED_ATTEMPT_ROWS = 50_000;
/** How many new rows between two checks of that bound (a count is a table scan). */
const FAILED_ATTEMPT_TRIM_EVERY = 1_000;

export interface SqliteStoreOptions {
  /** SQLite's `synchronous` in WAL mode: NORMAL survives process crashes, FULL power loss too. */
  synchronous?: 'NORMAL' | 'FULL';
}

export class SqliteStore implements ServerStore {
  readonly kind = 'sqlite';
  readonly #db: Database.Database;
  readonly #s;
  #newFailedAttemptRows = 0;
  // Clients, users, people and failed attempts as last read (row-cache.ts). Exact: every statement of this store
  // that writes those tables empties it first (see the constructor), and a commit by any other connection to
  // the file (another process, another store object) changes `PRAGMA data_version`, which every
  // cached read checks first. A database no other connection can open (`:memory:`) needs no check.
  readonly #rows = new RowCache();
  readonly #dataVersion: Database.Statement | undefined;
  #seenDataVersion: unknown;

  constructor(file: string, options: SqliteStoreOptions = {}) {
    this.#db = new Database(file);
    if (file !== ':memory:') this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('busy_timeout = 5000');
    // Durability: every write is its own transaction, committed before the answer goes out. In WAL
    // mode a commit is in the operating system's hands once the call returns, so a killed process
    // (SIGKILL, OOM, a crash) loses nothing it acknowledged under either setting below (proven by
    // test/reliability/crash.test.ts). NORMAL (the default) fsyncs only at checkpoints: a power cut
    // or kernel crash may roll back the last commits — a refresh token the client holds would be
    // gone, or worse a used one unused again. FULL fsyncs the WAL at every commit and closes that
    // window, at the price of an fsync inside every write, on the event loop, which every request
    // then waits behind (bench/soak shows the tail latency). A test target needs process-crash
    // safety; a deployment that must survive power loss passes --synchronous full.
    this.#db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
    this.#db.pragma('foreign_keys = ON');
    this.#migrate();
    const db = this.#db;
    this.#s = {
      findClient: db.prepare('SELECT * FROM clients WHERE client_id = ?'),
      saveClient:
        db.prepare(`INSERT INTO clients (client_id, secret_hash, name, region, environment, grants, registration_tenant_id, registration_role, active, created_at, managed_by_tenant, secret_hint)
        VALUES (@client_id, @secret_hash, @name, @region, @environment, @grants, @registration_tenant_id, @registration_role, @active, @created_at, @managed_by_tenant, @secret_hint)
        ON CONFLICT (client_id) DO UPDATE SET secret_hash = excluded.secret_hash, name = excluded.name, region = excluded.region,
          environment = excluded.environment, grants = excluded.grants, registration_tenant_id = excluded.registration_tenant_id,
          registration_role = excluded.registration_role, active = excluded.active, managed_by_tenant = excluded.managed_by_tenant,
          secret_hint = excluded.secret_hint`),
      insertClient:
        db.prepare(`INSERT OR IGNORE INTO clients (client_id, secret_hash, name, region, environment, grants, registration_tenant_id, registration_role, active, created_at, managed_by_tenant, secret_hint)
        VALUES (@client_id, @secret_hash, @name, @region, @environment, @grants, @registration_tenant_id, @registration_role, @active, @created_at, @managed_by_tenant, @secret_hint)`),
      clientsManagedBy: db.prepare('SELECT * FROM clients WHERE managed_by_tenant = ? ORDER BY created_at, client_id'),
      deleteClient: db.prepare('DELETE FROM clients WHERE client_id = ?'),
      findUser: db.prepare('SELECT * FROM users WHERE tenant = ? AND user_name = ?'),
      saveUser:
        db.prepare(`INSERT INTO users (tenant, user_name, password_hash, password_changed_at, role, active, tenant_admin)
        VALUES (@tenant, @user_name, @password_hash, @password_changed_at, @role, @active, @tenant_admin)
        ON CONFLICT (tenant, user_name) DO UPDATE SET password_hash = excluded.password_hash,
          password_changed_at = excluded.password_changed_at, role = excluded.role, active = excluded.active,
          tenant_admin = excluded.tenant_admin`),
      insertUser:
        db.prepare(`INSERT OR IGNORE INTO users (tenant, user_name, password_hash, password_changed_at, role, active, tenant_admin)
        VALUES (@tenant, @user_name, @password_hash, @password_changed_at, @role, @active, @tenant_admin)`),
      saveSession:
        db.prepare(`INSERT INTO portal_sessions (id_hash, tenant, user_name, csrf_token, created_at, last_seen_at)
        VALUES (@id_hash, @tenant, @user_name, @csrf_token, @created_at, @last_seen_at)`),
      findSession: db.prepare('SELECT * FROM portal_sessions WHERE id_hash = ?'),
      touchSession: db.prepare('UPDATE portal_sessions SET last_seen_at = ? WHERE id_hash = ?'),
      deleteSession: db.prepare('DELETE FROM portal_sessions WHERE id_hash = ?'),
      deleteUserSessions: db.prepare(
        'DELETE FROM portal_sessions WHERE tenant = @tenant AND user_name = @user AND id_hash <> @keep',
      ),
      purgeSessions: db.prepare(`DELETE FROM portal_sessions WHERE rowid IN (
        SELECT rowid FROM portal_sessions WHERE last_seen_at < @before LIMIT @limit)`),
      saveRefreshToken:
        db.prepare(`INSERT INTO refresh_tokens (token_hash, family_id, client_id, tenant, user_name, scope, issued_at, expires_at, used_at, revoked_at)
        VALUES (@token_hash, @family_id, @client_id, @tenant, @user_name, @scope, @issued_at, @expires_at, @used_at, @revoked_at)`),
      findRefreshToken: db.prepare('SELECT * FROM refresh_tokens WHERE token_hash = ?'),
      consume: db.prepare(`UPDATE refresh_tokens SET used_at = @now
        WHERE token_hash = @hash AND client_id = @client AND used_at IS NULL AND revoked_at IS NULL AND expires_at > @now
          AND NOT EXISTS (SELECT 1 FROM revoked_families f WHERE f.family_id = refresh_tokens.family_id)
        RETURNING *`),
      revokeFamilyTokens: db.prepare(
        'UPDATE refresh_tokens SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL',
      ),
      markFamilyRevoked: db.prepare('INSERT OR IGNORE INTO revoked_families (family_id, revoked_at) VALUES (?, ?)'),
      isFamilyRevoked: db.prepare('SELECT 1 FROM revoked_families WHERE family_id = ?'),
      revokeUserTokens: db.prepare(`UPDATE refresh_tokens SET revoked_at = @now
        WHERE tenant = @tenant AND user_name = @user AND revoked_at IS NULL AND used_at IS NULL AND expires_at > @now`),
      markUserFamiliesRevoked: db.prepare(`INSERT OR IGNORE INTO revoked_families (family_id, revoked_at)
        SELECT DISTINCT family_id, @now FROM refresh_tokens WHERE tenant = @tenant AND user_name = @user`),
      findFailedAttempts: db.prepare('SELECT * FROM failed_attempts WHERE kind = ? AND name = ? AND source = ?'),
      recordFailedAttempt:
        db.prepare(`INSERT INTO failed_attempts (kind, name, source, failures, last_failure_at, locked_until)
        VALUES (@kind, @name, @source, 1, @now, NULL)
        ON CONFLICT (kind, name, source) DO UPDATE SET
          failures = CASE WHEN failed_attempts.last_failure_at < @restartBefore THEN 1 ELSE failed_attempts.failures + 1 END,
          last_failure_at = @now
        RETURNING *`),
      lockPrincipal: db.prepare(
        'UPDATE failed_attempts SET failures = 0, locked_until = @until WHERE kind = @kind AND name = @name AND source = @source',
      ),
      clearFailedAttempts: db.prepare('DELETE FROM failed_attempts WHERE kind = ? AND name = ? AND source = ?'),
      countFailedAttempts: db.prepare('SELECT count(*) AS n FROM failed_attempts'),
      trimFailedAttempts: db.prepare(`DELETE FROM failed_attempts WHERE rowid IN (SELECT rowid FROM failed_attempts
        ORDER BY last_failure_at LIMIT @excess)`),
      purgeFailedAttempts: db.prepare(`DELETE FROM failed_attempts WHERE rowid IN (SELECT rowid FROM failed_attempts
        WHERE last_failure_at < @before AND (locked_until IS NULL OR locked_until < @before) LIMIT @limit)`),
      purge: db.prepare(
        'DELETE FROM refresh_tokens WHERE rowid IN (SELECT rowid FROM refresh_tokens WHERE expires_at < ? LIMIT ?)',
      ),
      findPerson: db.prepare('SELECT * FROM people WHERE identifier = ?'),
      searchPeople: db.prepare('SELECT * FROM people WHERE family_name = ? COLLATE NOCASE ORDER BY identifier LIMIT ?'),
      savePerson:
        db.prepare(`INSERT INTO people (identifier, tenant_id, given_name, family_name, email, employment_status, hire_date)
        VALUES (@identifier, @tenant_id, @given_name, @family_name, @email, @employment_status, @hire_date)
        ON CONFLICT (identifier) DO UPDATE SET tenant_id = excluded.tenant_id, given_name = excluded.given_name,
          family_name = excluded.family_name, email = excluded.email, employment_status = excluded.employment_status, hire_date = excluded.hire_date`),
      insertPerson:
        db.prepare(`INSERT OR IGNORE INTO people (identifier, tenant_id, given_name, family_name, email, employment_status, hire_date)
        VALUES (@identifier, @tenant_id, @given_name, @family_name, @email, @employment_status, @hire_date)`),
      getMeta: db.prepare('SELECT value FROM meta WHERE name = ?'),
      putMetaIfAbsent: db.prepare('INSERT OR IGNORE INTO meta (name, value) VALUES (?, ?)'),
    };
    const rows = this.#rows;
    for (const statement of Object.values(this.#s))
      if (writesCachedRows(statement.source)) emptyBeforeEveryRun(statement, rows);
    this.#dataVersion = file === ':memory:' ? undefined : db.prepare('PRAGMA data_version').pluck();
    this.#seenDataVersion = this.#dataVersion?.get();
  }

  /** The row cache, emptied first if another connection committed since the last look. */
  #freshRows(): RowCache {
    if (this.#dataVersion !== undefined) {
      const version = this.#dataVersion.get();
      if (version !== this.#seenDataVersion) {
        this.#rows.clear();
        this.#seenDataVersion = version;
      }
    }
    return this.#rows;
  }

  #migrate(): void {
    const current = this.#db.pragma('user_version', { simple: true }) as number;
    for (let version = current; version < migrations.length; version += 1) {
      this.#db
        .transaction(() => {
          this.#db.exec(migrations[version] ?? '');
          this.#db.pragma(`user_version = ${version + 1}`);
        })
        .immediate();
    }
  }

  /** The durability settings in force (journal mode, synchronous level), for tests and diagnostics. */
  get durability(): { journalMode: string; synchronous: number } {
    return {
      journalMode: String(this.#db.pragma('journal_mode', { simple: true })),
      synchronous: Number(this.#db.pragma('synchronous', { simple: true })),
    };
  }

  get schemaVersion(): number {
    return this.#db.pragma('user_version', { simple: true }) as number;
  }

  async findClient(clientId: string): Promise<Client | undefined> {
    return this.#client(this.#freshRows(), clientId);
  }

  #client(rows: RowCache, clientId: string): Client | undefined {
    const cached = rows.client(clientId);
    if (cached !== undefined) return cached;
    const row = this.#s.findClient.get(clientId) as Row | undefined;
    return row && rows.keepClient(clientId, toClient(row));
  }

  /**
   * The client, user and person reads of one decision (a gateway request): other connections'
   * commits are looked for once, here, instead of before each read. Exact all the same: the
   * decision reads the store as of this moment or later (this store's own writes still empty the
   * cache at once), just as a change landing during a decision lands before or after it.
   */
  readsOfOneDecision(): RecordReads {
    this.#freshRows();
    return this.#checkedReads;
  }

  /** The reads of readsOfOneDecision: the cache as it is (one object for every decision, no closures per request). */
  readonly #checkedReads: RecordReads = {
    findClient: (clientId) => Promise.resolve(this.#client(this.#rows, clientId)),
    findUser: (tenant, userName) => Promise.resolve(this.#user(this.#rows, tenant, userName)),
    findPerson: (identifier) => Promise.resolve(this.#person(this.#rows, identifier)),
    findFailedAttempts: (principal) => Promise.resolve(this.#failedAttempts(this.#rows, principal)),
  };

  async saveClient(client: Client): Promise<void> {
    this.#s.saveClient.run(clientRow(client));
  }

  async insertClientIfAbsent(client: Client): Promise<boolean> {
    return this.#s.insertClient.run(clientRow(client)).changes === 1;
  }

  async listClientsManagedBy(tenant: string): Promise<Client[]> {
    return (this.#s.clientsManagedBy.all(tenant) as Row[]).map(toClient);
  }

  async saveSession(session: PortalSession): Promise<void> {
    this.#s.saveSession.run({
      id_hash: session.idHash,
      tenant: session.tenant,
      user_name: session.userName,
      csrf_token: session.csrfToken,
      created_at: session.createdAt,
      last_seen_at: session.lastSeenAt,
    });
  }

  async findSession(idHash: string): Promise<PortalSession | undefined> {
    const row = this.#s.findSession.get(idHash) as Row | undefined;
    return row && toSession(row);
  }

  async touchSession(idHash: string, now: number): Promise<void> {
    this.#s.touchSession.run(now, idHash);
  }

  async deleteSession(idHash: string): Promise<void> {
    this.#s.deleteSession.run(idHash);
  }

  async deleteUserSessions(tenant: string, userName: string, keepIdHash: string | null): Promise<number> {
    return this.#s.deleteUserSessions.run({ tenant, user: userName, keep: keepIdHash ?? '' }).changes;
  }

  async purgePortalSessions(before: number, limit: number): Promise<number> {
    return this.#s.purgeSessions.run({ before, limit }).changes;
  }

  async deleteClient(clientId: string): Promise<void> {
    this.#s.deleteClient.run(clientId);
  }

  async findUser(tenant: string, userName: string): Promise<User | undefined> {
    return this.#user(this.#freshRows(), tenant, userName);
  }

  #user(rows: RowCache, tenant: string, userName: string): User | undefined {
    const cached = rows.user(tenant, userName);
    if (cached !== undefined) return cached;
    const row = this.#s.findUser.get(tenant, userName) as Row | undefined;
    return row && rows.keepUser(tenant, userName, toUser(row));
  }

  async saveUser(user: User): Promise<void> {
    this.#s.saveUser.run(userRow(user));
  }

  async saveRefreshToken(r: RefreshTokenRecord): Promise<void> {
    this.#s.saveRefreshToken.run({
      token_hash: r.tokenHash,
      family_id: r.familyId,
      client_id: r.clientId,
      tenant: r.tenant,
      user_name: r.userName,
      scope: r.scope,
      issued_at: r.issuedAt,
      expires_at: r.expiresAt,
      used_at: r.usedAt,
      revoked_at: r.revokedAt,
    });
  }

  async findRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | undefined> {
    const row = this.#s.findRefreshToken.get(tokenHash) as Row | undefined;
    return row && toRefreshToken(row);
  }

  async consumeRefreshToken(tokenHash: string, clientId: string, now: number): Promise<ConsumeRefreshTokenResult> {
    const won = this.#s.consume.get({ hash: tokenHash, client: clientId, now }) as Row | undefined;
    if (won) return { outcome: 'consumed', record: toRefreshToken(won) };
    return lostConsumption(this, tokenHash, clientId);
  }

  async revokeFamily(familyId: string, now: number): Promise<number> {
    return this.#db
      .transaction(() => {
        this.#s.markFamilyRevoked.run(familyId, now);
        return this.#s.revokeFamilyTokens.run(now, familyId).changes;
      })
      .immediate();
  }

  async revokeUserTokens(tenant: string, userName: string, now: number): Promise<number> {
    return this.#db
      .transaction(() => {
        this.#s.markUserFamiliesRevoked.run({ tenant, user: userName, now });
        return this.#s.revokeUserTokens.run({ tenant, user: userName, now }).changes;
      })
      .immediate();
  }

  async isFamilyRevoked(familyId: string): Promise<boolean> {
    return this.#s.isFamilyRevoked.get(familyId) !== undefined;
  }

  async purgeExpired(before: number, limit: number): Promise<number> {
    return this.#s.purge.run(before, limit).changes;
  }

  async findFailedAttempts(principal: AttemptPrincipal): Promise<FailedAttempts | undefined> {
    return this.#failedAttempts(this.#freshRows(), principal);
  }

  #failedAttempts(rows: RowCache, principal: AttemptPrincipal): FailedAttempts | undefined {
    const cached = rows.failedAttempts(principal);
    if (cached !== undefined) return cached ?? undefined;
    const row = this.#s.findFailedAttempts.get(principal.kind, principal.name, principal.source ?? '') as
      Row | undefined;
    return rows.keepFailedAttempts(principal, row && toFailedAttempts(row));
  }

  async recordFailedAttempt(principal: AttemptPrincipal, now: number, restartBefore: number): Promise<FailedAttempts> {
    const state = toFailedAttempts(
      this.#s.recordFailedAttempt.get({
        kind: principal.kind,
        name: principal.name,
        source: principal.source ?? '',
        now,
        restartBefore,
      }) as Row,
    );
    // A new row (or a restarted run): every so often, hold the table to its bound.
    if (state.failures === 1 && (this.#newFailedAttemptRows += 1) >= FAILED_ATTEMPT_TRIM_EVERY) {
      this.#newFailedAttemptRows = 0;
      await this.trimFailedAttempts(MAX_FAILED_ATTEMPT_ROWS);
    }
    return state;
  }

  /** Deletes the oldest failed-attempt rows beyond `max`; returns how many went. */
  async trimFailedAttempts(max: number): Promise<number> {
    const { n } = this.#s.countFailedAttempts.get() as { n: number };
    return n > max ? this.#s.trimFailedAttempts.run({ excess: n - max }).changes : 0;
  }

  async lockPrincipal(principal: AttemptPrincipal, until: number): Promise<void> {
    this.#s.lockPrincipal.run({ kind: principal.kind, name: principal.name, source: principal.source ?? '', until });
  }

  async clearFailedAttempts(principal: AttemptPrincipal): Promise<void> {
    this.#s.clearFailedAttempts.run(principal.kind, principal.name, principal.source ?? '');
  }

  async purgeFailedAttempts(before: number, limit: number): Promise<number> {
    return this.#s.purgeFailedAttempts.run({ before, limit }).changes;
  }

  async findPerson(identifier: string): Promise<PersonRecord | undefined> {
    return this.#person(this.#freshRows(), identifier);
  }

  #person(rows: RowCache, identifier: string): PersonRecord | undefined {
    const cached = rows.person(identifier);
    if (cached !== undefined) return cached;
    const row = this.#s.findPerson.get(identifier) as Row | undefined;
    return row && rows.keepPerson(identifier, toPerson(row));
  }

  /** People with this family name (case-insensitive, ASCII), by identifier, at most `limit`. */
  async searchPeople(familyName: string, limit: number): Promise<PersonRecord[]> {
    return (this.#s.searchPeople.all(familyName, limit) as Row[]).map(toPerson);
  }

  async savePerson(p: PersonRecord): Promise<void> {
    this.#s.savePerson.run(personRow(p));
  }

  async getMeta(name: string): Promise<string | undefined> {
    return (this.#s.getMeta.get(name) as { value: string } | undefined)?.value;
  }

  async putMetaIfAbsent(name: string, value: string): Promise<string> {
    this.#s.putMetaIfAbsent.run(name, value);
    return (await this.getMeta(name)) ?? value;
  }

  /**
   * Loads seed records once: only into a store that was never seeded, and never over existing rows.
   * The marker and the rows are written in one transaction, so two processes starting on one new
   * file seed it once. Returns whether this call seeded.
   */
  async seedIfNew(records: SeedRecords, marker: string): Promise<boolean> {
    return this.#db
      .transaction(() => {
        if (this.#s.putMetaIfAbsent.run('seeded', marker).changes === 0) return false;
        for (const c of records.clients) this.#s.insertClient.run(clientRow(c));
        for (const u of records.users) this.#s.insertUser.run(userRow(u));
        for (const p of records.people) this.#s.insertPerson.run(personRow(p));
        return true;
      })
      .immediate();
  }

  async ping(): Promise<void> {
    this.#s.getMeta.get('seeded');
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}

/**
 * Whether a statement may change a row the row cache keeps: an INSERT, UPDATE, DELETE or REPLACE
 * that names the clients, users, people or failed_attempts table (the schema has no triggers and
 * no foreign keys into them, so no other statement changes them). Writes of refresh tokens or
 * sessions leave the cache as it is.
 */
function writesCachedRows(sql: string): boolean {
  return /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i.test(sql) && /\b(clients|users|people|failed_attempts)\b/i.test(sql);
}

/** Makes every execution of `statement` (run, get, all, iterate) empty `rows` first. */
function emptyBeforeEveryRun(statement: Database.Statement, rows: RowCache): void {
  for (const method of ['run', 'get', 'all', 'iterate'] as const) {
    const execute = statement[method].bind(statement) as (...params: unknown[]) => unknown;
    Object.defineProperty(statement, method, {
      value: (...params: unknown[]) => {
        rows.clear();
        return execute(...params);
      },
    });
  }
}

function toClient(r: Row): Client {
  const tenantId = r.registration_tenant_id;
  const role = r.registration_role;
  return {
    clientId: str(r.client_id),
    secretHash: str(r.secret_hash),
    name: str(r.name),
    region: str(r.region) as Client['region'],
    environment: str(r.environment) as Client['environment'],
    grants: JSON.parse(str(r.grants)) as Client['grants'],
    registration: tenantId === null || role === null ? null : { tenantId: str(tenantId), role: str(role) },
    active: r.active === 1,
    createdAt: int(r.created_at),
    managedByTenant:
      r.managed_by_tenant === null || r.managed_by_tenant === undefined ? null : str(r.managed_by_tenant),
    secretHint: r.secret_hint === null || r.secret_hint === undefined ? null : str(r.secret_hint),
  };
}

function clientRow(client: Client): Record<string, unknown> {
  return {
    client_id: client.clientId,
    secret_hash: client.secretHash,
    name: client.name,
    region: client.region,
    environment: client.environment,
    grants: JSON.stringify(client.grants),
    registration_tenant_id: client.registration?.tenantId ?? null,
    registration_role: client.registration?.role ?? null,
    active: client.active ? 1 : 0,
    created_at: client.createdAt,
    managed_by_tenant: client.managedByTenant,
    secret_hint: client.secretHint,
  };
}

function userRow(user: User): Record<string, unknown> {
  return {
    tenant: user.tenant,
    user_name: user.userName,
    password_hash: user.passwordHash,
    password_changed_at: user.passwordChangedAt,
    role: user.role,
    active: user.active ? 1 : 0,
    tenant_admin: user.tenantAdmin ? 1 : 0,
  };
}

function personRow(p: PersonRecord): Record<string, unknown> {
  return {
    identifier: p.identifier,
    tenant_id: p.tenantId,
    given_name: p.givenName,
    family_name: p.familyName,
    email: p.email,
    employment_status: p.employmentStatus,
    hire_date: p.hireDate,
  };
}

function toUser(r: Row): User {
  return {
    tenant: str(r.tenant),
    userName: str(r.user_name),
    passwordHash: str(r.password_hash),
    passwordChangedAt: int(r.password_changed_at),
    role: str(r.role),
    active: r.active === 1,
    tenantAdmin: r.tenant_admin === 1,
  };
}
