// The reference server's store file as a reader sees it (WAL included): its size in pages and the
// number of refresh-token rows. Opened read-only next to the running server.
import Database from 'better-sqlite3';

export interface StoreStats {
  /** page_count × page_size: the database as committed, WAL frames included. */
  bytes: number;
  /** Pages on the free list (deleted rows' space, reused before the file grows). */
  freeBytes: number;
  refreshTokenRows: number;
}

export function readStoreStats(file: string): StoreStats {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const pages = db.pragma('page_count', { simple: true }) as number;
    const free = db.pragma('freelist_count', { simple: true }) as number;
    const rows = (db.prepare('SELECT count(*) AS n FROM refresh_tokens').get() as { n: number }).n;
    return { bytes: pages * pageSize, freeBytes: free * pageSize, refreshTokenRows: rows };
  } finally {
    db.close();
  }
}
