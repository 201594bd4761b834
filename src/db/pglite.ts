import { mkdir } from 'node:fs/promises';
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import type { SQL } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { copyStatement, type Database, type DatabaseHandle, dialect, withTimeout } from './handle.js';
import { migratePglite } from './migrate.js';
import { lockDataDir } from './pglite-lock.js';
import * as schema from './schema.js';

/**
 * The embedded database (no DATABASE_URL): the demo, the tests without PostgreSQL, a single
 * process. This module is imported only then (see openDatabase).
 */
export async function openPglite(dataDir: string): Promise<DatabaseHandle> {
  const inMemory = dataDir.startsWith('memory://');
  if (!inMemory) await mkdir(dataDir, { recursive: true });
  // A directory another process holds is refused before PGlite touches it (src/db/pglite-lock.ts).
  const unlock = inMemory ? () => undefined : lockDataDir(dataDir);
  let client: PGlite;
  try {
    client = await PGlite.create(dataDir, {
      // Match node-postgres, which returns int8 as a string, so raw queries behave the same on both drivers.
      parsers: { [pgliteTypes.INT8]: (value: string) => value },
    });
  } catch (error) {
    unlock();
    throw error;
  }
  const handle = wrapPglite(client, inMemory ? 'embedded PGlite (in memory)' : `embedded PGlite at ${dataDir}`);
  return { ...handle, close: () => handle.close().finally(unlock) };
}

/** Wraps an open PGlite instance; tests use it to hand a cloned database to the app. */
export function wrapPglite(client: PGlite, location: string): DatabaseHandle {
  const db = drizzlePglite({ client, schema }) as unknown as Database;
  return {
    db,
    read: db,
    kind: 'pglite',
    location,
    ping: (timeoutMs) => withTimeout(client.query('SELECT 1').then(() => undefined), timeoutMs),
    verify: async () => undefined,
    migrate: () => migratePglite(client),
    bulkTransaction: (work) =>
      client.transaction((tx) =>
        work({
          query: async <Row>(query: SQL) => {
            const { sql: text, params } = dialect.sqlToQuery(query);
            return (await tx.query<Row>(text, params)).rows;
          },
          copyFrom: async (table, columns, data) => {
            await tx.query(copyStatement(table, columns, "'/dev/blob'"), [], { blob: new Blob([data]) });
          },
        }),
      ),
    close: () => client.close(),
  };
}
