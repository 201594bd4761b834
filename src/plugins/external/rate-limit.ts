import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { HttpError } from '../../errors.js';

/**
 * A budget of `max` requests per client IP per window, kept in this process's memory. The client
 * IP is the socket's address, or X-Forwarded-For's when TRUST_PROXY names the proxy. Over budget,
 * a 429 in the envelope with Retry-After; every answer tells the budget in X-RateLimit-* headers.
 * A route opts out with `config: { rateLimit: false }` (health probes, metrics scrapes).
 */
export const rateLimitPerClient = fp<{ max: number; windowMs: number }>(
  async (app: FastifyInstance, { max, windowMs }) => {
    await app.register(rateLimit, {
      global: true,
      max,
      timeWindow: windowMs,
      // The thrown error goes through the one error handler; the headers are already on the reply.
      errorResponseBuilder: (_request, { after }) =>
        new HttpError(429, `rate limit exceeded: at most ${max} requests per ${formatWindow(windowMs)}; retry in ${after}`),
    });
  },
  { name: 'rate-limit-per-client' },
);

function formatWindow(ms: number): string {
  if (ms % 60_000 === 0) return ms === 60_000 ? 'minute' : `${ms / 60_000} minutes`;
  if (ms % 1000 === 0) return ms === 1000 ? 'second' : `${ms / 1000} seconds`;
  return `${ms} ms`;
}
