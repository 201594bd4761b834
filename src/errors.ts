/**
 * The service's error type and its wire shapes: `{ "error": "..." }`, and for a refusal that a
 * client acts on by its reason, `{ "error": { "message": "...", "code": "..." } }` (the public API's
 * second envelope; GET /signatures uses it).
 *
 * Routes and repositories throw `HttpError` (or let anything else escape); the error handler
 * plugin is the only place that turns an error into a response.
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly headers: Record<string, string> = {},
    /** A stable, documented reason: the answer then uses the coded envelope. */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const unauthorized = (message: string) =>
  new HttpError(401, message, { 'www-authenticate': 'Bearer' });
export const forbidden = (message: string) => new HttpError(403, message);
export const notFound = (message: string) => new HttpError(404, message);

/** Seconds a client should wait before retrying a 503 (database unavailable, overload). */
export const RETRY_AFTER_SECONDS = 5;

export const serviceUnavailable = (message = 'service temporarily unavailable, retry shortly') =>
  new HttpError(503, message, { 'retry-after': String(RETRY_AFTER_SECONDS) });

export interface ErrorEnvelope {
  error: string | { message: string; code: string };
}

export const envelope = (message: string, code?: string): ErrorEnvelope => ({ error: code === undefined ? message : { message, code } });
