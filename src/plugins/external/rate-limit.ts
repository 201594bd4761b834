import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, onSendHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import { HttpError } from '../../errors.js';
import type { StoreWatch } from './rate-limit-redis.js';

export interface RateLimitOptions {
  max: number;
  windowMs: number;
  /** Redis keeping the budgets that every replica shares; without it each process counts alone. */
  redisUrl?: string;
  logger: Pick<Logger, 'warn' | 'info'>;
  /** Called once per failed budget lookup (Redis unreachable): the metric counts them. */
  onStoreError?: () => void;
}

/**
 * A budget of `max` requests per client IP per window. The client IP is the socket's address, or
 * X-Forwarded-For's when TRUST_PROXY names the proxy. Over budget, a 429 in the envelope with
 * Retry-After; every answer tells the budget in X-RateLimit-* headers and in the IETF draft's
 * RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers).
 *
 * With `redisUrl` the budgets live in Redis (the plugin's Redis store, one atomic script per
 * request), so N replicas allow `max` in total, not N x `max`. When Redis cannot answer, requests
 * pass (fail open): the limit is a guard against abuse, and an outage of it must not become an
 * outage of the API. The failure is logged once per outage and counted.
 *
 * Register it before the response cache: its hook must run before a cached answer is sent, so that
 * cached answers count against the budget and carry its headers.
 * A route opts out with `config: { rateLimit: false }` (health probes, metrics scrapes).
 */
export const rateLimitPerClient = fp<RateLimitOptions>(
  async (app: FastifyInstance, { max, windowMs, redisUrl, logger, onStoreError }) => {
    let shared: StoreWatch | undefined;
    if (redisUrl) {
      // Loaded only when a Redis URL is set: ioredis and its dependencies are code and old-generation
      // heap that a process without Redis would carry for nothing.
      const { sharedBudgetStore } = await import('./rate-limit-redis.js');
      shared = sharedBudgetStore(redisUrl, logger, onStoreError);
      app.addHook('onReady', () => shared!.connected());
      app.addHook('onClose', () => shared!.close());
    }
    await app.register(rateLimit, {
      global: true,
      max,
      timeWindow: windowMs,
      ...(shared ? { store: shared.Store, skipOnError: true } : {}),
      // The thrown error goes through the one error handler; the headers are already on the reply.
      errorResponseBuilder: (_request, { after }) =>
        new HttpError(429, `rate limit exceeded: at most ${max} requests per ${formatWindow(windowMs)}; retry in ${after}`),
    });
    app.addHook('onSend', draftHeaders(Math.ceil(windowMs / 1000)));
  },
  { name: 'rate-limit-per-client' },
);

/**
 * `RateLimit-Policy: "default";q=600;w=60` and `RateLimit: "default";r=599;t=42`, from the
 * X-RateLimit-* headers the plugin set on this reply (none on routes that opt out).
 */
function draftHeaders(windowSeconds: number): onSendHookHandler {
  return (_request, reply, payload, done) => {
    const limit = reply.getHeader('x-ratelimit-limit');
    if (limit !== undefined) {
      const remaining = reply.getHeader('x-ratelimit-remaining') ?? 0;
      const reset = reply.getHeader('x-ratelimit-reset') ?? 0;
      reply.header('ratelimit-policy', `"default";q=${String(limit)};w=${windowSeconds}`);
      reply.header('ratelimit', `"default";r=${String(remaining)};t=${String(reset)}`);
    }
    done(null, payload);
  };
}

function formatWindow(ms: number): string {
  if (ms % 60_000 === 0) return ms === 60_000 ? 'minute' : `${ms / 60_000} minutes`;
  if (ms % 1000 === 0) return ms === 1000 ? 'second' : `${ms / 1000} seconds`;
  return `${ms} ms`;
}
