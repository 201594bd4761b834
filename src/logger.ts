import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { type DestinationStream, type Logger, pino } from 'pino';
import { maskTokens } from './api-token.js';
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

/**
 * One log line per request, when it completes: `req` (method, URL with tokens masked, host, client
 * address), `res` (status) and `responseTime` (ms), under the request's `reqId`, so that a JSON
 * line alone says what was asked and how it went. Fastify's own "incoming request" line is only
 * logged at debug: at info it doubled the lines and said nothing the completion does not.
 */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (!this.isLogDisabled(request)) request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const fields = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request completed');
  }
}

/** Fields a terminal does not show: one process and host; a request's own fields are in its one line. */
const NOT_ON_A_TERMINAL = 'pid,hostname,reqId,req,res,responseTime';

/** On a terminal, a request's completion is one line: method, URL, status and time taken. */
export function terminalMessage(log: Record<string, unknown>, messageKey: string): string {
  const req = log.req as { method?: unknown; url?: unknown } | undefined;
  const res = log.res as { statusCode?: unknown } | undefined;
  if (req && res && typeof log.responseTime === 'number') {
    return `${String(req.method)} ${String(req.url)} ${String(res.statusCode)} ${log.responseTime.toFixed(1)} ms`;
  }
  const message = typeof log[messageKey] === 'string' ? log[messageKey] : '';
  return req ? `${message}: ${String(req.method)} ${String(req.url)}` : message;
}

export function prettyLogStream(pretty: typeof PinoPretty, destination: NodeJS.WritableStream, colorize: boolean): DestinationStream {
  return pretty({
    destination,
    sync: true,
    colorize,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: NOT_ON_A_TERMINAL,
    messageFormat: terminalMessage,
  });
}
