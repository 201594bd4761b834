import { type Logger, pino } from 'pino';
import type { Config } from './config.js';

/** Paths pino blanks out on every line: credentials must never reach a log. */
export const REDACTED_PATHS = ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'];

export function createLogger(config: Pick<Config, 'LOG_LEVEL'>): Logger {
  return pino({ level: config.LOG_LEVEL, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
}
