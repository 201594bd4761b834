import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { type MigrationMeta, readMigrationFiles } from 'drizzle-orm/migrator';
import pg from 'pg';
import { describePostgresUrl } from './url.js';

/** `migrations/` at the repository root, from `src/db` and from `dist/db` alike. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../migrations', import.meta.url));

/** Any number works as long as every replica uses the same one. */
const MIGRATION_LOCK_KEY = 7_312_841_560;

/**
 * Applies pending migrations in one transaction that first takes a transaction-level advisory lock,
 * so replicas starting together run them one after the other; the later ones find nothing to do.
 * A failure leaves the schema unchanged. The lock lives exactly as long as the transaction, so this
 * works through a pooler in transaction mode (PgBouncer) as well as on a direct connection: a
 * session lock would be taken on one server connection and released on another.
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
    const db = drizzleNodePg({ client });
    const migrations = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER });
    // No time limit for this transaction, whatever the role's or database's defaults (docs/operations.md's
    // PgBouncer section has the API's role carry its 5-second timeouts): a migration may rebuild an
    // index over every claim, and waits for the lock while another replica migrates. One message,
    // so that the transaction is not idle between BEGIN and the settings, and a transaction pooler
    // runs both on the same server connection.
    await client.query(
      "BEGIN; SELECT set_config('statement_timeout', '0', true), set_config('idle_in_transaction_session_timeout', '0', true)",
    );
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    // drizzle's migrator reads which migrations are applied, then applies the rest in a transaction
    // of its own; here that transaction is the one holding the lock (no nested BEGIN).
    const { dialect, session } = db as unknown as DrizzleInternals;
    const inOurTransaction = Object.assign(Object.create(session) as object, {
      transaction: <T>(work: (tx: typeof db) => Promise<T>) => work(db),
    });
    await dialect.migrate(migrations, inOurTransaction, { migrationsFolder: MIGRATIONS_FOLDER });
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/** What drizzle's node-postgres migrate() uses, reached directly so that it runs in our transaction. */
interface DrizzleInternals {
  dialect: { migrate(migrations: MigrationMeta[], session: object, config: { migrationsFolder: string }): Promise<void> };
  session: object;
}

/** PGlite is a single connection owned by this process, so no lock is needed. */
export async function migratePglite(client: PGlite): Promise<void> {
  // Drizzle's PGlite driver only where PGlite runs (see openDatabase).
  const [{ drizzle }, { migrate }] = await Promise.all([import('drizzle-orm/pglite'), import('drizzle-orm/pglite/migrator')]);
  await migrate(drizzle({ client }), { migrationsFolder: MIGRATIONS_FOLDER });
}

function describeConnectError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code ? `${code} (${error.message})` : error.message;
  }
  return String(error);
}
