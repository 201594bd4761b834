import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import type { SQL } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { type PgDatabase, PgDialect, type PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { migratePglite, migratePostgres } from './migrate.js';
import * as schema from './schema.js';
import { describePostgresUrl } from './url.js';

/** What repositories receive: Drizzle over either driver; they cannot tell which. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface DatabaseHandle {
  db: Database;
  kind: 'postgres' | 'pglite';
  /** Where the data lives, safe to print (no password). */
  location: string;
  /** The pg pool, when on PostgreSQL (for pool metrics); absent on PGlite. */
  pool?: pg.Pool;
  /** Resolves when the database answers `SELECT 1` within `timeoutMs`, rejects otherwise. */
  ping(timeoutMs: number): Promise<void>;
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

export type DatabaseSettings = Pick<
  Config,
  'DATABASE_URL' | 'PGLITE_DATA_DIR' | 'DB_POOL_MAX' | 'DB_STATEMENT_TIMEOUT_MS' | 'DB_CONNECT_TIMEOUT_MS'
>;

export async function openDatabase(settings: DatabaseSettings, logger?: Logger): Promise<DatabaseHandle> {
  return settings.DATABASE_URL
    ? openPostgres(settings.DATABASE_URL, settings, logger)
    : openPglite(settings.PGLITE_DATA_DIR);
}

function openPostgres(url: string, settings: DatabaseSettings, logger?: Logger): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: settings.DB_POOL_MAX,
    connectionTimeoutMillis: settings.DB_CONNECT_TIMEOUT_MS,
    statement_timeout: settings.DB_STATEMENT_TIMEOUT_MS,
    application_name: 'campaign-service',
  });
  // An idle client that loses its connection (database restart) must not crash the process.
  pool.on('error', (error) => logger?.warn({ err: error }, 'idle database connection closed'));
  const db = drizzleNodePg({ client: pool, schema }) as unknown as Database;
  return {
    db,
    kind: 'postgres',
    location: describePostgresUrl(url),
    pool,
    ping: (timeoutMs) => withTimeout(pool.query('SELECT 1').then(() => undefined), timeoutMs),
    migrate: () => migratePostgres(url, settings.DB_CONNECT_TIMEOUT_MS),
    bulkTransaction: async (work) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work({
          query: async <Row>(query: SQL) => {
            const { sql: text, params } = dialect.sqlToQuery(query);
            return (await client.query(text, params)).rows as Row[];
          },
          copyFrom: (table, columns, data) =>
            pipeline(Readable.from([data]), client.query(copyFrom(copyStatement(table, columns, 'STDIN')))),
        });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

async function openPglite(dataDir: string): Promise<DatabaseHandle> {
  const inMemory = dataDir.startsWith('memory://');
  if (!inMemory) await mkdir(dataDir, { recursive: true });
  const client = await PGlite.create(dataDir, {
    // Match node-postgres, which returns int8 as a string, so raw queries behave the same on both drivers.
    parsers: { [pgliteTypes.INT8]: (value: string) => value },
  });
  return wrapPglite(client, inMemory ? 'embedded PGlite (in memory)' : `embedded PGlite at ${dataDir}`);
}

/** Wraps an open PGlite instance; tests use it to hand a cloned database to the app. */
export function wrapPglite(client: PGlite, location: string): DatabaseHandle {
  const db = drizzlePglite({ client, schema }) as unknown as Database;
  return {
    db,
    kind: 'pglite',
    location,
    ping: (timeoutMs) => withTimeout(client.query('SELECT 1').then(() => undefined), timeoutMs),
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

const dialect = new PgDialect();

function copyStatement(table: string, columns: string[], source: string): string {
  const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
  return `COPY ${quote(table)} (${columns.map(quote).join(', ')}) FROM ${source}`;
}

/**
 * Runs a raw SQL query and returns its rows, whichever driver is underneath.
 *
 * On PostgreSQL, outside a transaction, the statement is prepared once per connection under a name
 * derived from its text: the hot read queries are planned once instead of on every request, which is
 * a large share of their cost. Only the first MAX_PREPARED distinct texts are prepared, so that an
 * unusual mix of filters cannot fill the server's memory with plans. Rows come back exactly as
 * Drizzle would hand them (date and time types as text).
 */
export async function queryRows<Row>(db: Database, query: SQL): Promise<Row[]> {
  const client = (db as { $client?: unknown }).$client;
  if (client instanceof pg.Pool && !(db instanceof PgTransaction)) {
    const { sql: text, params } = dialect.sqlToQuery(query);
    return (await client.query<Row & pg.QueryResultRow>({ name: preparedName(text), text, values: params, types: DRIZZLE_TYPES })).rows;
  }
  const result: unknown = await db.execute(query);
  return (result as { rows: Row[] }).rows;
}

const MAX_PREPARED = 500;
const preparedNames = new Map<string, string>();

function preparedName(text: string): string | undefined {
  let name = preparedNames.get(text);
  if (name === undefined && preparedNames.size < MAX_PREPARED) {
    name = `q${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    preparedNames.set(text, name);
  }
  return name;
}

/** Drizzle's node-postgres parsers: date and time types stay text; everything else as node-postgres parses it. */
const RAW_TYPE_IDS = new Set([
  pg.types.builtins.TIMESTAMPTZ,
  pg.types.builtins.TIMESTAMP,
  pg.types.builtins.DATE,
  pg.types.builtins.INTERVAL,
  1115, // timestamp[]
  1182, // date[]
  1185, // timestamptz[]
  1187, // interval[]
  1231, // numeric[]
]);
const asText = (value: string) => value;
const DRIZZLE_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((typeId: number) =>
    RAW_TYPE_IDS.has(typeId) ? asText : (pg.types.getTypeParser(typeId, 'text') as (value: string) => unknown)) as pg.CustomTypesConfig['getTypeParser'],
};

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`database did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
