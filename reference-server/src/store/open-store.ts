// `--data` names the store: a SQLite file (or :memory:) or a PostgreSQL connection URL. Both are
// opened (and migrated) here; the PostgreSQL driver is loaded only when a URL asks for it.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ServerStore } from './server-store.ts';
import { SqliteStore, type SqliteStoreOptions } from './sqlite-store.ts';

export function isPostgresUrl(data: string): boolean {
  return /^postgres(ql)?:\/\//i.test(data);
}

export async function openStore(data: string, options: SqliteStoreOptions = {}): Promise<ServerStore> {
  if (isPostgresUrl(data)) {
    const { PostgresStore } = await import('./postgres-store.ts');
    return PostgresStore.open(data);
  }
  if (data !== ':memory:' && !existsSync(data)) mkdirSync(dirname(data), { recursive: true });
  return new SqliteStore(data, options);
}

/** The store's name for logs: a URL without its password. */
export function describeStore(data: string): string {
  if (!isPostgresUrl(data)) return data;
  try {
    const url = new URL(data);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return 'postgres://(unparseable URL)';
  }
}
