/**
 * What the database's errors mean, for every layer that meets them: unavailable for now (retry), or a
 * statement over its time budget. The error handler turns them into 503 and 504; start-up retries.
 */

/** SQLSTATE classes and driver codes that mean "the database is not there right now". */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'EPIPE',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
]);
const UNAVAILABLE_MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'Client has encountered a connection error',
  'connection timeout',
  'Cannot use a pool after calling end',
];
export const QUERY_CANCELED = '57014'; // statement_timeout
/** What a single statement fails with when DB_QUERY_TIMEOUT_MS passes without an answer (src/db/client.ts): over the time budget too. */
export const QUERY_READ_TIMEOUT = 'Query read timeout';

/** Drizzle wraps driver errors; the cause chain holds the driver's code. */
export function* causes(error: unknown): Generator<{ code?: unknown; message?: unknown }> {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    yield current;
    current = (current as { cause?: unknown }).cause;
  }
}

/**
 * PgBouncer answers every refusal with 08P01 (protocol_violation). These of its messages pass (the
 * server is down or busy, the pooler is full or restarting); the others are configuration errors
 * that waiting will not fix: "unsupported startup parameter" (DB_POOL_MODE=session behind a
 * transaction pooler), "no such database", "no such user", a failed login.
 */
const POOLER_TRANSIENT_MESSAGES = [
  'pgbouncer cannot connect to server',
  'no more connections allowed',
  'server login has been failing',
  'query_wait_timeout',
  'server conn crashed',
  'pgbouncer is shutting down',
  'database is paused',
  'server_login_retry',
];

/** True when `error` (or a cause of it) says the database cannot be reached right now. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const cause of causes(error)) {
    const code = typeof cause.code === 'string' ? cause.code : '';
    const message = typeof cause.message === 'string' ? cause.message : '';
    if (code === '08P01') {
      if (POOLER_TRANSIENT_MESSAGES.some((m) => message.includes(m))) return true;
      continue;
    }
    if (UNAVAILABLE_CODES.has(code) || code.startsWith('08') || UNAVAILABLE_MESSAGES.some((m) => message.includes(m))) return true;
  }
  return false;
}

/** deadlock_detected: PostgreSQL failed this statement to break a cycle of transactions waiting for each other's locks. */
export const DEADLOCK_DETECTED = '40P01';

/** True when `error` (or a cause of it) is a statement PostgreSQL failed to break a deadlock. */
export function isDeadlock(error: unknown): boolean {
  for (const cause of causes(error)) if (cause.code === DEADLOCK_DETECTED) return true;
  return false;
}
