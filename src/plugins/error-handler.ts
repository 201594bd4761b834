import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { causes, isDatabaseUnavailable, QUERY_CANCELED, QUERY_READ_TIMEOUT } from '../db/errors.js';
import { envelope, HttpError, RETRY_AFTER_SECONDS } from '../errors.js';

/**
 * The one place an error becomes a response. Every status is the `{ error }` envelope;
 * 5xx messages are generic and the detail goes to the log with the request id.
 */

interface Classified {
  statusCode: number;
  message: string;
  headers: Record<string, string>;
  code?: string;
}

const RETRY_LATER = { 'retry-after': String(RETRY_AFTER_SECONDS) };


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
  if (error instanceof HttpError) return { statusCode: error.statusCode, message: error.message, headers: error.headers, code: error.code };
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
  const { statusCode, message, headers, code } = classifyError(error);
  // A 5xx the service chose to answer (starting, shutting down, replica behind) is a state it is
  // in, not a fault: a warning without a stack, or every readiness probe of a deploy logs an error.
  if (statusCode >= 500 && !(error instanceof HttpError)) request.log.error({ err: error, statusCode }, 'request failed');
  else if (statusCode >= 500) request.log.warn({ statusCode, reason: message }, 'request refused');
  else request.log.info({ statusCode, reason: message, code }, 'request rejected');
  return reply.code(statusCode).headers(headers).type('application/json; charset=utf-8').send(envelope(message, code));
}

export const errorHandler = fp(
  (app: FastifyInstance) => {
    app.setErrorHandler(handleError);
  },
  { name: 'error-handler' },
);
