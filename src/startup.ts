import type { Logger } from 'pino';
import { isDatabaseUnavailable } from './db/errors.js';
import type { StartupStatus } from './startup-status.js';

export { STARTED, type StartupStatus } from './startup-status.js';

/** The first retry comes quickly (a database that is just starting), later ones at most this far apart. */
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 1000;

/**
 * Runs the server's start-up work (migrations, demo data) after it has begun to listen, so that a
 * database that is down at start does not keep the server from starting: until the work is done,
 * readiness and the API answer 503 with Retry-After. While the database is unavailable the work is
 * retried, at most a second apart, so the service comes up by itself when the database does. Any
 * other failure (a broken migration, a role that may not create tables) will not heal by waiting:
 * `run` rejects and the server exits, so that the operator sees it.
 */
export class StartupWork implements StartupStatus {
  private reason: string | undefined;
  private stopped = false;
  private wakeUp: (() => void) | undefined;

  constructor(
    private readonly logger: Pick<Logger, 'info' | 'warn'>,
    /** What the API says while waiting, e.g. "migrations are not applied yet". */
    reason: string,
  ) {
    this.reason = reason;
  }

  pending(): string | undefined {
    return this.reason;
  }

  /** Resolves with the work's result once it succeeds; undefined when stopped first. */
  async run<T>(work: () => Promise<T>): Promise<T | undefined> {
    for (let attempt = 1; !this.stopped; attempt++) {
      try {
        const result = await work();
        this.reason = undefined;
        return result;
      } catch (error) {
        if (!isDatabaseUnavailable(error)) throw error;
        const retryInMs = Math.min(FIRST_RETRY_MS * 2 ** (attempt - 1), MAX_RETRY_MS);
        // Every attempt at first, then at powers of two: a long outage must not flood the log.
        if (attempt <= 3 || Number.isInteger(Math.log2(attempt))) {
          this.logger.warn({ err: error, attempt, retryInMs }, 'database unavailable for start-up work; retrying');
        }
        await this.sleep(retryInMs);
      }
    }
    return undefined;
  }

  /** Stops retrying (shutdown). */
  stop(): void {
    this.stopped = true;
    this.wakeUp?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
