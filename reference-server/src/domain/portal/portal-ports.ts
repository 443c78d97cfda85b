// What the portal's use cases need from the store, beyond the token service's Store: the clients a
// tenant registered itself, and signed-in sessions. Kept separate so that the token side's Store
// stays as small as it is.
import type { Client } from '../model.ts';
import type { Store } from '../ports.ts';

/** A signed-in portal session. The session id itself is never stored: only its digest. */
export interface PortalSession {
  idHash: string;
  tenant: string;
  userName: string;
  /** The synchronizer token every form of this session must carry (CSRF). */
  csrfToken: string;
  createdAt: number;
  lastSeenAt: number;
}

export interface PortalStore {
  /** Inserts a client unless its id is taken; returns whether it did (a generated id never overwrites another client). */
  insertClientIfAbsent(client: Client): Promise<boolean>;
  /** Clients registered on the portal by the administrators of `tenant`, oldest first. */
  listClientsManagedBy(tenant: string): Promise<Client[]>;
  saveSession(session: PortalSession): Promise<void>;
  findSession(idHash: string): Promise<PortalSession | undefined>;
  touchSession(idHash: string, now: number): Promise<void>;
  deleteSession(idHash: string): Promise<void>;
  /** Ends every session of the user except `keepIdHash`; returns how many ended. */
  deleteUserSessions(tenant: string, userName: string, keepIdHash: string | null): Promise<number>;
}

export type PortalStorePort = Store & PortalStore;
