// What the server's composition root needs from a store: the domain's ports (Store, PortalStore)
// plus the operations of the edges and the operator (people search, purge of portal sessions,
// seeding, readiness). SQLite (sqlite-store.ts) and PostgreSQL (postgres-store.ts) implement it;
// test/store/store-contract.test.ts is the behaviour every implementation must show.
import type { Client, PersonRecord, User } from '../domain/model.ts';
import type { PortalStore } from '../domain/portal/portal-ports.ts';
import type { DecisionReads, Store } from '../domain/ports.ts';

export interface SeedRecords {
  clients: Client[];
  users: User[];
  people: PersonRecord[];
}

/**
 * The test clock's offset from system time, kept in a store that several replicas share, so that
 * moving the clock through one replica moves it for all (clock/test-clock.ts).
 */
export interface SharedClockOffset {
  read(): Promise<number>;
  /** Adds `ms` atomically; returns the offset after the move. */
  moveBy(ms: number): Promise<number>;
  set(ms: number): Promise<number>;
}

/** The gateway's fault switch (test controls) kept in a shared store: one setting for every replica. */
export interface SharedFaultSetting {
  read(): Promise<string | null>;
  set(name: string | null): Promise<void>;
}

/** The reads of clients, users, people and failed attempts that one decision makes (see `readsOfOneDecision`). */
export type RecordReads = DecisionReads;

export interface ServerStore extends Store, PortalStore {
  readonly kind: 'sqlite' | 'postgres';
  /**
   * Present on stores that replicas on several machines share (PostgreSQL). SQLite has none: the
   * processes sharing its file are one machine's, and each keeps its own test clock.
   */
  readonly sharedClock?: SharedClockOffset;
  /** Likewise for the gateway's fault switch (present on PostgreSQL only). */
  readonly sharedFault?: SharedFaultSetting;
  /** People with this family name (case-insensitive, ASCII), by identifier, at most `limit`. */
  searchPeople(familyName: string, limit: number): Promise<PersonRecord[]>;
  /** Deletes portal sessions last seen before `before`, at most `limit`; returns how many. */
  purgePortalSessions(before: number, limit: number): Promise<number>;
  /**
   * Loads seed records once: only into a store that was never seeded, and never over existing rows,
   * in one transaction with the marker, so that processes starting together on one new store seed
   * it once. Returns whether this call seeded.
   */
  seedIfNew(records: SeedRecords, marker: string): Promise<boolean>;
  /** Resolves when the store answers a query (readiness); rejects otherwise. */
  ping(): Promise<void>;
  /**
   * Present on a store that keeps the records it read (SQLite): reads for one decision that check
   * for other processes' changes once instead of before every read. Absent on PostgreSQL, whose
   * replicas keep nothing (a per-process copy could not see another replica's change).
   */
  readsOfOneDecision?(): RecordReads;
}
