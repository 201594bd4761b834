import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** Headers a browser script may read: caching, tracing and the rate limit budget. */
const EXPOSED_HEADERS = ['ETag', 'X-Request-Id', 'Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

/** Headers a script may send: the bearer token of the staging routes, revalidation, its own request id. */
const ALLOWED_HEADERS = ['Authorization', 'If-None-Match', 'X-Request-Id'];

/** How long a browser may reuse a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE_S = 600;

/**
 * CORS for the origins in CORS_ORIGINS (`['*']` for any). With none, the plugin is not registered
 * and no CORS header is ever sent. Preflights are answered in an onRequest hook, before any route
 * (and its bearer authentication) runs: a browser never sends credentials on a preflight.
 */
export const corsPolicy = fp<{ origins: string[] }>(
  async (app: FastifyInstance, { origins }) => {
    if (origins.length === 0) return;
    await app.register(cors, {
      origin: origins.includes('*') ? '*' : origins,
      methods: ['GET', 'HEAD', 'OPTIONS'],
      allowedHeaders: ALLOWED_HEADERS,
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: PREFLIGHT_MAX_AGE_S,
      // Bearer tokens travel in a header, never in cookies.
      credentials: false,
    });
  },
  { name: 'cors-policy' },
);
