import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePgliteDb } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { describePostgresUrl } from './url.js';

/** `migrations/` at the repository root, from `src/db` and from `dist/db` alike. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../migrations', import.meta.url));

/** Any number works as long as every replica uses the same one. */
const MIGRATION_LOCK_KEY = 7_312_841_560;

/**
 * Applies pending migrations on one dedicated connection that holds a session advisory lock,
 * so replicas starting together run them one after the other; the later ones find nothing to do.
 * drizzle applies all pending migrations in one transaction: a failure leaves the schema unchanged.
 */
export async function migratePostgres(url: string, connectTimeoutMs = 5000): Promise<void> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: connectTimeoutMs,
    application_name: 'campaign-service-migrate',
  });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`cannot reach ${describePostgresUrl(url)}: ${describeConnectError(error)}`, { cause: error });
  }
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await migrateNodePg(drizzleNodePg({ client }), { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}

/** PGlite is a single connection owned by this process, so no lock is needed. */
export async function migratePglite(client: PGlite): Promise<void> {
  await migratePgliteDb(drizzlePglite({ client }), { migrationsFolder: MIGRATIONS_FOLDER });
}

function describeConnectError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code ? `${code} (${error.message})` : error.message;
  }
  return String(error);
}
