import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type DatabaseHandle, type DatabaseSettings, openDatabase, queryRows } from '../../src/db/client.js';
import { classifyError } from '../../src/plugins/error-handler.js';
import { startBreakableProxy } from '../helpers/breakable-proxy.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * The pg pool's fault settings, against the real server: what a connection is told at start-up,
 * and how long a caller can be kept waiting. PostgreSQL only (PGlite has no pool and no network).
 */
const onPostgres = inject('testDatabase').kind === 'postgres';

const settingsFor = (url: string, overrides: Partial<DatabaseSettings> = {}): DatabaseSettings => ({
  DATABASE_URL: url,
  PGLITE_DATA_DIR: 'memory://',
  DB_POOL_MAX: 2,
  DB_STATEMENT_TIMEOUT_MS: 4000,
  DB_CONNECT_TIMEOUT_MS: 2000,
  DB_POOL_ACQUIRE_TIMEOUT_MS: 2000,
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: 7000,
  DB_APPLICATION_NAME: 'campaign-service-test',
  ...overrides,
});

const elapsedSince = (started: number) => Date.now() - started;

describe.skipIf(!onPostgres)('PostgreSQL pool settings', () => {
  let database: TestDatabase;
  const opened: DatabaseHandle[] = [];
  const open = async (overrides: Partial<DatabaseSettings> = {}) => {
    const handle = await openDatabase(settingsFor(database.url!, overrides));
    opened.push(handle);
    return handle.pool!;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const handle of opened) await handle.close().catch(() => undefined);
    await database.close();
  });

  it('sends statement_timeout, idle_in_transaction_session_timeout and application_name at connection start', async () => {
    const pool = await open();
    const { rows } = await pool.query<{ statement: string; idle: string; name: string }>(
      `SELECT current_setting('statement_timeout') AS statement,
              current_setting('idle_in_transaction_session_timeout') AS idle,
              current_setting('application_name') AS name`,
    );
    expect(rows[0]).toEqual({ statement: '4s', idle: '7s', name: 'campaign-service-test' });
  });

  it('cancels a query over statement_timeout on the server: a 504', async () => {
    const pool = await open({ DB_STATEMENT_TIMEOUT_MS: 200 });
    const error = await pool.query('SELECT pg_sleep(5)').catch((caught: unknown) => caught as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as { code?: string }).code).toBe('57014');
    expect(classifyError(error as Error).statusCode).toBe(504);
  });

  it('answers promise-style calls on a checked-out connection (transactions) with rows, and rejects with the server error', async () => {
    const pool = await open();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ one: number }>({ text: 'SELECT $1::integer AS one', values: [1] });
      expect(rows).toEqual([{ one: 1 }]);
      const error = await client.query('SELECT 1 / 0').then(
        () => undefined,
        (caught: unknown) => caught as { code?: string },
      );
      expect(error?.code).toBe('22012');
      await client.query('ROLLBACK');
      // A stream or cursor (its own `submit`) is still handed to the driver as it is.
      const submitted = await new Promise<unknown[]>((resolve, reject) => {
        const query = new pg.Query('SELECT 2 AS two');
        query.on('end', (result: pg.QueryResult) => resolve(result.rows));
        query.on('error', reject);
        void client.query(query);
      });
      expect(submitted).toEqual([{ two: 2 }]);
    } finally {
      client.release();
    }
  });

  it('stops waiting for an answer after DB_QUERY_TIMEOUT_MS (a 504) and drops that connection', async () => {
    const pool = await open({ DB_STATEMENT_TIMEOUT_MS: 60_000, DB_QUERY_TIMEOUT_MS: 300, DB_POOL_MAX: 1 });
    const started = Date.now();
    const error = await pool.query('SELECT pg_sleep(3)').catch((caught: unknown) => caught as Error);
    expect(elapsedSince(started)).toBeLessThan(2500);
    expect(error).toBeInstanceOf(Error);
    expect(classifyError(error as Error).statusCode).toBe(504);
    // The abandoned connection is not handed out again: the next query gets a fresh one at once.
    const { rows } = await pool.query<{ one: number }>('SELECT 1 AS one');
    expect(rows).toEqual([{ one: 1 }]);
  });

  it('makes a request wait at most DB_POOL_ACQUIRE_TIMEOUT_MS for a busy pool, then fails as a 503', async () => {
    const pool = await open({ DB_POOL_MAX: 1, DB_POOL_ACQUIRE_TIMEOUT_MS: 400 });
    const held = await pool.connect();
    try {
      const started = Date.now();
      const error = await pool.query('SELECT 1').catch((caught: unknown) => caught as Error);
      const waited = elapsedSince(started);
      expect(error).toBeInstanceOf(Error);
      expect(waited).toBeGreaterThanOrEqual(350);
      expect(waited).toBeLessThan(3000);
      const classified = classifyError(error as Error);
      expect(classified.statusCode).toBe(503);
      expect(classified.headers['retry-after']).toBeDefined();
    } finally {
      held.release();
    }
  });

  it('fails fast when the server cannot be reached: a 503 within the connect timeout', async () => {
    // Port 1 refuses at once; the bound matters for a host that does not answer at all.
    const handle = await openDatabase(settingsFor('postgres://postgres@127.0.0.1:1/none', { DB_CONNECT_TIMEOUT_MS: 500 }));
    opened.push(handle);
    const started = Date.now();
    const error = await handle.pool!.query('SELECT 1').catch((caught: unknown) => caught as Error);
    expect(elapsedSince(started)).toBeLessThan(3000);
    expect(classifyError(error as Error).statusCode).toBe(503);
  });

  it('survives the loss of idle and checked-out connections, and serves the next query', async () => {
    const pool = await open({ DB_POOL_MAX: 2 });
    const checkedOut = await pool.connect();
    await pool.query('SELECT 1'); // leaves one idle connection besides the checked-out one
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ terminated: boolean }>(
        `SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity
          WHERE application_name = 'campaign-service-test' AND datname = current_database()`,
      );
      expect(rows.length).toBeGreaterThanOrEqual(2);
    } finally {
      await admin.end();
    }
    // An 'error' event without a listener would have thrown out of the event loop by now.
    await new Promise((resolve) => setTimeout(resolve, 200));
    checkedOut.release(new Error('lost'));
    const { rows } = await pool.query<{ one: number }>('SELECT 1 AS one');
    expect(rows).toEqual([{ one: 1 }]);
  });

  it('runs a read on a new connection when every idle connection in a full pool is dead, unnoticed', async () => {
    const proxy = await startBreakableProxy(database.url!);
    try {
      const handle = await openDatabase(settingsFor(proxy.url, { DB_POOL_MAX: 4 }));
      opened.push(handle);
      const pool = handle.pool!;
      // Four concurrent statements leave four idle connections.
      await Promise.all([1, 2, 3, 4].map(() => pool.query('SELECT pg_sleep(0.05)')));
      expect(pool.idleCount).toBe(4);
      proxy.breakAll();
      expect(pool.idleCount).toBe(4); // the pool cannot know yet
      const { rows } = await pool.query<{ one: number }>('SELECT 1 AS one');
      expect(rows).toEqual([{ one: 1 }]);
      expect(pool.totalCount).toBe(1); // the four dead ones were dropped on the way
    } finally {
      await proxy.close();
    }
  });
});

describe.skipIf(!onPostgres)('DB_POOL_MODE=transaction (a pooler such as PgBouncer in transaction mode)', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    database = await createTestDatabase();
    handle = await openDatabase(settingsFor(database.url!, { DB_POOL_MODE: 'transaction', DB_POOL_MAX: 1 }));
  });
  afterAll(async () => {
    await handle?.close();
    await database.close();
  });

  const settingsNow = `SELECT current_setting('statement_timeout') AS statement,
                              current_setting('idle_in_transaction_session_timeout') AS idle`;

  it('sets the timeouts in each transaction, none at connection start, and leaves no session state', async () => {
    const pool = handle.pool!;
    // Inside a single-statement transaction: the API's settings.
    expect((await pool.query(settingsNow)).rows[0]).toEqual({ statement: '4s', idle: '7s' });
    const client = await pool.connect();
    try {
      // Sent on the same connection as the statement that starts the transaction only: the session
      // itself keeps the server's defaults, so nothing is left for the next client of a pooled connection.
      // A name asked for is not kept: the statement is prepared for its transaction only.
      await client.query({ text: 'SELECT 1', name: 'named_by_a_caller' });
      const { rows } = await client.query<{ prepared: number }>('SELECT count(*)::int AS prepared FROM pg_prepared_statements');
      expect(rows[0]!.prepared).toBe(0);
      await client.query('BEGIN');
      expect((await client.query(settingsNow)).rows[0]).toEqual({ statement: '4s', idle: '7s' });
      // A transaction that raises its own timeout keeps it for its later statements (the claim volumes' load).
      await client.query(`SELECT set_config('statement_timeout', '120000', true)`);
      expect((await client.query(settingsNow)).rows[0]).toEqual({ statement: '2min', idle: '7s' });
      await client.query('COMMIT');
      // The session's own value (what the next transaction of another client would inherit) is the server's default.
      const defaults = await client.query<{ reset: string }>("SELECT reset_val AS reset FROM pg_settings WHERE name = 'statement_timeout'");
      expect(defaults.rows[0]!.reset).toBe('0');
    } finally {
      client.release();
    }
  });

  it('keeps BEGIN first, so a transaction can still choose its isolation level', async () => {
    const rows = await handle.db.transaction(
      (tx) =>
        queryRows<{ isolation: string; statement: string }>(
          tx,
          sql`SELECT current_setting('transaction_isolation') AS isolation, current_setting('statement_timeout') AS statement`,
        ),
      { isolationLevel: 'repeatable read', accessMode: 'read only' },
    );
    expect(rows[0]).toEqual({ isolation: 'repeatable read', statement: '4s' });
  });

  it("sets nothing per transaction where the role's or database's defaults are the timeouts, which still apply (504)", async () => {
    const defaulted = await createTestDatabase();
    const name = new URL(defaulted.url!).pathname.slice(1);
    const opened: DatabaseHandle[] = [];
    const openVerified = async (statementTimeoutMs: number) => {
      const opening = await openDatabase(settingsFor(defaulted.url!, { DB_POOL_MODE: 'transaction', DB_POOL_MAX: 1, DB_STATEMENT_TIMEOUT_MS: statementTimeoutMs }));
      opened.push(opening);
      await opening.verify();
      return opening.pool!;
    };
    const timeoutSource = `SELECT source, setting FROM pg_settings WHERE name = 'statement_timeout'`;
    try {
      await handle.pool!.query(`ALTER DATABASE "${name}" SET statement_timeout = 150`);
      await handle.pool!.query(`ALTER DATABASE "${name}" SET idle_in_transaction_session_timeout = 7000`);

      // The database's defaults are the API's timeouts: no set_config, the value is the database's own.
      const matching = await openVerified(150);
      expect((await matching.query(timeoutSource)).rows[0]).toEqual({ source: 'database', setting: '150' });
      for (let i = 0; i < 2; i++) {
        const error = await matching.query('SELECT pg_sleep(2)').catch((caught: unknown) => caught as Error);
        expect((error as { code?: string }).code).toBe('57014');
        expect(classifyError(error as Error).statusCode).toBe(504);
      }
      const { rows, command } = await matching.query<{ one: number }>('SELECT 1 AS one');
      expect({ rows, command }).toEqual({ rows: [{ one: 1 }], command: 'SELECT' });

      // Other defaults: each transaction sets the API's own.
      const differing = await openVerified(4000);
      expect((await differing.query(timeoutSource)).rows[0]).toEqual({ source: 'session', setting: '4000' });
    } finally {
      for (const each of opened) await each.close();
      await defaulted.close();
    }
  });

  it('cancels a statement over the timeout (504), in every transaction of a connection', async () => {
    const slow = await openDatabase(settingsFor(database.url!, { DB_POOL_MODE: 'transaction', DB_POOL_MAX: 1, DB_STATEMENT_TIMEOUT_MS: 100 }));
    try {
      for (let i = 0; i < 2; i++) {
        const error = await slow.pool!.query('SELECT pg_sleep(2)').catch((caught: unknown) => caught as Error);
        expect((error as { code?: string }).code).toBe('57014');
        expect(classifyError(error as Error).statusCode).toBe(504);
      }
      // Answers of the preamble never leak into the caller's result.
      const { rows, command } = await slow.pool!.query<{ one: number }>('SELECT 1 AS one');
      expect({ rows, command }).toEqual({ rows: [{ one: 1 }], command: 'SELECT' });
    } finally {
      await slow.close();
    }
  });
});

describe('errors of poolers and standbys', () => {
  const withCode = (code: string, message: string) => Object.assign(new Error(message), { code });

  it('a standby cancelling a read to replay changes (40001) is a 503 with Retry-After, never a 500', () => {
    const classified = classifyError(withCode('40001', 'canceling statement due to conflict with recovery'));
    expect(classified.statusCode).toBe(503);
    expect(classified.headers['retry-after']).toMatch(/^\d+$/);
  });

  it("PgBouncer's 08P01: a 503 while the server is unreachable, not for a configuration it will keep refusing", () => {
    expect(classifyError(withCode('08P01', 'pgbouncer cannot connect to server')).statusCode).toBe(503);
    expect(classifyError(withCode('08P01', 'no more connections allowed (max_client_conn)')).statusCode).toBe(503);
    expect(classifyError(withCode('08P01', 'unsupported startup parameter: statement_timeout')).statusCode).toBe(500);
    expect(classifyError(withCode('08P01', 'no such database: campaigns')).statusCode).toBe(500);
  });
});
