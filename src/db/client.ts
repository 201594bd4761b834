import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { SQL } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { PgTransaction } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Logger } from 'pino';
import { isDatabaseUnavailable, QUERY_READ_TIMEOUT } from './errors.js';
import { migratePostgres } from './migrate.js';
import { isSubmittable } from './submittable.js';
import { adoptServerTimeouts, type TransactionTimeouts, transactionPooledClient } from './transaction-pooling.js';
import * as schema from './schema.js';
import { describePostgresUrl } from './url.js';
import { type BulkSession, copyStatement, type Database, type DatabaseHandle, type DatabaseSettings, dialect, withTimeout } from './handle.js';

export { type BulkSession, copyStatement, type Database, type DatabaseHandle, type DatabaseSettings, dialect, withTimeout };

export async function openDatabase(settings: DatabaseSettings, logger?: Logger): Promise<DatabaseHandle> {
  if (settings.DATABASE_URL) return openPostgres(settings.DATABASE_URL, settings, logger);
  // Loaded only when used: PGlite's code (and Drizzle's driver for it) is memory that a server on
  // PostgreSQL never needs.
  const { openPglite } = await import('./pglite.js');
  return openPglite(settings.PGLITE_DATA_DIR);
}

function openPostgres(url: string, settings: DatabaseSettings, logger?: Logger): DatabaseHandle {
  const pool = createPool(url, settings, logger);
  const db = drizzleNodePg({ client: pool, schema }) as unknown as Database;
  const readUrl = settings.DATABASE_READ_URL;
  const readPool = readUrl ? createPool(readUrl, settings, logger) : undefined;
  const read = readPool ? (drizzleNodePg({ client: readPool, schema }) as unknown as Database) : db;
  const pools = readPool ? [pool, readPool] : [pool];
  return {
    db,
    read,
    kind: 'postgres',
    location: describePostgresUrl(url),
    pool,
    readPool,
    readLocation: readUrl ? describePostgresUrl(readUrl) : undefined,
    readConnection: { url: readUrl ?? url, settings },
    ping: (timeoutMs) => withTimeout(Promise.all(pools.map((each) => each.query('SELECT 1'))).then(() => undefined), timeoutMs),
    verify: async () => {
      await verifyPool(pool, url, logger);
      if (readPool) await verifyPool(readPool, readUrl!, logger);
    },
    migrate: () => migratePostgres(settings.MIGRATE_DATABASE_URL ?? url, settings.DB_CONNECT_TIMEOUT_MS),
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
    close: async () => {
      await Promise.all(pools.map((each) => each.end()));
    },
  };
}

/** A database refused the API's connection for a reason waiting will not fix; the message says what to check. */
export class ConnectionRefused extends Error {
  override name = 'ConnectionRefused';
}

async function verifyPool(pool: pg.Pool, url: string, logger?: Logger): Promise<void> {
  try {
    await pool.query('SELECT 1');
    const timeouts = transactionTimeouts.get(pool);
    if (timeouts) {
      await adoptServerTimeouts((text) => pool.query(text), timeouts);
      logger?.info(
        { database: describePostgresUrl(url), statementTimeoutMs: timeouts.statementTimeoutMs, idleInTransactionTimeoutMs: timeouts.idleInTransactionTimeoutMs },
        timeouts.perTransaction
          ? 'transaction pooling: each transaction sets the timeouts (the role and database have other defaults)'
          : "transaction pooling: the role's or database's defaults are the timeouts; transactions set nothing",
      );
    }
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw error;
    // Connected, and the statement ran into DB_STATEMENT_TIMEOUT_MS on a busy server: not a refusal.
    if ((error as { code?: unknown }).code === '57014') return;
    const { code, message } = error as { code?: string; message?: string };
    const hint = message?.includes('unsupported startup parameter')
      ? ': a pooler in transaction mode (PgBouncer) is in between; set DB_POOL_MODE=transaction'
      : ': check the role, password and database name in the URL';
    throw new ConnectionRefused(`${describePostgresUrl(url)} refused the connection (${code ?? 'no SQLSTATE'}: ${message})${hint}`, {
      cause: error,
    });
  }
}

/** The timeouts of each pool in transaction mode, which verifyPool may find the server applies already. */
const transactionTimeouts = new WeakMap<pg.Pool, TransactionTimeouts>();

/** TCP keepalive finds a database host that vanished without closing its connections. */
const KEEPALIVE_INITIAL_DELAY_MS = 10_000;

/**
 * The API's pool, bounded so that no request waits on the database without limit:
 *
 * - a request waits at most DB_POOL_ACQUIRE_TIMEOUT_MS for a connection, whether it queues for a
 *   busy pool or a new connection is being opened; opening one connection is given at most
 *   DB_CONNECT_TIMEOUT_MS (pg-pool has one timeout for both, so its clients get their own);
 * - the server cancels a query after DB_STATEMENT_TIMEOUT_MS (a 504), and ends a transaction left
 *   idle for DB_IDLE_IN_TRANSACTION_TIMEOUT_MS;
 * - the client stops waiting for an answer after DB_QUERY_TIMEOUT_MS (see boundSingleQueries).
 *
 * Every setting is sent at connection start-up (DB_POOL_MODE=session) or at the start of each
 * transaction (DB_POOL_MODE=transaction, unless the role's defaults are the timeouts already), so
 * none needs a privilege: a read-only role works.
 */
export function createPool(url: string, settings: DatabaseSettings, logger?: Logger): pg.Pool {
  const connectTimeoutMs = settings.DB_CONNECT_TIMEOUT_MS;
  const statementTimeoutMs = settings.DB_STATEMENT_TIMEOUT_MS;
  const idleInTransactionTimeoutMs = settings.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS ?? 10_000;
  const transactionPooled = settings.DB_POOL_MODE === 'transaction';
  const timeouts: TransactionTimeouts | undefined = transactionPooled
    ? { statementTimeoutMs, idleInTransactionTimeoutMs, perTransaction: true }
    : undefined;
  const Base: typeof pg.Client = timeouts ? transactionPooledClient(timeouts) : pg.Client;
  class ApiClient extends Base {
    constructor(config: pg.ClientConfig) {
      // The pool hands every client its own options; the connection string carries the password.
      super({ ...config, connectionTimeoutMillis: connectTimeoutMs });
    }

    /**
     * A call without a callback (Drizzle's transactions, the claim volumes' load) is answered
     * through the driver's callback API all the same. node-postgres's own promise kept each answer
     * reachable past the next young-generation collection; after the hundred-odd queries of a claim
     * load, V8 then decided that the driver's row allocations are long-lived and allocated every
     * later row of every query in the old generation (allocation-site pretenuring), so each answer's
     * strings were promoted. `node --trace-gc-nvp --trace-pretenuring` shows what a scavenge promotes.
     */
    override query(config: unknown, values?: unknown, callback?: unknown): never {
      const query = super.query.bind(this) as QueryFunction;
      if (callback !== undefined || typeof values === 'function' || isSubmittable(config) || config === null || config === undefined) {
        return query(config, values, callback) as never;
      }
      return new Promise((resolve, reject) => {
        query(config, values, (error: Error | null, result: unknown) => (error ? reject(error) : resolve(result)));
      }) as never;
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: settings.DB_POOL_MAX,
    connectionTimeoutMillis: settings.DB_POOL_ACQUIRE_TIMEOUT_MS ?? connectTimeoutMs,
    // Behind a transaction pooler these are set per transaction instead (src/db/transaction-pooling.ts).
    ...(transactionPooled
      ? {}
      : { statement_timeout: statementTimeoutMs, idle_in_transaction_session_timeout: idleInTransactionTimeoutMs }),
    application_name: settings.DB_APPLICATION_NAME ?? 'campaign-service',
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_INITIAL_DELAY_MS,
    Client: ApiClient as unknown as new () => pg.ClientBase,
  });
  // An idle client that loses its connection (database restart) must not crash the process: the
  // pool drops it and says so here.
  pool.on('error', (error) => logger?.warn({ err: error }, 'idle database connection closed'));
  // A checked-out client has no pool listener, and an 'error' event nobody listens to kills the
  // process. Its query fails with the same error, which is what the request reports.
  pool.on('connect', (client) => {
    client.on('error', (error) => logger?.debug({ err: error }, 'database connection lost while in use'));
  });
  if (timeouts) transactionTimeouts.set(pool, timeouts);
  boundSingleQueries(pool, settings.DB_QUERY_TIMEOUT_MS ?? settings.DB_STATEMENT_TIMEOUT_MS + 1000, staleConnectionRetries(settings.DB_POOL_MAX));
  return pool;
}

type QueryFunction = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/**
 * How often a single statement is retried on another connection when the one it was given turns
 * out to have been closed under it. Killed connections (a failover, pg_terminate_backend, a
 * database restart) stay in the pool until their socket is read; a request that draws one first
 * would fail although the database is fine. Each failed attempt discards its connection, so after
 * as many retries as the pool holds connections the next attempt runs on a new one: fewer retries
 * let a request fail while the pool is still full of dead connections. Every API statement is a
 * read, so running it again is safe; a database that is really down fails the retry at once
 * (connection refused, not retried).
 */
function staleConnectionRetries(poolMax: number): number {
  return poolMax + 1;
}

/** How often a statement a hot standby cancelled is run again before the request answers 503. */
const RECOVERY_CONFLICT_RETRIES = 2;

/** A hot standby cancelled the statement to replay the primary's changes (40001): tried again, it reads a newer snapshot. */
function isRecoveryConflict(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '40001';
}

/** The server or the network closed a connection that was open: not "cannot connect", not a timeout. */
function isClosedConnection(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === '57P01' || code === '57P02' || code === 'ECONNRESET' || code === 'EPIPE') return true;
  return (
    typeof message === 'string' &&
    (message === 'Connection terminated unexpectedly' || message.startsWith('Client has encountered a connection error'))
  );
}

/**
 * Gives every single-statement query (`pool.query`: all API reads, Drizzle's included) a client-side
 * time limit, so a connection whose peer vanished cannot hold a request forever; that connection is
 * then closed, not handed out again. A statement whose connection proves to be closed is retried
 * (see staleConnectionRetries), and so is one a hot standby cancelled for a recovery conflict.
 * Transactions (`pool.connect`) are left to the server's timeouts and TCP keepalive: the claim
 * volumes' load raises its own statement_timeout for a background job's budget, which a
 * client-side limit would cut short.
 */
function boundSingleQueries(pool: pg.Pool, queryTimeoutMs: number, retries: number): void {
  const query = pool.query.bind(pool) as QueryFunction;
  const bounded: QueryFunction = (config, values, callback) => {
    // Callback style (unused by the app) and streams are passed through as they are.
    if (typeof values === 'function' || typeof callback === 'function' || isSubmittable(config) || config === null) {
      return query(config, values, callback);
    }
    const attempt = async (closedLeft: number, conflictsLeft: number): Promise<unknown> => {
      try {
        return await queryWithin(pool, config, values, queryTimeoutMs);
      } catch (error) {
        if (closedLeft > 0 && isClosedConnection(error)) return attempt(closedLeft - 1, conflictsLeft);
        if (conflictsLeft > 0 && isRecoveryConflict(error)) return attempt(closedLeft, conflictsLeft - 1);
        throw error;
      }
    };
    return attempt(retries, RECOVERY_CONFLICT_RETRIES);
  };
  pool.query = bounded as typeof pool.query;
}

/**
 * `pool.query` with a time limit: a connection checked out for one statement, given back from the
 * driver's callback as soon as it answers, and closed when it fails or runs out of time (as
 * pool.query does on any error).
 *
 * Neither node-postgres's `query_timeout` nor its promise API: with either, each answer stayed
 * reachable past the next young-generation collection and was promoted, about a response's worth of
 * bytes per query, so the old generation grew until a full collection; with this callback nothing is
 * promoted and more queries are answered (`--trace-gc-nvp` shows it; see also ApiClient.query, and
 * docs/performance.md on what promotion does to peak RSS).
 */
function queryWithin(pool: pg.Pool, config: unknown, values: unknown, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    pool.connect((connectError, client, release) => {
      if (connectError || client === undefined) return reject(connectError ?? new Error('the pool gave no connection'));
      let settled = false;
      const settle = (error: Error | null | undefined, result?: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        client.removeListener('error', settle);
        release(error ?? undefined);
        if (error) reject(error);
        else resolve(result);
      };
      const timer = setTimeout(() => settle(new Error(QUERY_READ_TIMEOUT)), timeoutMs);
      client.once('error', settle);
      (client as unknown as { query: QueryFunction }).query(config, values, settle);
    });
  });
}

/**
 * Runs a raw SQL query and returns its rows, whichever driver is underneath.
 *
 * On PostgreSQL, outside a transaction, the statement is prepared once per connection under a name
 * derived from its text: the hot read queries are planned once instead of on every request, which is
 * a large share of their cost. Only the first MAX_PREPARED distinct texts are prepared, so that an
 * unusual mix of filters cannot fill the server's memory with plans. `planPerValue` opts out: after
 * five runs a prepared statement settles on a generic plan, made for the average parameter value,
 * which is wrong for a query whose best plan depends on how common its values are. Rows come back
 * exactly as Drizzle would hand them (date and time types as text).
 */
export async function queryRows<Row>(db: Database, query: SQL, { planPerValue = false } = {}): Promise<Row[]> {
  const client = (db as { $client?: unknown }).$client;
  if (client instanceof pg.Pool && !(db instanceof PgTransaction)) {
    const { sql: text, params } = dialect.sqlToQuery(query);
    const name = planPerValue ? undefined : preparedName(text);
    return (await client.query<Row & pg.QueryResultRow>({ name, text, values: params, types: DRIZZLE_TYPES })).rows;
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
