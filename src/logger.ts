import type { FastifyRequest } from 'fastify';
import { type DestinationStream, type Logger, pino } from 'pino';
import { maskTokens } from './auth/tokens.js';
import type PinoPretty from 'pino-pretty';
import { type Config, ConfigError } from './config.js';

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

/**
 * The server's logger: readable lines for a person at a terminal (`npm start`, `npm run dev`), one
 * JSON object a line for everything else, which log collectors parse (a pipe, a file, the image).
 * pino-pretty is a devDependency: a production install (`npm ci --omit=dev`) that asks for pretty
 * logs on a terminal gets JSON and one line saying why, and LOG_FORMAT=pretty there is an error.
 */
export async function createServerLogger(
  config: Pick<Config, 'LOG_LEVEL' | 'LOG_FORMAT'>,
  stdout: NodeJS.WriteStream = process.stdout,
): Promise<Logger> {
  if (!wantsPrettyLogs(config.LOG_FORMAT, stdout.isTTY === true)) return createLogger(config);
  const pretty = await import('pino-pretty').then((module) => module.default, () => undefined);
  if (!pretty) {
    if (config.LOG_FORMAT === 'pretty') throw new ConfigError(['LOG_FORMAT: pretty needs pino-pretty, a devDependency (npm install)']);
    const logger = createLogger(config);
    logger.info('pino-pretty is not installed (a production install): logs stay JSON');
    return logger;
  }
  // Synchronous, in this thread: no worker to lose the last lines when the process exits.
  return createLogger(config, prettyLogStream(pretty, stdout, stdout.isTTY === true));
}

export function wantsPrettyLogs(format: Config['LOG_FORMAT'], isTerminal: boolean): boolean {
  return format === 'pretty' || (format === undefined && isTerminal);
}

export function prettyLogStream(pretty: typeof PinoPretty, destination: NodeJS.WritableStream, colorize: boolean): DestinationStream {
  return pretty({
    destination,
    sync: true,
    colorize,
    translateTime: 'SYS:HH:MM:ss.l',
    // One process, one host: the pid and host name say nothing at a terminal.
    ignore: 'pid,hostname',
  });
}
