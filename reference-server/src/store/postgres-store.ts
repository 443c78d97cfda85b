// The shared store: PostgreSQL through the `pg` driver, for several replicas of the server on one
// database (README "Running it for a team"). Same rules as the SQLite store (sqlite-store.ts),
// held by the database rather than by one process:
// - consuming a refresh token is one conditional UPDATE … RETURNING: under READ COMMITTED a second
//   concurrent UPDATE of the row waits for the first and re-checks `used_at IS NULL` on the row it
//   committed, so of any number of consumers on any number of replicas exactly one wins;
// - every other write is one statement (upserts with ON CONFLICT, CTEs for the two-table
//   revocations) or one transaction (seeding), so no replica ever acts on a read another changed;
// - migrations run on start under a transaction-scoped advisory lock: replicas starting together
//   apply each one once, the others wait and find the schema current;
// - the signing key is created once (INSERT … ON CONFLICT DO NOTHING, then read by everyone);
// - the test clock's offset lives in the database, so a move reaches every replica at once.
// Epoch milliseconds are BIGINT (pg returns them as strings: converted with Number, exact below 2^53).
import pg from 'pg';
import type { Client, PersonRecord, RefreshTokenRecord, User } from '../domain/model.ts';
import type { PortalSession } from '../domain/portal/portal-ports.ts';
import type { AttemptPrincipal, ConsumeRefreshTokenResult, FailedAttempts } from '../domain/ports.ts';
import type { SeedRecords, ServerStore, SharedClockOffset, SharedFaultSetting } from './server-store.ts';
import { MAX_FAILED_ATTEMPT_ROWS } from './sqlite-store.ts';
import { lostConsumption } from './lost-consumption.ts';
import { int, str, strOrNull, toFailedAttempts, toPerson, toRefreshToken, toSession, type Row } from './row-mapping.ts';

/** Forward-only migrations; the index + 1 is the schema version. Never edit a shipped entry. */
const migrations: readonly string[] = [
  `CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE clients (
     client_id TEXT PRIMARY KEY, secret_hash TEXT NOT NULL, name TEXT NOT NULL,
     region TEXT NOT NULL CHECK (region IN ('us','eu')),
     environment TEXT NOT NULL CHECK (environment IN ('sandbox','production')),
     grants TEXT NOT NULL, registration_tenant_id TEXT, registration_role TEXT,
     active BOOLEAN NOT NULL, created_at BIGINT NOT NULL, managed_by_tenant TEXT, secret_hint TEXT);
   CREATE INDEX clients_managed_by ON clients (managed_by_tenant);
   CREATE TABLE users (
     tenant TEXT NOT NULL, user_name TEXT NOT NULL, password_hash TEXT NOT NULL,
     password_changed_at BIGINT NOT NULL, role TEXT NOT NULL, active BOOLEAN NOT NULL,
     tenant_admin BOOLEAN NOT NULL DEFAULT FALSE, PRIMARY KEY (tenant, user_name));
   CREATE TABLE refresh_tokens (
     token_hash TEXT PRIMARY KEY, family_id TEXT NOT NULL, client_id TEXT NOT NULL,
     tenant TEXT NOT NULL, user_name TEXT NOT NULL, scope TEXT NOT NULL,
     issued_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, used_at BIGINT, revoked_at BIGINT);
   CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);
   CREATE INDEX refresh_tokens_user ON refresh_tokens (tenant, user_name);
   CREATE INDEX refresh_tokens_expiry ON refresh_tokens (expires_at);
   CREATE TABLE revoked_families (family_id TEXT PRIMARY KEY, revoked_at BIGINT NOT NULL);
   CREATE TABLE people (
     identifier TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, given_name TEXT NOT NULL,
     family_name TEXT NOT NULL, email TEXT NOT NULL, employment_status TEXT NOT NULL, hire_date TEXT NOT NULL);
   CREATE INDEX people_family_name ON people (lower(family_name COLLATE "C"));
   CREATE TABLE failed_attempts (
     kind TEXT NOT NULL CHECK (kind IN ('client','user')), name TEXT NOT NULL, source TEXT NOT NULL,
     failures INTEGER NOT NULL, last_failure_at BIGINT NOT NULL, locked_until BIGINT,
     PRIMARY KEY (kind, name, source));
   CREATE INDEX failed_attempts_last_failure ON failed_attempts (last_failure_at);
   CREATE TABLE portal_sessions (
     id_hash TEXT PRIMARY KEY, tenant TEXT NOT NULL, user_name TEXT NOT NULL, csrf_token TEXT NOT NULL,
     created_at BIGINT NOT NULL, last_seen_at BIGINT NOT NULL);
   CREATE INDEX portal_sessions_user ON portal_sessions (tenant, user_name);
   CREATE INDEX portal_sessions_last_seen ON portal_sessions (last_seen_at);
   CREATE TABLE test_clock (id INTEGER PRIMARY KEY CHECK (id = 1), offset_ms BIGINT NOT NULL);`,
];

/** The advisory lock that serialises migrations across replicas (any constant unique to this schema). */
const MIGRATION_LOCK = 7_301_936_019;
const FAILED_ATTEMPT_TRIM_EVERY = 1_000;
const TEST_FAULT = 'test-fault';
/** Connections per replica: requests wait for a free one; PostgreSQL's default limit is 100 in all. */
const POOL_SIZE = 10;

const CLIENT_COLUMNS =
  'client_id, secret_hash, name, region, environment, grants, registration_tenant_id, registration_role, active, created_at, managed_by_tenant, secret_hint';
const USER_COLUMNS = 'tenant, user_name, password_hash, password_changed_at, role, active, tenant_admin';
const PERSON_COLUMNS = 'identifier, tenant_id, given_name, family_name, email, employment_status, hire_date';

/** Named statements: each connection parses and plans them once. */
const sql = {
  findClient: 'SELECT * FROM clients WHERE client_id = $1',
  saveClient: `INSERT INTO clients (${CLIENT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
    ON CONFLICT (client_id) DO UPDATE SET secret_hash = excluded.secret_hash, name = excluded.name, region = excluded.region,
      environment = excluded.environment, grants = excluded.grants, registration_tenant_id = excluded.registration_tenant_id,
      registration_role = excluded.registration_role, active = excluded.active, managed_by_tenant = excluded.managed_by_tenant,
      secret_hint = excluded.secret_hint`,
  insertClient: `INSERT INTO clients (${CLIENT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING`,
  clientsManagedBy: 'SELECT * FROM clients WHERE managed_by_tenant = $1 ORDER BY created_at, client_id COLLATE "C"',
  deleteClient: 'DELETE FROM clients WHERE client_id = $1',
  findUser: 'SELECT * FROM users WHERE tenant = $1 AND user_name = $2',
  saveUser: `INSERT INTO users (${USER_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)
    ON CONFLICT (tenant, user_name) DO UPDATE SET password_hash = excluded.password_hash,
      password_changed_at = excluded.password_changed_at, role = excluded.role, active = excluded.active,
      tenant_admin = excluded.tenant_admin`,
  insertUser: `INSERT INTO users (${USER_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
  saveSession: `INSERT INTO portal_sessions (id_hash, tenant, user_name, csrf_token, created_at, last_seen_at)
    VALUES ($1, $2, $3, $4, $5, $6)`,
  findSession: 'SELECT * FROM portal_sessions WHERE id_hash = $1',
  touchSession: 'UPDATE portal_sessions SET last_seen_at = $2 WHERE id_hash = $1',
  deleteSession: 'DELETE FROM portal_sessions WHERE id_hash = $1',
  deleteUserSessions: 'DELETE FROM portal_sessions WHERE tenant = $1 AND user_name = $2 AND id_hash <> $3',
  purgeSessions: `DELETE FROM portal_sessions WHERE id_hash IN (
    SELECT id_hash FROM portal_sessions WHERE last_seen_at < $1 LIMIT $2)`,
  saveRefreshToken: `INSERT INTO refresh_tokens (token_hash, family_id, client_id, tenant, user_name, scope, issued_at, expires_at, used_at, revoked_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
  findRefreshToken: 'SELECT * FROM refresh_tokens WHERE token_hash = $1',
  consume: `UPDATE refresh_tokens SET used_at = $3
    WHERE token_hash = $1 AND client_id = $2 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $3
      AND NOT EXISTS (SELECT 1 FROM revoked_families f WHERE f.family_id = refresh_tokens.family_id)
    RETURNING *`,
  // The family is marked first (in the same statement), so a token of the family saved later is refused too.
  revokeFamily: `WITH marked AS (INSERT INTO revoked_families (family_id, revoked_at) VALUES ($1, $2) ON CONFLICT DO NOTHING)
    UPDATE refresh_tokens SET revoked_at = $2 WHERE family_id = $1 AND revoked_at IS NULL`,
  revokeUserTokens: `WITH marked AS (INSERT INTO revoked_families (family_id, revoked_at)
      SELECT DISTINCT family_id, $3::BIGINT FROM refresh_tokens WHERE tenant = $1 AND user_name = $2 ON CONFLICT DO NOTHING)
    UPDATE refresh_tokens SET revoked_at = $3
    WHERE tenant = $1 AND user_name = $2 AND revoked_at IS NULL AND used_at IS NULL AND expires_at > $3`,
  isFamilyRevoked: 'SELECT 1 FROM revoked_families WHERE family_id = $1',
  purgeRefreshTokens: `DELETE FROM refresh_tokens WHERE token_hash IN (
    SELECT token_hash FROM refresh_tokens WHERE expires_at < $1 LIMIT $2)`,
  findFailedAttempts: 'SELECT * FROM failed_attempts WHERE kind = $1 AND name = $2 AND source = $3',
  recordFailedAttempt: `INSERT INTO failed_attempts AS a (kind, name, source, failures, last_failure_at, locked_until)
    VALUES ($1, $2, $3, 1, $4, NULL)
    ON CONFLICT (kind, name, source) DO UPDATE SET
      failures = CASE WHEN a.last_failure_at < $5 THEN 1 ELSE a.failures + 1 END,
      last_failure_at = $4
    RETURNING *`,
  lockPrincipal:
    'UPDATE failed_attempts SET failures = 0, locked_until = $4 WHERE kind = $1 AND name = $2 AND source = $3',
  clearFailedAttempts: 'DELETE FROM failed_attempts WHERE kind = $1 AND name = $2 AND source = $3',
  countFailedAttempts: 'SELECT count(*) AS n FROM failed_attempts',
  trimFailedAttempts: `DELETE FROM failed_attempts WHERE (kind, name, source) IN (
    SELECT kind, name, source FROM failed_attempts ORDER BY last_failure_at LIMIT $1)`,
  purgeFailedAttempts: `DELETE FROM failed_attempts WHERE (kind, name, source) IN (
    SELECT kind, name, source FROM failed_attempts
    WHERE last_failure_at < $1 AND (locked_until IS NULL OR locked_until < $1) LIMIT $2)`,
  findPerson: 'SELECT * FROM people WHERE identifier = $1',
  // SQLite's NOCASE folds ASCII only; lower() under the "C" collation does the same.
  searchPeople:
    'SELECT * FROM people WHERE lower(family_name COLLATE "C") = lower($1::TEXT COLLATE "C") ORDER BY identifier COLLATE "C" LIMIT $2',
  savePerson: `INSERT INTO people (${PERSON_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)
    ON CONFLICT (identifier) DO UPDATE SET tenant_id = excluded.tenant_id, given_name = excluded.given_name,
      family_name = excluded.family_name, email = excluded.email, employment_status = excluded.employment_status, hire_date = excluded.hire_date`,
  insertPerson: `INSERT INTO people (${PERSON_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
  getMeta: 'SELECT value FROM meta WHERE name = $1',
  putMetaIfAbsent: 'INSERT INTO meta (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING',
  readClock: 'SELECT offset_ms FROM test_clock WHERE id = 1',
  moveClockBy: `INSERT INTO test_clock AS c (id, offset_ms) VALUES (1, $1)
    ON CONFLICT (id) DO UPDATE SET offset_ms = c.offset_ms + excluded.offset_ms RETURNING offset_ms`,
  setClock: `INSERT INTO test_clock (id, offset_ms) VALUES (1, $1)
    ON CONFLICT (id) DO UPDATE SET offset_ms = excluded.offset_ms RETURNING offset_ms`,
  setMeta: 'INSERT INTO meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
  ping: 'SELECT 1',
} as const;

type StatementName = keyof typeof sql;

export class PostgresStore implements ServerStore {
  readonly kind = 'postgres';
  readonly #pool: pg.Pool;
  #newFailedAttemptRows = 0;
  #roundTrips = 0;

  private constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /** Connects, migrates (once across replicas starting together) and returns the store. */
  static async open(url: string, options: { poolSize?: number } = {}): Promise<PostgresStore> {
    const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? POOL_SIZE });
    // An idle connection dropped by the server (restart, network) must not crash the process: the
    // pool replaces it, and the next query or /readyz reports whether the database is back.
    pool.on('error', () => undefined);
    const store = new PostgresStore(pool);
    try {
      await store.#migrate();
    } catch (error) {
      await pool.end();
      throw error;
    }
    return store;
  }

  async #migrate(): Promise<void> {
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
      const current = Number(
        (await client.query<{ version: number }>('SELECT max(version) AS version FROM schema_version')).rows[0]
          ?.version ?? 0,
      );
      for (let version = current; version < migrations.length; version += 1) {
        await client.query(migrations[version] ?? '');
        await client.query('INSERT INTO schema_version (version) VALUES ($1)', [version + 1]);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async #run(name: StatementName, values: unknown[]): Promise<pg.QueryResult<Row>> {
    this.#roundTrips += 1;
    return this.#pool.query<Row>({ name, text: sql[name], values });
  }

  async #one(name: StatementName, values: unknown[]): Promise<Row | undefined> {
    return (await this.#run(name, values)).rows[0];
  }

  async #changes(name: StatementName, values: unknown[]): Promise<number> {
    return (await this.#run(name, values)).rowCount ?? 0;
  }

  /** Statements sent so far (the bench's store round trips per request). */
  get roundTrips(): number {
    return this.#roundTrips;
  }

  async schemaVersion(): Promise<number> {
    const row = (await this.#pool.query<{ version: number }>('SELECT max(version) AS version FROM schema_version'))
      .rows[0];
    return Number(row?.version ?? 0);
  }

  async findClient(clientId: string): Promise<Client | undefined> {
    const row = await this.#one('findClient', [clientId]);
    return row && toClient(row);
  }

  async saveClient(client: Client): Promise<void> {
    await this.#run('saveClient', clientValues(client));
  }

  async insertClientIfAbsent(client: Client): Promise<boolean> {
    return (await this.#changes('insertClient', clientValues(client))) === 1;
  }

  async listClientsManagedBy(tenant: string): Promise<Client[]> {
    return (await this.#run('clientsManagedBy', [tenant])).rows.map(toClient);
  }

  async deleteClient(clientId: string): Promise<void> {
    await this.#run('deleteClient', [clientId]);
  }

  async findUser(tenant: string, userName: string): Promise<User | undefined> {
    const row = await this.#one('findUser', [tenant, userName]);
    return row && toUser(row);
  }

  async saveUser(user: User): Promise<void> {
    await this.#run('saveUser', userValues(user));
  }

  async saveSession(session: PortalSession): Promise<void> {
    await this.#run('saveSession', [
      session.idHash,
      session.tenant,
      session.userName,
      session.csrfToken,
      session.createdAt,
      session.lastSeenAt,
    ]);
  }

  async findSession(idHash: string): Promise<PortalSession | undefined> {
    const row = await this.#one('findSession', [idHash]);
    return row && toSession(row);
  }

  async touchSession(idHash: string, now: number): Promise<void> {
    await this.#run('touchSession', [idHash, now]);
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.#run('deleteSession', [idHash]);
  }

  async deleteUserSessions(tenant: string, userName: string, keepIdHash: string | null): Promise<number> {
    return this.#changes('deleteUserSessions', [tenant, userName, keepIdHash ?? '']);
  }

  async purgePortalSessions(before: number, limit: number): Promise<number> {
    return this.#changes('purgeSessions', [before, limit]);
  }

  async saveRefreshToken(r: RefreshTokenRecord): Promise<void> {
    await this.#run('saveRefreshToken', [
      r.tokenHash,
      r.familyId,
      r.clientId,
      r.tenant,
      r.userName,
      r.scope,
      r.issuedAt,
      r.expiresAt,
      r.usedAt,
      r.revokedAt,
    ]);
  }

  async findRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | undefined> {
    const row = await this.#one('findRefreshToken', [tokenHash]);
    return row && toRefreshToken(row);
  }

  async consumeRefreshToken(tokenHash: string, clientId: string, now: number): Promise<ConsumeRefreshTokenResult> {
    const won = await this.#one('consume', [tokenHash, clientId, now]);
    if (won) return { outcome: 'consumed', record: toRefreshToken(won) };
    return lostConsumption(this, tokenHash, clientId);
  }

  async revokeFamily(familyId: string, now: number): Promise<number> {
    return this.#changes('revokeFamily', [familyId, now]);
  }

  async revokeUserTokens(tenant: string, userName: string, now: number): Promise<number> {
    return this.#changes('revokeUserTokens', [tenant, userName, now]);
  }

  async isFamilyRevoked(familyId: string): Promise<boolean> {
    return (await this.#one('isFamilyRevoked', [familyId])) !== undefined;
  }

  async purgeExpired(before: number, limit: number): Promise<number> {
    return this.#changes('purgeRefreshTokens', [before, limit]);
  }

  async findFailedAttempts(principal: AttemptPrincipal): Promise<FailedAttempts | undefined> {
    const row = await this.#one('findFailedAttempts', principalKey(principal));
    return row && toFailedAttempts(row);
  }

  async recordFailedAttempt(principal: AttemptPrincipal, now: number, restartBefore: number): Promise<FailedAttempts> {
    const row = await this.#one('recordFailedAttempt', [...principalKey(principal), now, restartBefore]);
    if (!row) throw new Error('recordFailedAttempt returned no row');
    const state = toFailedAttempts(row);
    // A new row (or a restarted run): every so often, hold the table to its bound.
    if (state.failures === 1 && (this.#newFailedAttemptRows += 1) >= FAILED_ATTEMPT_TRIM_EVERY) {
      this.#newFailedAttemptRows = 0;
      await this.trimFailedAttempts(MAX_FAILED_ATTEMPT_ROWS);
    }
    return state;
  }

  /** Deletes the oldest failed-attempt rows beyond `max`; returns how many went. */
  async trimFailedAttempts(max: number): Promise<number> {
    const n = Number((await this.#one('countFailedAttempts', []))?.n ?? 0);
    return n > max ? this.#changes('trimFailedAttempts', [n - max]) : 0;
  }

  async lockPrincipal(principal: AttemptPrincipal, until: number): Promise<void> {
    await this.#run('lockPrincipal', [...principalKey(principal), until]);
  }

  async clearFailedAttempts(principal: AttemptPrincipal): Promise<void> {
    await this.#run('clearFailedAttempts', principalKey(principal));
  }

  async purgeFailedAttempts(before: number, limit: number): Promise<number> {
    return this.#changes('purgeFailedAttempts', [before, limit]);
  }

  async findPerson(identifier: string): Promise<PersonRecord | undefined> {
    const row = await this.#one('findPerson', [identifier]);
    return row && toPerson(row);
  }

  async searchPeople(familyName: string, limit: number): Promise<PersonRecord[]> {
    return (await this.#run('searchPeople', [familyName, limit])).rows.map(toPerson);
  }

  async savePerson(p: PersonRecord): Promise<void> {
    await this.#run('savePerson', personValues(p));
  }

  async getMeta(name: string): Promise<string | undefined> {
    const row = await this.#one('getMeta', [name]);
    return row === undefined ? undefined : String(row.value);
  }

  async putMetaIfAbsent(name: string, value: string): Promise<string> {
    await this.#run('putMetaIfAbsent', [name, value]);
    // A separate statement: its snapshot sees a row another replica committed meanwhile.
    return (await this.getMeta(name)) ?? value;
  }

  async seedIfNew(records: SeedRecords, marker: string): Promise<boolean> {
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      // A second replica's insert of the marker waits for the first one's transaction, then does nothing.
      const claimed = (await client.query(sql.putMetaIfAbsent, ['seeded', marker])).rowCount === 1;
      if (claimed) {
        for (const c of records.clients) await client.query(sql.insertClient, clientValues(c));
        for (const u of records.users) await client.query(sql.insertUser, userValues(u));
        for (const p of records.people) await client.query(sql.insertPerson, personValues(p));
      }
      await client.query('COMMIT');
      return claimed;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** The test clock's offset, one row for every replica. */
  readonly sharedClock: SharedClockOffset = {
    read: async () => Number((await this.#one('readClock', []))?.offset_ms ?? 0),
    moveBy: async (ms) => Number((await this.#one('moveClockBy', [ms]))?.offset_ms ?? 0),
    set: async (ms) => Number((await this.#one('setClock', [ms]))?.offset_ms ?? 0),
  };

  /** The gateway's fault switch, one row for every replica ('' is none). */
  readonly sharedFault: SharedFaultSetting = {
    read: async () => (await this.getMeta(TEST_FAULT)) || null,
    set: async (name) => {
      await this.#run('setMeta', [TEST_FAULT, name ?? '']);
    },
  };

  async ping(): Promise<void> {
    await this.#run('ping', []);
  }

  async close(): Promise<void> {
    if (!this.#pool.ended) await this.#pool.end();
  }
}

const principalKey = (p: AttemptPrincipal): [string, string, string] => [p.kind, p.name, p.source ?? ''];

function clientValues(c: Client): unknown[] {
  return [
    c.clientId,
    c.secretHash,
    c.name,
    c.region,
    c.environment,
    JSON.stringify(c.grants),
    c.registration?.tenantId ?? null,
    c.registration?.role ?? null,
    c.active,
    c.createdAt,
    c.managedByTenant,
    c.secretHint,
  ];
}

function userValues(u: User): unknown[] {
  return [u.tenant, u.userName, u.passwordHash, u.passwordChangedAt, u.role, u.active, u.tenantAdmin];
}

function personValues(p: PersonRecord): unknown[] {
  return [p.identifier, p.tenantId, p.givenName, p.familyName, p.email, p.employmentStatus, p.hireDate];
}

function toClient(r: Row): Client {
  const tenantId = strOrNull(r.registration_tenant_id);
  const role = strOrNull(r.registration_role);
  return {
    clientId: str(r.client_id),
    secretHash: str(r.secret_hash),
    name: str(r.name),
    region: str(r.region) as Client['region'],
    environment: str(r.environment) as Client['environment'],
    grants: JSON.parse(str(r.grants)) as Client['grants'],
    registration: tenantId === null || role === null ? null : { tenantId, role },
    active: r.active === true,
    createdAt: int(r.created_at),
    managedByTenant: strOrNull(r.managed_by_tenant),
    secretHint: strOrNull(r.secret_hint),
  };
}

function toUser(r: Row): User {
  return {
    tenant: str(r.tenant),
    userName: str(r.user_name),
    passwordHash: str(r.password_hash),
    passwordChangedAt: int(r.password_changed_at),
    role: str(r.role),
    active: r.active === true,
    tenantAdmin: r.tenant_admin === true,
  };
}
