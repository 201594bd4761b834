import type { FastifyRequest } from 'fastify';
import { type DestinationStream, type Logger, pino } from 'pino';
import { maskTokens } from './auth/tokens.js';
import type { Config } from './config.js';

/**
 * Paths pino blanks out on every line: credentials must never reach a log. Headers logged as
 * `headers` or one level down (`req.headers`, `upstream.headers`, ...) are covered.
 */
export const REDACTED_PATHS = ['headers.authorization', 'headers.cookie', '*.headers.authorization', '*.headers.cookie'];

/**
 * Fastify's own request serializer (it logs no headers at all), except that bearer tokens in the
 * URL are masked: a token pasted into a query string is refused, and must not be logged either.
 * A serializer set on the pino instance takes the place of Fastify's.
 */
function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: typeof request.url === 'string' ? maskTokens(request.url) : request.url,
    version: request.headers?.['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** `destination` defaults to stdout; tests pass one to read what was logged. */
export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, destination?: DestinationStream): Logger {
  const options = {
    level: config.LOG_LEVEL,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: { req: serializeRequest },
  };
  return destination ? pino(options, destination) : pino(options);
}
