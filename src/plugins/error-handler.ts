import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { envelope, HttpError, RETRY_AFTER_SECONDS } from '../errors.js';

/**
 * The one place an error becomes a response. Every status is the `{ error }` envelope;
 * 5xx messages are generic and the detail goes to the log with the request id.
 */

interface Classified {
  statusCode: number;
  message: string;
  headers: Record<string, string>;
}

const RETRY_LATER = { 'retry-after': String(RETRY_AFTER_SECONDS) };

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
const QUERY_CANCELED = '57014'; // statement_timeout
/** What a single statement fails with when DB_QUERY_TIMEOUT_MS passes without an answer (src/db/client.ts): over the time budget too. */
export const QUERY_READ_TIMEOUT = 'Query read timeout';

/** Drizzle wraps driver errors; the cause chain holds the driver's code. */
function* causes(error: unknown): Generator<{ code?: unknown; message?: unknown }> {
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

/**
 * A hot standby cancelled the query because replaying the primary's changes needed what it read
 * ("canceling statement due to conflict with recovery", 40001), or a deadlock (40P01): the same read
 * succeeds when tried again.
 */
export function isRetryableConflict(error: unknown): boolean {
  for (const cause of causes(error)) {
    if (cause.code === '40001' || cause.code === '40P01') return true;
  }
  return false;
}

export function classifyError(error: FastifyError | Error): Classified {
  if (error instanceof HttpError) return { statusCode: error.statusCode, message: error.message, headers: error.headers };
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) return { statusCode: 400, message: error.message, headers: {} };

  for (const cause of causes(error)) {
    if (cause.code === QUERY_CANCELED || cause.message === QUERY_READ_TIMEOUT) {
      return { statusCode: 504, message: 'the request took too long to answer; narrow it down or retry', headers: {} };
    }
  }
  if (isRetryableConflict(error)) {
    return { statusCode: 503, message: 'the database could not answer this time (a read replica was replaying changes); retry shortly', headers: RETRY_LATER };
  }
  if (isDatabaseUnavailable(error)) {
    return { statusCode: 503, message: 'the database is temporarily unavailable; retry shortly', headers: RETRY_LATER };
  }

  // Fastify's own client errors (bad content type, body too large, ...) carry safe, fixed messages.
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500 && fastifyError.code?.startsWith('FST_')) {
    return { statusCode: status, message: error.message, headers: {} };
  }
  if (status === 429 || status === 503) {
    return { statusCode: status, message: error.message, headers: status === 503 ? RETRY_LATER : {} };
  }
  return { statusCode: 500, message: 'internal server error', headers: {} };
}

function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const { statusCode, message, headers } = classifyError(error);
  // A 5xx the service chose to answer (starting, shutting down, replica behind) is a state it is
  // in, not a fault: a warning without a stack, or every readiness probe of a deploy logs an error.
  if (statusCode >= 500 && !(error instanceof HttpError)) request.log.error({ err: error, statusCode }, 'request failed');
  else if (statusCode >= 500) request.log.warn({ statusCode, reason: message }, 'request refused');
  else request.log.info({ statusCode, reason: message }, 'request rejected');
  return reply.code(statusCode).headers(headers).type('application/json; charset=utf-8').send(envelope(message));
}

export const errorHandler = fp(
  (app: FastifyInstance) => {
    app.setErrorHandler(handleError);
  },
  { name: 'error-handler' },
);
