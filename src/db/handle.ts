import type { SQL } from 'drizzle-orm';
import { type PgDatabase, PgDialect, type PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import type { Config } from '../config.js';
import type * as schema from './schema.js';

/**
 * What both drivers (client.ts for PostgreSQL, pglite.ts for the embedded database) share: the
 * handle every layer receives, and the statement helpers they both use.
 */

/** What repositories receive: Drizzle over either driver; they cannot tell which. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface DatabaseHandle {
  /** The primary: writes, and the reads that must see them at once (bearer tokens). */
  db: Database;
  /**
   * Where the API reads public data: DATABASE_READ_URL (a hot standby) when set, else `db`.
   * Repositories take this unless what they read must never lag a write (see createRepositories).
   */
  read: Database;
  kind: 'postgres' | 'pglite';
  /** Where the data lives, safe to print (no password). */
  location: string;
  /** The pg pool, when on PostgreSQL (for pool metrics); absent on PGlite. */
  pool?: pg.Pool;
  /** The read pool, when DATABASE_READ_URL names another server; absent otherwise. */
  readPool?: pg.Pool;
  /** Where the reads go, safe to print; absent when they go to `location`. */
  readLocation?: string;
  /**
   * How another thread connects to where `read` reads (its URL and the pool's settings), when on
   * PostgreSQL: the claim volumes' load runs on a worker thread with a connection of its own.
   */
  readConnection?: { url: string; settings: DatabaseSettings };
  /** Resolves when the database answers `SELECT 1` within `timeoutMs`, rejects otherwise. */
  ping(timeoutMs: number): Promise<void>;
  /**
   * Opens a connection to each database (primary, read replica) and runs `SELECT 1`. Rejects with
   * the driver's error while a database is unreachable (the caller retries), and with a
   * ConnectionRefused when a database refuses the connection for good (a wrong role, password or
   * database name, or a pooler refusing the startup parameters): waiting would not fix that.
   */
  verify(): Promise<void>;
  /** Applies pending migrations (under an advisory lock on PostgreSQL). */
  migrate(): Promise<void>;
  /**
   * Runs `work` in one transaction on one connection with the two things bulk loading needs:
   * SQL built by Drizzle, and COPY. Commits when `work` resolves, rolls back when it throws.
   */
  bulkTransaction<T>(work: (session: BulkSession) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface BulkSession {
  query<Row>(query: SQL): Promise<Row[]>;
  /** `COPY table (columns) FROM STDIN` with `data` in COPY's text format. */
  copyFrom(table: string, columns: string[], data: string): Promise<void>;
}

/**
 * What opening a database needs. The settings added for fault tolerance are optional here so
 * that tools and tests may name only what they care about; `loadConfig` always gives them all,
 * and the fallbacks below are its defaults.
 */
export type DatabaseSettings = Pick<
  Config,
  'DATABASE_URL' | 'PGLITE_DATA_DIR' | 'DB_POOL_MAX' | 'DB_STATEMENT_TIMEOUT_MS' | 'DB_CONNECT_TIMEOUT_MS'
> &
  Partial<
    Pick<
      Config,
      | 'MIGRATE_DATABASE_URL'
      | 'DATABASE_READ_URL'
      | 'DB_QUERY_TIMEOUT_MS'
      | 'DB_POOL_ACQUIRE_TIMEOUT_MS'
      | 'DB_IDLE_IN_TRANSACTION_TIMEOUT_MS'
      | 'DB_APPLICATION_NAME'
      | 'DB_POOL_MODE'
    >
  >;

export const dialect = new PgDialect();

export function copyStatement(table: string, columns: string[], source: string): string {
  const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
  return `COPY ${quote(table)} (${columns.map(quote).join(', ')}) FROM ${source}`;
}

export function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`database did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
