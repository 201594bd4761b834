import { createRequire } from 'node:module';
import type { FastifyRateLimitOptions, FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { describeRedisUrl } from './redis-url.js';

/** The rate limit plugin's own Redis store (an atomic INCR + PEXPIRE script); it has no ESM entry. */
const RedisStore = createRequire(import.meta.url)('@fastify/rate-limit/store/RedisStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  key?: string,
) => BudgetStore;

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;
type BudgetStore = FastifyRateLimitStore & { read?(key: string, callback: Callback, timeWindow: number, max: number): void };

/** A lookup slower than this (Redis hung, or the network) lets the request pass rather than wait. */
const COMMAND_TIMEOUT_MS = 500;
/** Opening a connection may take this long (a loaded host answers loopback connects late too). */
const CONNECT_TIMEOUT_MS = 3000;
/** How long start-up waits for Redis's first answer (ready or refused) before serving without it. */
const CONNECT_WAIT_MS = 5000;
const KEY_PREFIX = 'campaign-service:rate-limit:';

export interface StoreWatch {
  /** The store class for the plugin's `store` option. */
  Store: FastifyRateLimitStoreCtor;
  /** Resolves once Redis answers or refuses, or after CONNECT_WAIT_MS (the limit fails open until it answers). */
  connected(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The budgets in Redis, shared by every replica. Every failure of a lookup (Redis down, slow or
 * refusing) is reported to `onStoreError` and logged once per outage; the plugin (skipOnError) then
 * lets the request through. Commands are never queued while disconnected: a request does not wait
 * for Redis to come back.
 */
export function sharedBudgetStore(url: string, logger: Pick<Logger, 'warn' | 'info'>, onStoreError = () => {}): StoreWatch {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: CONNECT_TIMEOUT_MS,
    // Reconnect forever, at most two seconds apart.
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  const where = describeRedisUrl(url);
  let failing = false;
  const failed = (error: unknown) => {
    if (failing) return;
    failing = true;
    logger.warn({ err: error, redis: where }, 'rate limit store unreachable: requests pass unlimited until it answers');
  };
  // ioredis reports connection trouble as events; an 'error' nobody listens to would end the process.
  redis.on('error', failed);
  redis.on('ready', () => {
    if (failing) logger.info({ redis: where }, 'rate limit store reachable again: limits apply');
    failing = false;
  });

  const observed = (callback: Callback): Callback => (error, result) => {
    if (error) {
      onStoreError();
      failed(error);
    }
    callback(error, result);
  };

  class SharedStore implements BudgetStore {
    constructor(private readonly inner: BudgetStore) {}
    incr(key: string, callback: Callback, timeWindow: number, max: number): void {
      this.inner.incr(key, observed(callback), timeWindow, max);
    }
    read(key: string, callback: Callback, timeWindow: number, max: number): void {
      this.inner.read!(key, observed(callback), timeWindow, max);
    }
    child(routeOptions: Parameters<FastifyRateLimitStore['child']>[0]): BudgetStore {
      return new SharedStore(this.inner.child(routeOptions));
    }
  }

  return {
    Store: class extends SharedStore {
      constructor(params: FastifyRateLimitOptions) {
        // The plugin hands its resolved settings, which carry these two as booleans.
        const { continueExceeding = false, exponentialBackoff = false } = params as { continueExceeding?: boolean; exponentialBackoff?: boolean };
        super(new RedisStore(continueExceeding, exponentialBackoff, redis, KEY_PREFIX));
      }
    },
    connected: async () => {
      if (redis.status === 'ready') return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, CONNECT_WAIT_MS);
        // Ready, or the first attempt failed (refused at once when nothing listens): serve either way.
        redis.once('ready', done);
        redis.once('error', done);
        function done() {
          clearTimeout(timer);
          redis.off('ready', done);
          redis.off('error', done);
          resolve();
        }
      });
      if ((redis.status as string) !== 'ready') failed(new Error(`no answer from ${where} within ${CONNECT_WAIT_MS} ms`));
    },
    close: async () => {
      redis.disconnect();
    },
  };
}
