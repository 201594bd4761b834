import { type DestinationStream, type Logger, pino } from 'pino';
import type { Config } from './config.js';

/** Paths pino blanks out on every line: credentials must never reach a log. */
export const REDACTED_PATHS = ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'];

/** JSON lines to stdout; tests pass a destination to read what would be logged. */
export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, destination?: DestinationStream): Logger {
  const options = { level: config.LOG_LEVEL, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}
