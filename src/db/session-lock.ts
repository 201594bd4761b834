import pg from 'pg';

/**
 * A PostgreSQL session-level advisory lock on a connection of its own: work that one process per
 * database should do (the price job's rounds) is done by whichever process holds it. The lock lives
 * as long as the session: when its holder stops, crashes or loses its connection, PostgreSQL
 * releases it and another process takes it at its next try.
 *
 * A session lock needs a session that is its own: through a transaction pooler (PgBouncer in
 * transaction mode) the lock would stay on whichever server connection took it, so callers give a
 * direct URL.
 */
export interface SessionLock {
  /**
   * Whether this process holds the lock now: takes it when it is free, never waits for it. Throws
   * when the database cannot be reached (the lock is then not held).
   */
  tryHold(): Promise<boolean>;
  /** Releases the lock by ending its session. */
  close(): Promise<void>;
}

export interface SessionLockOptions {
  url: string;
  /** The lock's key, in the two-integer key space (the one-bigint space is another). */
  key: readonly [number, number];
  connectTimeoutMs: number;
  applicationName: string;
}

export function createSessionLock({ url, key, connectTimeoutMs, applicationName }: SessionLockOptions): SessionLock {
  let client: pg.Client | null = null;
  let held = false;
  let closed = false;

  /** Forgets a session that failed: its lock, if it had it, is released with it. */
  const drop = (lost: pg.Client) => {
    if (client !== lost) return;
    client = null;
    held = false;
    lost.end().catch(() => undefined);
  };

  async function session(): Promise<pg.Client> {
    if (client) return client;
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs, application_name: applicationName, keepAlive: true });
    // An 'error' event nobody listens to would end the process; a lost session only loses the lock.
    next.on('error', () => drop(next));
    next.on('end', () => drop(next));
    client = next;
    try {
      await next.connect();
    } catch (error) {
      drop(next);
      throw error;
    }
    return next;
  }

  return {
    async tryHold() {
      if (closed) return false;
      const current = await session();
      try {
        if (held) {
          // Still the same session, so still the lock: a query fails on a session that was lost.
          await current.query('SELECT 1');
          return true;
        }
        const { rows } = await current.query<{ held: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS held', [...key]);
        held = rows[0]?.held === true;
        return held;
      } catch (error) {
        drop(current);
        throw error;
      }
    },
    async close() {
      closed = true;
      const current = client;
      client = null;
      held = false;
      await current?.end().catch(() => undefined);
    },
  };
}
